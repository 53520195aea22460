//! Kyverno's CEL policies run on sample objects by a real CEL
//! implementation, for the tests: every expression compiled by the `cel`
//! crate (cel-rust), the match conditions and the mutation of a
//! `MutatingPolicy` evaluated on a pod and the JSON Patch it returns applied
//! with the `json-patch` crate (RFC 6902), the generate expressions of a
//! `GeneratingPolicy` evaluated on a namespace, Kyverno's `generator` and
//! `resource` functions recording and answering from given objects.
//!
//! The environments hold what the policies use of Kyverno's: the CEL
//! standard library, cel-go's `lists` extension (`lists.range`), the
//! `JSONPatch` type (fields `op`, `path`, `from`, `value`, as Kubernetes'
//! `JSONPatch` declares them), the variables `object`, `request` and
//! `variables`, and the generator and resource functions under the names
//! of the Kyverno minor given (see [`super::cel_policy`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use cel::common::types::Type;
use cel::common::value::{CowVal, Val};
use cel::extractors::Arguments;
use cel::{Context, Env, ExecutionError, StructType, Value as Cel};
use serde_json::{json, Value};

use super::cel_policy::LOWER_CASE_FUNCTIONS_SINCE;

/// Kubernetes' `JSONPatch` type: a struct literal of it is a map of its
/// fields, which the patch is read from.
struct JsonPatch(Type);

impl StructType for JsonPatch {
    fn get_type(&self) -> &Type {
        &self.0
    }

    fn new_value<'b, 'v>(
        &self,
        fields: BTreeMap<String, CowVal<'b, 'v>>,
    ) -> Result<Box<dyn Val + 'v>, ExecutionError> {
        let mut map = HashMap::new();
        for (field, value) in fields {
            if !["op", "path", "from", "value"].contains(&field.as_str()) {
                return Err(ExecutionError::function_error(
                    "JSONPatch",
                    format!("JSONPatch has no field {field:?}"),
                ));
            }
            map.insert(field, Cel::try_from(value.as_ref())?);
        }
        Cel::from(map).try_into()
    }
}

/// Every CEL expression of a policy manifest: its match conditions,
/// variables, mutations and generate entries.
pub fn expressions(policy: &Value) -> Vec<String> {
    let spec = &policy["spec"];
    let list = |key: &str| spec[key].as_array().cloned().unwrap_or_default();
    let mut out = Vec::new();
    for entry in list("matchConditions")
        .iter()
        .chain(&list("variables"))
        .chain(&list("generate"))
    {
        out.extend(entry["expression"].as_str().map(str::to_owned));
    }
    for mutation in list("mutations") {
        out.extend(
            mutation["jsonPatch"]["expression"]
                .as_str()
                .map(str::to_owned),
        );
    }
    out
}

/// The environment of the policies.
fn env() -> Arc<Env> {
    let mut env = Env::stdlib();
    env.add_extension(cel::extensions::lists)
        .expect("the lists extension registers once");
    env.add_type(JsonPatch(Type::new_struct("JSONPatch".to_owned())))
        .expect("JSONPatch registers once");
    Arc::new(env)
}

/// Compiles `expression`; the parse errors as text.
pub fn compile(expression: &str) -> Result<cel::Program, String> {
    env()
        .compile(expression)
        .map_err(|errors| format!("{expression}: {errors:?}"))
}

/// `expression` evaluated in `context`, as JSON.
fn evaluate(context: &Context, expression: &str) -> Result<Value, String> {
    let value = compile(expression)?
        .execute(context)
        .map_err(|error| format!("{expression}: {error:?}"))?;
    value
        .json()
        .map_err(|error| format!("{expression}: not JSON: {error:?}"))
}

/// Whether every match condition of `policy` holds in `context`.
fn conditions_hold(policy: &Value, context: &Context) -> Result<bool, String> {
    for condition in policy["spec"]["matchConditions"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let expression = condition["expression"].as_str().unwrap_or_default();
        match evaluate(context, expression)? {
            Value::Bool(holds) if !holds => return Ok(false),
            Value::Bool(_) => {}
            other => return Err(format!("{expression}: {other} is not a bool")),
        }
    }
    Ok(true)
}

/// Binds `spec.variables` in order, each seeing the ones before it, as
/// the map `variables`.
fn bind_variables(policy: &Value, context: &mut Context) -> Result<(), String> {
    let mut variables = serde_json::Map::new();
    context
        .add_variable("variables", Value::Object(variables.clone()))
        .map_err(|error| format!("{error:?}"))?;
    for variable in policy["spec"]["variables"].as_array().into_iter().flatten() {
        let name = variable["name"].as_str().unwrap_or_default().to_owned();
        let value = evaluate(context, variable["expression"].as_str().unwrap_or_default())?;
        variables.insert(name, value);
        context
            .add_variable("variables", Value::Object(variables.clone()))
            .map_err(|error| format!("{error:?}"))?;
    }
    Ok(())
}

/// The pod as the `MutatingPolicy` `policy` admits it on CREATE in
/// `namespace`: `None` when a match condition leaves it alone, else the pod
/// with the JSON Patch of each mutation applied in turn.
pub fn mutate(policy: &Value, namespace: &str, pod: &Value) -> Result<Option<Value>, String> {
    let mut object = pod.clone();
    let request = json!({
        "namespace": namespace,
        "operation": "CREATE",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
    });
    let context = |object: &Value| -> Result<Context, String> {
        let mut context = Context::with_env(env());
        for (name, value) in [("object", object), ("request", &request)] {
            context
                .add_variable(name, value.clone())
                .map_err(|error| format!("{error:?}"))?;
        }
        bind_variables(policy, &mut context)?;
        Ok(context)
    };
    if !conditions_hold(policy, &context(&object)?)? {
        return Ok(None);
    }
    for mutation in policy["spec"]["mutations"].as_array().into_iter().flatten() {
        let context = context(&object)?;
        if mutation["patchType"] != "JSONPatch" {
            return Err(format!("not a JSONPatch mutation: {mutation}"));
        }
        let patches = evaluate(
            &context,
            mutation["jsonPatch"]["expression"]
                .as_str()
                .unwrap_or_default(),
        )?;
        let patch: json_patch::Patch = serde_json::from_value(patches.clone())
            .map_err(|error| format!("{error}: {patches}"))?;
        json_patch::patch(&mut object, &patch).map_err(|error| format!("{error}: {patches}"))?;
    }
    Ok(Some(object))
}

/// What the `GeneratingPolicy` `policy` of Kyverno 1.`minor` generates for
/// the Namespace object `namespace`: each object a generator call applies,
/// with the namespace it names; `resource.get` answers from `cluster`
/// (objects with `kind`, `metadata.namespace` and `metadata.name`). `None`
/// when a match condition leaves the namespace alone.
pub fn generate(
    policy: &Value,
    minor: u32,
    namespace: &Value,
    cluster: &[Value],
) -> Result<Option<Vec<(String, Value)>>, String> {
    let (apply, get) = if minor >= LOWER_CASE_FUNCTIONS_SINCE {
        ("generator.apply", "resource.get")
    } else {
        ("generator.Apply", "resource.Get")
    };
    let applied = Arc::new(Mutex::new(Vec::new()));
    let mut context = Context::with_env(env());
    context
        .add_variable("object", namespace.clone())
        .map_err(|error| format!("{error:?}"))?;
    let record = Arc::clone(&applied);
    context
        .add_function(
            apply,
            move |Arguments(args): Arguments| -> Result<bool, ExecutionError> {
                let json = |value: &Cel| {
                    value.json().map_err(|error| {
                        ExecutionError::function_error("apply", format!("{error:?}"))
                    })
                };
                let [target, objects] = args.as_slice() else {
                    return Err(ExecutionError::invalid_argument_count(2, args.len()));
                };
                let target = json(target)?.as_str().unwrap_or_default().to_owned();
                let Value::Array(objects) = json(objects)? else {
                    return Err(ExecutionError::function_error("apply", "not a list"));
                };
                let mut applied = record.lock().expect("not poisoned");
                applied.extend(objects.into_iter().map(|object| (target.clone(), object)));
                Ok(true)
            },
        )
        .map_err(|error| format!("{error:?}"))?;
    let objects = cluster.to_vec();
    context
        .add_function(
            get,
            move |Arguments(args): Arguments| -> Result<Cel, ExecutionError> {
                let strings: Vec<String> = args
                    .iter()
                    .map(|arg| match arg {
                        Cel::String(text) => Ok(text.to_string()),
                        other => Err(ExecutionError::function_error("get", format!("{other:?}"))),
                    })
                    .collect::<Result<_, _>>()?;
                let [api_version, resource, namespace, name] = strings.as_slice() else {
                    return Err(ExecutionError::invalid_argument_count(4, strings.len()));
                };
                let found = objects.iter().find(|object| {
                    object["apiVersion"] == api_version.as_str()
                        && format!(
                            "{}s",
                            object["kind"].as_str().unwrap_or_default().to_lowercase()
                        ) == *resource
                        && object["metadata"]["namespace"] == namespace.as_str()
                        && object["metadata"]["name"] == name.as_str()
                });
                let found = found.ok_or_else(|| {
                    ExecutionError::function_error(
                        "get",
                        format!("no {resource} {namespace}/{name}"),
                    )
                })?;
                cel::to_value(found)
                    .map_err(|error| ExecutionError::function_error("get", error.to_string()))
            },
        )
        .map_err(|error| format!("{error:?}"))?;
    if !conditions_hold(policy, &context)? {
        return Ok(None);
    }
    bind_variables(policy, &mut context)?;
    for entry in policy["spec"]["generate"].as_array().into_iter().flatten() {
        let expression = entry["expression"].as_str().unwrap_or_default();
        if evaluate(&context, expression)? != Value::Bool(true) {
            return Err(format!("{expression}: not true"));
        }
    }
    let applied = applied.lock().expect("not poisoned").clone();
    Ok(Some(applied))
}
