//! Protocol-6 wire types (generated from proto/tfplugin6.proto) and their
//! conversion to and from the framework's types: values, schemas, function
//! signatures.

#[allow(missing_docs, clippy::all, clippy::pedantic)]
mod generated {
    tonic::include_proto!("tfplugin6");
}

pub use generated::*;

use super::diagnostics::{self as diag, Diagnostics, PathStep, Severity};
use super::function::Signature;
use super::schema::{self as fw_schema, Mode};
use super::value::{json, msgpack, Type, Value};

/// Decodes a DynamicValue of type `ty` (msgpack preferred, else JSON; absent
/// means null). `what` names the value in the diagnostic on failure.
pub fn decode(
    value: Option<&DynamicValue>,
    ty: &Type,
    what: &str,
    diags: &mut Diagnostics,
) -> Option<Value> {
    let Some(value) = value else {
        return Some(Value::null());
    };
    let decoded = if !value.msgpack.is_empty() {
        msgpack::decode(&value.msgpack, ty).map_err(|e| e.to_string())
    } else if !value.json.is_empty() {
        json::decode(&value.json, ty).map_err(|e| e.to_string())
    } else {
        Ok(Value::null())
    };
    match decoded {
        Ok(v) => Some(v),
        Err(error) => {
            diags.push(diag::Diagnostic::error(
                format!("Invalid {what} received from Terraform"),
                format!("The provider could not decode the {what}: {error}."),
            ));
            None
        }
    }
}

/// Encodes a value of type `ty` as a msgpack DynamicValue.
pub fn encode(value: &Value, ty: &Type, diags: &mut Diagnostics) -> Option<DynamicValue> {
    match msgpack::encode(value, ty) {
        Ok(bytes) => Some(DynamicValue {
            msgpack: bytes,
            json: Vec::new(),
        }),
        Err(error) => {
            diags.push(diag::Diagnostic::error(
                "Provider bug: value does not match its schema",
                format!("The provider could not encode its result: {error}."),
            ));
            None
        }
    }
}

/// The optional protocol features this server supports: Terraform (>= 1.6)
/// may use a schema it already holds instead of calling GetProviderSchema on
/// every instance it starts, since no RPC here depends on that call.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        plan_destroy: false,
        get_provider_schema_optional: true,
        move_resource_state: false,
    }
}

/// Function definitions by name, as GetProviderSchema and GetFunctions
/// return them.
pub fn functions<'a>(
    signatures: impl IntoIterator<Item = (&'a &'static str, &'a Signature)>,
) -> std::collections::HashMap<String, Function> {
    signatures
        .into_iter()
        .map(|(name, signature)| (name.to_string(), function_definition(signature)))
        .collect()
}

fn function_definition(signature: &Signature) -> Function {
    Function {
        parameters: signature
            .parameters
            .iter()
            .map(|p| function::Parameter {
                name: p.name.to_owned(),
                r#type: p.ty.to_json_bytes(),
                allow_null_value: p.allow_null,
                allow_unknown_values: false,
                description: p.description.to_owned(),
                description_kind: StringKind::Markdown as i32,
            })
            .collect(),
        variadic_parameter: None,
        r#return: Some(function::Return {
            r#type: signature.returns.to_json_bytes(),
        }),
        summary: signature.summary.to_owned(),
        description: signature.description.to_owned(),
        description_kind: StringKind::Markdown as i32,
        deprecation_message: String::new(),
    }
}

/// A function error for the wire (argument positions are zero-based on both sides).
pub fn function_error(error: super::function::FunctionError) -> FunctionError {
    FunctionError {
        text: error.text,
        function_argument: error.argument.map(|i| i as i64),
    }
}

/// A schema in the wire form.
pub fn schema_to_proto(schema: &fw_schema::Schema) -> Schema {
    Schema {
        version: schema.version,
        block: Some(schema::Block {
            version: schema.version,
            attributes: schema.attributes.iter().map(attribute_to_proto).collect(),
            block_types: Vec::new(),
            description: schema.description.clone(),
            description_kind: StringKind::Markdown as i32,
            deprecated: false,
        }),
    }
}

fn attribute_to_proto(attribute: &fw_schema::Attribute) -> schema::Attribute {
    schema::Attribute {
        name: attribute.name.clone(),
        r#type: attribute.ty.to_json_bytes(),
        description: attribute.description.clone(),
        required: attribute.mode == Mode::Required,
        optional: matches!(attribute.mode, Mode::Optional | Mode::OptionalComputed),
        computed: attribute.mode.is_computed(),
        sensitive: attribute.sensitive,
        description_kind: StringKind::Markdown as i32,
        deprecated: attribute.deprecation.is_some(),
        write_only: attribute.write_only,
    }
}

/// Diagnostics in the wire form.
pub fn diagnostics_to_proto(diags: &Diagnostics) -> Vec<Diagnostic> {
    diags
        .iter()
        .map(|d| Diagnostic {
            severity: match d.severity {
                Severity::Error => diagnostic::Severity::Error,
                Severity::Warning => diagnostic::Severity::Warning,
            } as i32,
            summary: d.summary.clone(),
            detail: d.detail.clone(),
            attribute: d.path.as_ref().map(path_to_proto),
        })
        .collect()
}

/// An attribute path in the wire form.
pub fn path_to_proto(path: &diag::AttributePath) -> AttributePath {
    use attribute_path::step::Selector;
    AttributePath {
        steps: path
            .steps()
            .iter()
            .map(|step| attribute_path::Step {
                selector: Some(match step {
                    PathStep::Attribute(name) => Selector::AttributeName(name.clone()),
                    PathStep::Index(i) => Selector::ElementKeyInt(*i),
                    PathStep::Key(k) => Selector::ElementKeyString(k.clone()),
                }),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_convert_to_wire_steps() {
        use attribute_path::step::Selector;
        let wire = path_to_proto(&diag::AttributePath::attribute("pod_cidrs").index(1));
        assert_eq!(
            wire.steps[0].selector,
            Some(Selector::AttributeName("pod_cidrs".into()))
        );
        assert_eq!(wire.steps[1].selector, Some(Selector::ElementKeyInt(1)));
    }

    #[test]
    fn diagnostics_convert_with_severity_and_path() {
        let mut diags = Diagnostics::new();
        diags.push(diag::Diagnostic::warning("w", ""));
        diags.push(diag::Diagnostic::error("e", "d").at(diag::AttributePath::attribute("x")));
        let wire = diagnostics_to_proto(&diags);
        assert_eq!(wire[0].severity, diagnostic::Severity::Warning as i32);
        assert_eq!(wire[1].severity, diagnostic::Severity::Error as i32);
        assert_eq!(
            (wire[1].summary.as_str(), wire[1].detail.as_str()),
            ("e", "d")
        );
        assert!(wire[0].attribute.is_none());
        assert_eq!(wire[1].attribute.as_ref().unwrap().steps.len(), 1);
    }
}
