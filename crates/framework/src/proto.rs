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
use super::identity::IdentitySchema;
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
    // Terraform sends each value in one encoding, never none (a null is
    // msgpack's nil): anything else is not a value.
    let decoded = match (value.msgpack.is_empty(), value.json.is_empty()) {
        (false, true) => msgpack::decode(&value.msgpack, ty).map_err(|e| e.to_string()),
        (true, false) => json::decode(&value.json, ty).map_err(|e| e.to_string()),
        (true, true) => Err("the value holds neither msgpack nor JSON".to_owned()),
        (false, false) => {
            Err("the value holds both msgpack and JSON; Terraform sends one".to_owned())
        }
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
    encode_bounded(value, ty)
        .map_err(|e| diags.push(e.diagnostic()))
        .ok()
}

/// Why a value was not encoded.
#[derive(Debug)]
pub enum Unencoded {
    /// It is larger than [`MAX_VALUE_SIZE`]: the error to report.
    TooLarge(diag::Diagnostic),
    /// It does not match its type (a provider bug): the error to report.
    Mistyped(diag::Diagnostic),
}

impl Unencoded {
    /// The error to report.
    pub fn diagnostic(self) -> diag::Diagnostic {
        match self {
            Unencoded::TooLarge(d) | Unencoded::Mistyped(d) => d,
        }
    }
}

/// Largest message Terraform and this server exchange (Terraform's own limit).
pub const MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

/// What a response keeps free beside its one value (its diagnostics,
/// private state and identity, the message's framing).
const RESPONSE_RESERVE: usize = 1024 * 1024;

/// The largest encoded value a response may carry.
pub const MAX_VALUE_SIZE: usize = MAX_MESSAGE_SIZE - RESPONSE_RESERVE;

/// `value` of type `ty` in the wire form, or the error to report: a value
/// larger than [`MAX_VALUE_SIZE`] is measured ([`msgpack::encoded_len`])
/// and refused before anything is encoded, on the attribute that holds most
/// of it, instead of failing in the transport after the whole response was
/// built; a value that does not match its type is a provider bug.
pub fn encode_bounded(value: &Value, ty: &Type) -> Result<DynamicValue, Unencoded> {
    let bug = |error: msgpack::EncodeError| {
        Unencoded::Mistyped(diag::Diagnostic::error(
            "Provider bug: value does not match its schema",
            format!("The provider could not encode its result: {error}."),
        ))
    };
    let bytes = msgpack::encoded_len(value, ty).map_err(bug)?;
    if bytes > MAX_VALUE_SIZE {
        return Err(Unencoded::TooLarge(oversize(value, ty)));
    }
    Ok(DynamicValue {
        msgpack: msgpack::encode(value, ty).map_err(bug)?,
        json: Vec::new(),
    })
}

/// The error on a result beyond [`MAX_VALUE_SIZE`]: on the attribute of
/// the (object) result that takes the most, naming the limit but no size,
/// since a result may hold credentials whose length a size would tell.
fn oversize(value: &Value, ty: &Type) -> diag::Diagnostic {
    let (value, ty) = match (value, ty) {
        (Value::Typed(typed), Type::Dynamic) => (&typed.1, &typed.0),
        _ => (value, ty),
    };
    let largest = match (value, ty) {
        (Value::Object(values), Type::Object(types)) => types
            .iter()
            .filter_map(|(name, t)| Some((name, msgpack::encoded_len(values.get(name)?, t).ok()?)))
            // Compared by the mebibyte, so that a few bytes (a password
            // against its `***` in a redacted twin) never choose.
            .max_by_key(|(_, n)| n >> 20)
            .map(|(name, _)| name),
        _ => None,
    };
    match largest {
        Some(name) => too_large(&format!("`{name}` takes the most of it"))
            .at(diag::AttributePath::attribute(name)),
        None => too_large("in the wire format"),
    }
}

/// The error on a result beyond [`MAX_VALUE_SIZE`], naming the limit, with
/// `measure`, what is known of it that tells no secret (e.g. "at least
/// 80000000 bytes in the wire format" from a list of names); a provider
/// that can bound its result from the inputs refuses it with this before
/// building it.
pub fn too_large(measure: &str) -> diag::Diagnostic {
    diag::Diagnostic::error(
        "Result too large for Terraform",
        format!(
            "The result would take more than the {MAX_VALUE_SIZE} bytes (63 MiB) a response may hold ({measure}): Terraform accepts at most {MAX_MESSAGE_SIZE} bytes (64 MiB) in one message. Nothing was returned; give a smaller input."
        ),
    )
}

/// The optional protocol features this server supports: Terraform (>= 1.6)
/// may use a schema it already holds instead of calling GetProviderSchema on
/// every instance it starts, since no RPC here depends on that call.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        plan_destroy: false,
        get_provider_schema_optional: true,
        move_resource_state: false,
        generate_resource_config: false,
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
                r#type: p.type_json_bytes(),
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

/// A function error for the wire (argument positions are zero-based on both
/// sides), its text bounded as a diagnostic's detail is.
pub fn function_error(error: super::function::FunctionError) -> FunctionError {
    FunctionError {
        text: bounded(&error.text, MAX_DETAIL_BYTES),
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
            computed: false,
        }),
    }
}

/// An identity schema in the wire form.
pub fn identity_schema_to_proto(schema: &IdentitySchema) -> ResourceIdentitySchema {
    ResourceIdentitySchema {
        version: schema.version,
        identity_attributes: schema
            .attributes
            .iter()
            .map(|a| resource_identity_schema::IdentityAttribute {
                name: a.name.clone(),
                r#type: a.ty.to_json_bytes(),
                required_for_import: a.required_for_import,
                optional_for_import: !a.required_for_import,
                description: a.description.clone(),
            })
            .collect(),
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

/// The most diagnostics one response carries; the rest are summarised in
/// one more (a request can hold a finding per element: 100k empty entries
/// made 100k diagnostics, and 1M overran gRPC's message limit).
pub const MAX_DIAGNOSTICS: usize = 100;

/// The most bytes of a summary, and of a detail, on the wire: a value quoted
/// whole (a 60 MiB entry) is cut there, saying how long it was.
pub const MAX_SUMMARY_BYTES: usize = 512;
/// See [`MAX_SUMMARY_BYTES`].
pub const MAX_DETAIL_BYTES: usize = 8 * 1024;

/// `text` cut to at most `max` bytes on a character boundary, with a note
/// of its full length when cut.
fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let note = format!("… (cut: {} bytes in all)", text.len());
    let mut end = max.saturating_sub(note.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{note}", &text[..end])
}

/// Diagnostics in the wire form: at most [`MAX_DIAGNOSTICS`] of them, then
/// one that counts the rest (an error when any of the rest is), each with
/// its summary and detail bounded.
pub fn diagnostics_to_proto(diags: &Diagnostics) -> Vec<Diagnostic> {
    let wire = |severity: Severity,
                summary: &str,
                detail: &str,
                path: Option<&diag::AttributePath>| Diagnostic {
        severity: match severity {
            Severity::Error => diagnostic::Severity::Error,
            Severity::Warning => diagnostic::Severity::Warning,
        } as i32,
        summary: bounded(summary, MAX_SUMMARY_BYTES),
        detail: bounded(detail, MAX_DETAIL_BYTES),
        attribute: path.map(path_to_proto),
    };
    let mut out: Vec<Diagnostic> = diags
        .iter()
        .take(MAX_DIAGNOSTICS)
        .map(|d| wire(d.severity, &d.summary, &d.detail, d.path.as_ref()))
        .collect();
    let rest: Vec<_> = diags.iter().skip(MAX_DIAGNOSTICS).collect();
    if !rest.is_empty() {
        let errors = rest
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        let severity = if errors > 0 {
            Severity::Error
        } else {
            Severity::Warning
        };
        out.push(wire(
            severity,
            &format!("{} more diagnostics not shown", rest.len()),
            &format!(
                "Only the first {MAX_DIAGNOSTICS} diagnostics are shown; {} more ({errors} errors, {} warnings) were found, the first of them: {:?}. Fix the ones shown and plan again.",
                rest.len(),
                rest.len() - errors,
                rest[0].summary,
            ),
            None,
        ));
    }
    out
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

    /// The protocol 6.11 fields decode at the numbers of Terraform
    /// v1.16.0-rc2's tfplugin6.proto (`Schema.Block.computed = 8`,
    /// `ClientCapabilities.store_planned_private = 3` and
    /// `computed_blocks_allowed = 4`, `PlanResourceChange.Request.planned_private
    /// = 9`), and a schema sends no computed block.
    #[test]
    fn protocol_6_11_fields_decode_at_their_numbers() {
        use prost::Message as _;
        // Field 8, varint 1; fields 3 and 4, varint 1; field 9, bytes "pp".
        let block = schema::Block::decode(&[0x40, 0x01][..]).unwrap();
        assert!(block.computed);
        let capabilities = ClientCapabilities::decode(&[0x18, 0x01, 0x20, 0x01][..]).unwrap();
        assert!(capabilities.store_planned_private && capabilities.computed_blocks_allowed);
        let request = plan_resource_change::Request::decode(&[0x4a, 0x02, b'p', b'p'][..]).unwrap();
        assert_eq!(request.planned_private, b"pp");
        let schema = schema_to_proto(&fw_schema::Schema::new("d", Vec::new()));
        assert!(!schema.block.unwrap().computed);
    }

    /// A result too large is refused with the same error whatever a few
    /// bytes of it take: a rendering with a password and its redacted twin
    /// (`***` in its place) differ by the password's length, and neither the
    /// text nor the attribute blamed may tell which is larger.
    #[test]
    fn a_result_too_large_is_refused_alike_whatever_a_password_takes() {
        let ty = Type::object([("secret", Type::String), ("secret_redacted", Type::String)]);
        let half = MAX_VALUE_SIZE / 2 + 4096;
        let refused = |password: usize| {
            let value = Value::object([
                (
                    "secret".to_owned(),
                    Value::string("x".repeat(half + password)),
                ),
                (
                    "secret_redacted".to_owned(),
                    Value::string("x".repeat(half + 3)),
                ),
            ]);
            match encode_bounded(&value, &ty) {
                Err(Unencoded::TooLarge(d)) => d,
                _ => panic!("not refused as too large"),
            }
        };
        let short = refused(1);
        assert_eq!(short, refused(40));
        assert!(short.path.is_some(), "{short:?}");
        assert!(
            !short.detail.contains(&(2 * half + 4).to_string()),
            "{short:?}"
        );
    }

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

    /// A DynamicValue with no encoding, or with both, is refused with a
    /// diagnostic; one encoding decodes, and an absent value is null.
    #[test]
    fn dynamic_values_hold_exactly_one_encoding() {
        let ty = Type::String;
        let msgpack = msgpack::encode(&Value::string("a"), &ty).unwrap();
        let cases = [
            (
                DynamicValue {
                    msgpack: Vec::new(),
                    json: Vec::new(),
                },
                Some("neither msgpack nor JSON"),
            ),
            (
                DynamicValue {
                    msgpack: msgpack.clone(),
                    json: b"\"b\"".to_vec(),
                },
                Some("both msgpack and JSON"),
            ),
            (
                DynamicValue {
                    msgpack,
                    json: Vec::new(),
                },
                None,
            ),
            (
                DynamicValue {
                    msgpack: Vec::new(),
                    json: b"\"a\"".to_vec(),
                },
                None,
            ),
        ];
        for (value, error) in cases {
            let mut diags = Diagnostics::new();
            let decoded = decode(Some(&value), &ty, "configuration", &mut diags);
            match error {
                Some(error) => {
                    assert!(decoded.is_none());
                    let d = diags.iter().next().unwrap();
                    assert_eq!(d.summary, "Invalid configuration received from Terraform");
                    assert!(d.detail.contains(error), "{}", d.detail);
                }
                None => assert_eq!(decoded, Some(Value::string("a")), "{diags:?}"),
            }
        }
        assert_eq!(
            decode(None, &ty, "configuration", &mut Diagnostics::new()),
            Some(Value::null())
        );
    }

    /// 100k findings give a bounded response that still fails: the first
    /// [`MAX_DIAGNOSTICS`] and one error counting the rest.
    #[test]
    fn diagnostics_are_capped_in_count() {
        let mut diags = Diagnostics::new();
        for i in 0..100_000 {
            diags.push(
                diag::Diagnostic::error("Empty NO_PROXY entry", "An entry is empty.")
                    .at(diag::AttributePath::attribute("no_proxy").index(i)),
            );
        }
        let wire = diagnostics_to_proto(&diags);
        assert_eq!(wire.len(), MAX_DIAGNOSTICS + 1);
        let last = wire.last().unwrap();
        assert_eq!(last.summary, "99900 more diagnostics not shown");
        assert_eq!(last.severity, diagnostic::Severity::Error as i32);
        assert!(
            last.detail.contains("99900 errors, 0 warnings"),
            "{}",
            last.detail
        );
        let size: usize = wire.iter().map(|d| d.summary.len() + d.detail.len()).sum();
        assert!(size < 64 * 1024, "{size} bytes");
        // Warnings only: the summary is a warning too.
        let mut warnings = Diagnostics::new();
        for _ in 0..=MAX_DIAGNOSTICS {
            warnings.push(diag::Diagnostic::warning("w", "d"));
        }
        let wire = diagnostics_to_proto(&warnings);
        assert_eq!(
            wire.last().unwrap().severity,
            diagnostic::Severity::Warning as i32
        );
    }

    /// A value quoted whole is cut on a character boundary, with its length.
    #[test]
    fn summaries_and_details_are_capped_in_length() {
        let huge = "é".repeat(30 * 1024 * 1024);
        let mut diags = Diagnostics::new();
        diags.push(diag::Diagnostic::error(
            format!("Invalid entry {huge}"),
            format!("The entry {huge:?} is not valid."),
        ));
        let wire = diagnostics_to_proto(&diags);
        assert!(
            wire[0].summary.len() <= MAX_SUMMARY_BYTES,
            "{}",
            wire[0].summary.len()
        );
        assert!(
            wire[0].detail.len() <= MAX_DETAIL_BYTES,
            "{}",
            wire[0].detail.len()
        );
        assert!(wire[0].summary.starts_with("Invalid entry éé"));
        assert!(
            wire[0].detail.ends_with(" bytes in all)"),
            "{}",
            &wire[0].detail[wire[0].detail.len() - 40..]
        );
        assert_eq!(bounded("short", 10), "short");
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
