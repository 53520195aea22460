//! Results too large for one message: refused with a diagnostic (a data
//! source's on its attribute, a function's on its argument) that names the
//! limit but no size (a result may hold credentials), before they are
//! encoded, rather than with the transport's generic error after the whole
//! response was built.

use std::sync::Arc;

use super::tests::Offers;
use super::*;
use crate::data_source::DataSource;
use crate::diagnostics::Diagnostics;
use crate::function::{Function, FunctionError, Parameter, Signature, WireLimit};
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
            limit: None,
        }
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        Ok(Value::string("x".repeat(length(arguments.first()))))
    }
}

/// A function joining two strings of at most 16 encoded bytes together.
struct Join;

impl Function for Join {
    fn name(&self) -> &'static str {
        "join"
    }

    fn signature(&self) -> Signature {
        let parameter = |name| Parameter {
            name,
            ty: Type::String,
            description: "",
            allow_null: false,
            optional: &[],
        };
        Signature {
            parameters: vec![parameter("a"), parameter("b")],
            returns: Type::String,
            summary: "",
            description: "",
            limit: Some(WireLimit {
                bytes: 16,
                why: "sixteen is plenty",
            }),
        }
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        let text = |i: usize| arguments[i].as_str().unwrap_or_default().to_owned();
        Ok(Value::string(text(0) + &text(1)))
    }
}

fn server() -> ProviderServer {
    ProviderServer::new(&Offers {
        data_sources: vec![Arc::new(Sized)],
        functions: vec![Arc::new(Repeat), Arc::new(Join)],
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
/// takes most of it, naming Terraform's 64 MiB limit but no size (a result
/// may hold credentials, whose length a size would tell); a large one
/// within it is returned whole.
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
        "`out` takes the most of it".to_owned(),
    ] {
        assert!(
            diagnostic.detail.contains(&figure),
            "{figure}: {diagnostic:?}"
        );
    }
    assert!(
        !diagnostic
            .detail
            .contains(&(MAX_MESSAGE_SIZE + 5).to_string()),
        "{diagnostic:?}"
    );
    let fits = read(&server, 4 * 1024 * 1024).await;
    assert!(fits.diagnostics.is_empty(), "{:?}", fits.diagnostics);
    assert!(fits
        .state
        .is_some_and(|s| s.msgpack.len() > 4 * 1024 * 1024));
}

/// A function result beyond what one message holds is an error on the
/// argument that made it, naming the limit but not the result's size.
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
            "The result would take more than the {MAX_VALUE_SIZE} bytes (63 MiB) a response may hold"
        )),
        "{error:?}"
    );
    assert!(error.text.contains("64 MiB"), "{error:?}");
    assert!(
        !error.text.contains(&(MAX_MESSAGE_SIZE + 5).to_string()),
        "{error:?}"
    );
}

/// `join` called with `a` and `b` as its arguments' wire forms.
async fn join(a: Vec<u8>, b: Vec<u8>) -> proto::call_function::Response {
    let argument = |msgpack| proto::DynamicValue {
        msgpack,
        json: Vec::new(),
    };
    server()
        .call_function(Request::new(proto::call_function::Request {
            name: "join".into(),
            arguments: vec![argument(a), argument(b)],
        }))
        .await
        .unwrap()
        .into_inner()
}

/// Arguments beyond their function's limit together are refused before
/// they are decoded: an error on the largest naming the limit and why, even
/// when they would not decode; arguments at the limit are read. The error
/// names no size, so it is the same whatever the arguments take beyond the
/// limit (an argument may hold a password, whose length a size would tell).
#[tokio::test]
async fn arguments_beyond_the_limit_are_refused_unread() {
    let string = |n: usize| msgpack::encode(&Value::string("x".repeat(n)), &Type::String).unwrap();
    let read = join(string(14), string(0)).await;
    assert!(read.error.is_none(), "{:?}", read.error);
    assert!(read.result.is_some());

    // 0xc1 is the one byte MessagePack never uses: decoding it would fail.
    for (a, b, blamed) in [
        (string(15), string(0), 0),
        (string(21), string(0), 0),
        (string(0), string(15), 1),
        (string(3), string(19), 1),
        (vec![0xc1; 16], string(0), 0),
        (vec![0xc1], vec![0xc1; 20], 1),
    ] {
        let response = join(a, b).await;
        assert!(response.result.is_none());
        let error = response.error.expect("an error");
        assert_eq!(error.function_argument, Some(blamed), "{error:?}");
        assert_eq!(
            error.text,
            "the arguments take more than the 16 bytes this function takes in the wire format, this one the most: sixteen is plenty. They were refused before they were read; give a smaller input",
        );
    }
}
