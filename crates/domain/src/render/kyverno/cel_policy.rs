//! Kyverno's CEL policies (`policies.kyverno.io/v1`, stable from Kyverno
//! 1.17): a `MutatingPolicy` that adds the proxy environment (and the CA) to
//! new pods with a JSON Patch, and a `GeneratingPolicy` that keeps the CA
//! ConfigMap and the cloned credentials Secret in every namespace.
//!
//! Fields follow `config/crds/policies.kyverno.io/policies.kyverno.io_
//! {mutating,generating}policies.yaml` of kyverno/kyverno at v1.17.2,
//! v1.18.2 and v1.19.0 (version `v1`, served in all three):
//! `spec.matchConstraints.resourceRules[]`, `spec.matchConditions[].{name,
//! expression}`, `spec.mutations[].{patchType, jsonPatch.expression}`,
//! `spec.variables[].{name, expression}`, `spec.generate[].expression`,
//! `spec.evaluation.{generateExisting,synchronize}.enabled`. The mutation's
//! expression returns a list of `JSONPatch{op, path, value}` (the
//! Kubernetes MutatingAdmissionPolicy type Kyverno's mutating policies
//! declare, pkg/cel/policies/mpol/compiler). Kyverno's generator and
//! resource libraries are `generator.Apply`/`resource.Get` in 1.17 and
//! `generator.apply`/`resource.get` from 1.18 (the 1.18 and 1.19
//! conformance tests use the latter; 1.17 declares only the former,
//! pkg/cel/libs/generator/lib.go). Kyverno's CEL environment has
//! cel-go's `lists` extension (`lists.range`, pkg/cel/compiler/env.go and,
//! in 1.17, the Kubernetes base environment it extends).

use serde_json::{json, Value};

use super::{Kyverno, CEL_POLICIES_SINCE};
use crate::render::pod_env::{self, CredentialsSecret};
use crate::render::{yaml, ProxySettings, Secrets};

/// The first Kyverno minor whose generator and resource functions are
/// spelled in lower case (`generator.apply`, `resource.get`).
pub const LOWER_CASE_FUNCTIONS_SINCE: u32 = 18;

/// A JSON value as a CEL literal, with its CEL type. JSON's `null`,
/// booleans, numbers, strings, arrays and objects are CEL literals as
/// serde_json writes them: it escapes only `"`, `\` and control
/// characters, each with an escape CEL reads (cel-spec `doc/langdef.md`,
/// "String and Bytes Values"). Kyverno 1.19 requires the members of a list
/// or map literal to share one type (`cel.HomogeneousAggregateLiterals`,
/// pkg/cel/compiler/env.go), so the members of one that mixes types are
/// wrapped in `dyn()`, as Kyverno's own examples write them.
pub fn literal(value: &Value) -> (String, String) {
    /// The members' texts, each in `dyn()` unless all share one type, and
    /// that type (`dyn` when they do not, or there is none).
    fn members(members: Vec<(String, String)>) -> (Vec<String>, String) {
        let same = members.windows(2).all(|pair| pair[0].1 == pair[1].1);
        let member_type = match members.first() {
            Some((_, first)) if same => first.clone(),
            _ => "dyn".to_owned(),
        };
        let texts = members
            .into_iter()
            .map(|(text, _)| if same { text } else { format!("dyn({text})") })
            .collect();
        (texts, member_type)
    }
    let scalar = |kind: &str| (value.to_string(), kind.to_owned());
    match value {
        Value::Array(items) => {
            let (texts, member_type) = members(items.iter().map(literal).collect());
            (
                format!("[{}]", texts.join(", ")),
                format!("list({member_type})"),
            )
        }
        Value::Object(map) => {
            let (texts, member_type) = members(map.values().map(literal).collect());
            let entries: Vec<String> = map
                .keys()
                .zip(texts)
                .map(|(key, text)| format!("{}: {text}", Value::from(key.as_str())))
                .collect();
            (
                format!("{{{}}}", entries.join(", ")),
                format!("map(string, {member_type})"),
            )
        }
        Value::String(_) => scalar("string"),
        Value::Bool(_) => scalar("bool"),
        Value::Null => scalar("null"),
        Value::Number(number) if number.is_i64() => scalar("int"),
        Value::Number(number) if number.is_u64() => scalar("uint"),
        Value::Number(_) => scalar("double"),
    }
}

/// [`literal`]'s text alone.
fn cel(value: &Value) -> String {
    literal(value).0
}

/// The policy's title and description annotations.
fn annotations(description: String) -> Value {
    json!({
        "policies.kyverno.io/title": "Proxy environment",
        "policies.kyverno.io/description": description,
    })
}

/// The match condition that leaves the excluded namespaces alone, `None`
/// when none is excluded; `subject` is the CEL expression of the namespace.
fn namespace_condition(options: &Kyverno, subject: &str) -> Option<Value> {
    let namespaces = options.namespaces();
    (!namespaces.is_empty()).then(|| {
        json!({
            "name": "not-excluded-namespace",
            "expression": format!("!({subject} in {})", cel(&json!(namespaces))),
        })
    })
}

/// The `MutatingPolicy`: on pod CREATE, unless the namespace is excluded or
/// the pod opted out, a JSON Patch that sets, in every container
/// (`spec.containers`), the proxy variables (replacing the container's own
/// entries of those names) and with a CA the mount, and adds the CA volume.
pub fn mutating_policy(settings: &ProxySettings, options: &Kyverno, secrets: Secrets) -> String {
    let env = pod_env::env_json(settings, secrets, options.credentials_secret.as_ref());
    let names: Vec<&Value> = env
        .as_array()
        .map(|entries| entries.iter().map(|entry| &entry["name"]).collect())
        .unwrap_or_default();
    let volume_name = cel(&json!(pod_env::CA_VOLUME));
    // Each container's list `field`: its entries `kept` keeps, then `added`.
    let per_container = |field: &str, kept: &str, added: &Value| {
        format!(
            "lists.range(size(object.spec.containers)).map(i, JSONPatch{{\n  op: \"add\",\n  path: \"/spec/containers/\" + string(i) + \"/{field}\",\n  value: (has(object.spec.containers[i].{field}) ? object.spec.containers[i].{field}.filter(e, {kept}) : [])\n    + {}\n}})",
            cel(added)
        )
    };
    let mut patches = vec![per_container(
        "env",
        &format!("!(e.name in {})", cel(&json!(names))),
        &env,
    )];
    if settings.trusted_ca.is_some() {
        patches.push(per_container(
            "volumeMounts",
            &format!("e.name != {volume_name}"),
            &json!([{
                "name": pod_env::CA_VOLUME,
                "mountPath": pod_env::CA_MOUNT_PATH,
                "readOnly": true,
            }]),
        ));
        patches.push(format!(
            "[JSONPatch{{\n  op: \"add\",\n  path: \"/spec/volumes\",\n  value: (has(object.spec.volumes) ? object.spec.volumes.filter(v, v.name != {volume_name}) : [])\n    + {}\n}}]",
            cel(&json!([{
                "name": pod_env::CA_VOLUME,
                "configMap": {"name": options.config_map_name},
            }]))
        ));
    }
    let annotation = cel(&json!(options.opt_out_annotation));
    let mut conditions: Vec<Value> = namespace_condition(options, "request.namespace")
        .into_iter()
        .collect();
    conditions.push(json!({
        "name": "not-opted-out",
        "expression": format!(
            "!has(object.metadata.annotations) || !({annotation} in object.metadata.annotations) || object.metadata.annotations[{annotation}] != \"true\""
        ),
    }));
    yaml::to_string(&json!({
        "apiVersion": "policies.kyverno.io/v1",
        "kind": "MutatingPolicy",
        "metadata": {
            "name": options.name,
            "annotations": annotations(options.description(settings)),
        },
        "spec": {
            "matchConstraints": {
                "resourceRules": [{
                    "apiGroups": [""],
                    "apiVersions": ["v1"],
                    "operations": ["CREATE"],
                    "resources": ["pods"],
                }],
            },
            "matchConditions": conditions,
            "mutations": [{
                "patchType": "JSONPatch",
                "jsonPatch": {"expression": patches.join("\n+ ")},
            }],
        },
    }))
}

/// The `GeneratingPolicy` for Kyverno 1.`minor`: with a CA, the ConfigMap
/// in every namespace the policy does not exclude; with the Secret's
/// namespace, the Secret cloned from there into every other one. Both are
/// synchronized and reach the namespaces that exist already
/// (`generateExisting`). `None` when there is neither.
pub fn generating_policy(
    settings: &ProxySettings,
    options: &Kyverno,
    minor: u32,
) -> Option<String> {
    debug_assert!(minor >= CEL_POLICIES_SINCE);
    let (apply, get) = if minor >= LOWER_CASE_FUNCTIONS_SINCE {
        ("generator.apply", "resource.get")
    } else {
        ("generator.Apply", "resource.Get")
    };
    let mut generate = Vec::new();
    let mut what = Vec::new();
    if let Some(ca) = &settings.trusted_ca {
        let config_map = json!([{
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": options.config_map_name},
            "data": {pod_env::CA_KEY: ca.to_pem()},
        }]);
        generate.push(json!({
            "expression": format!("{apply}(variables.namespace, {})", cel(&config_map)),
        }));
        what.push("the proxy's CA ConfigMap");
    }
    if let Some(CredentialsSecret {
        name,
        namespace: Some(source),
    }) = &options.credentials_secret
    {
        let (name, source) = (cel(&json!(name)), cel(&json!(source)));
        // The source namespace has the Secret already: cloning onto itself
        // is left out.
        generate.push(json!({
            "expression": format!(
                "{apply}(variables.namespace, variables.namespace == {source} ? [] : [{get}(\"v1\", \"secrets\", {source}, {name})])"
            ),
        }));
        what.push("the proxy credentials Secret");
    }
    if generate.is_empty() {
        return None;
    }
    let mut spec = json!({
        "evaluation": {
            "generateExisting": {"enabled": true},
            "synchronize": {"enabled": true},
        },
        "matchConstraints": {
            "resourceRules": [{
                "apiGroups": [""],
                "apiVersions": ["v1"],
                "operations": ["CREATE", "UPDATE"],
                "resources": ["namespaces"],
            }],
        },
        "variables": [{"name": "namespace", "expression": "object.metadata.name"}],
        "generate": generate,
    });
    if let Some(condition) = namespace_condition(options, "object.metadata.name") {
        spec["matchConditions"] = json!([condition]);
    }
    Some(yaml::to_string(&json!({
        "apiVersion": "policies.kyverno.io/v1",
        "kind": "GeneratingPolicy",
        "metadata": {
            "name": options.name,
            "annotations": annotations(format!(
                "Keeps {} in every namespace but the excluded ones.",
                what.join(" and ")
            )),
        },
        "spec": spec,
    })))
}
