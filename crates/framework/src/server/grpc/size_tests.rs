//! Results too large for one message: refused with a diagnostic (a data
//! source's on its attribute, a function's on its argument) that names the
//! size and the limit, before they are encoded, rather than with the
//! transport's generic error after the whole response was built.

use std::sync::Arc;

use super::tests::Offers;
use super::*;
use crate::data_source::DataSource;
use crate::diagnostics::Diagnostics;
use crate::function::{Function, FunctionError, Parameter, Signature};
use crate::proto::MAX_VALUE_SIZE;
use crate::schema::{Attribute, Schema};
use crate::value::{msgpack, Type, Value};
use proto::attribute_path::step::Selector;
use proto::provider_server::Provider as _;

/// The number in `value`, as a length.
fn length(value: Option<&Value>) -> usize {
    value
        .and_then(Value::as_number)
        .and_then(|n| n.as_i64())
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or_default()
}

/// A data source whose `out` holds `bytes` bytes, beside a short `note`.
struct Sized;

impl DataSource for Sized {
    fn type_name(&self) -> &'static str {
        "test_sized"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "",
            vec![
                Attribute::required("bytes", Type::Number, ""),
                Attribute::computed("out", Type::String, ""),
                Attribute::computed("note", Type::String, ""),
            ],
        )
    }

    fn read(&self, config: &Value, _diags: &mut Diagnostics) -> Option<Value> {
        Some(Value::object([
            (
                "out".to_owned(),
                Value::string("x".repeat(length(config.get_attr("bytes")))),
            ),
            ("note".to_owned(), Value::string("short")),
        ]))
    }
}

/// A function returning a string of its argument's length.
struct Repeat;

impl Function for Repeat {
    fn name(&self) -> &'static str {
        "repeat"
    }

    fn signature(&self) -> Signature {
        Signature {
            parameters: vec![Parameter {
                name: "bytes",
                ty: Type::Number,
                description: "",
                allow_null: false,
                optional: &[],
            }],
            returns: Type::String,
            summary: "",
            description: "",
        }
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        Ok(Value::string("x".repeat(length(arguments.first()))))
    }
}

fn server() -> ProviderServer {
    ProviderServer::new(&Offers {
        data_sources: vec![Arc::new(Sized)],
        functions: vec![Arc::new(Repeat)],
        ..Offers::default()
    })
}

async fn read(server: &ProviderServer, bytes: usize) -> proto::read_data_source::Response {
    let ty = Type::object([
        ("bytes", Type::Number),
        ("out", Type::String),
        ("note", Type::String),
    ]);
    let config = Value::object([
        ("bytes".to_owned(), Value::int(bytes as i64)),
        ("out".to_owned(), Value::null()),
        ("note".to_owned(), Value::null()),
    ]);
    server
        .read_data_source(Request::new(proto::read_data_source::Request {
            type_name: "test_sized".into(),
            config: Some(proto::DynamicValue {
                msgpack: msgpack::encode(&config, &ty).unwrap(),
                json: Vec::new(),
            }),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner()
}

/// A state beyond what one message holds is an error on the attribute that
/// takes most of it, naming its size and Terraform's 64 MiB limit; a large
/// one within it is returned whole.
#[tokio::test]
async fn a_state_too_large_for_a_message_is_an_error_on_its_attribute() {
    let server = server();
    let response = read(&server, MAX_MESSAGE_SIZE).await;
    assert!(response.state.is_none());
    assert_eq!(response.diagnostics.len(), 1, "{:?}", response.diagnostics);
    let diagnostic = &response.diagnostics[0];
    assert_eq!(diagnostic.summary, "Result too large for Terraform");
    let steps = diagnostic.attribute.as_ref().map(|a| a.steps.as_slice());
    assert_eq!(
        steps,
        Some(
            &[proto::attribute_path::Step {
                selector: Some(Selector::AttributeName("out".into())),
            }][..]
        ),
        "{diagnostic:?}"
    );
    for figure in [
        format!("{MAX_MESSAGE_SIZE} bytes (64 MiB)"),
        format!("{MAX_VALUE_SIZE} bytes"),
        format!("`out` takes {} bytes", MAX_MESSAGE_SIZE + 5),
    ] {
        assert!(
            diagnostic.detail.contains(&figure),
            "{figure}: {diagnostic:?}"
        );
    }
    let fits = read(&server, 4 * 1024 * 1024).await;
    assert!(fits.diagnostics.is_empty(), "{:?}", fits.diagnostics);
    assert!(fits
        .state
        .is_some_and(|s| s.msgpack.len() > 4 * 1024 * 1024));
}

/// A function result beyond what one message holds is an error on the
/// argument that made it, naming its size and the limit.
#[tokio::test]
async fn a_function_result_too_large_for_a_message_is_an_error() {
    let response = server()
        .call_function(Request::new(proto::call_function::Request {
            name: "repeat".into(),
            arguments: vec![proto::DynamicValue {
                msgpack: msgpack::encode(&Value::int(MAX_MESSAGE_SIZE as i64), &Type::Number)
                    .unwrap(),
                json: Vec::new(),
            }],
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(response.result.is_none());
    let error = response.error.expect("an error");
    assert_eq!(error.function_argument, Some(0), "{error:?}");
    assert!(
        error.text.contains(&format!(
            "{} bytes in the wire format, more than the {MAX_VALUE_SIZE} bytes",
            MAX_MESSAGE_SIZE + 5
        )),
        "{error:?}"
    );
    assert!(error.text.contains("64 MiB"), "{error:?}");
}
