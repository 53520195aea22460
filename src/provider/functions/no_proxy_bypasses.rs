//! `provider::clusterproxy::no_proxy_bypasses(no_proxy, url, client)`.

use std::sync::LazyLock;

use crate::domain::no_proxy::{Destination, Dialect};
use crate::domain::redact::quoted;
use crate::framework::function::{Function, FunctionError, Parameter, Signature};
use crate::framework::value::{Type, Value};

#[derive(Debug, Clone, Copy)]
pub struct NoProxyBypasses;

/// The description of `client`, from the client registry.
static CLIENT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "The client: {} (false also when the client rejects the whole NO_PROXY value).",
        Dialect::listing(Dialect::all(), " or ", |_| None)
    )
});

impl Function for NoProxyBypasses {
    fn name(&self) -> &'static str {
        "no_proxy_bypasses"
    }

    fn signature(&self) -> Signature {
        Signature {
            parameters: vec![
                Parameter {
                    name: "no_proxy",
                    ty: Type::String,
                    description: "The NO_PROXY value as the client reads it (for `java`, the `http.nonProxyHosts` value).",
                    allow_null: false,
                    optional: &[],
                },
                Parameter {
                    name: "url",
                    ty: Type::String,
                    description: "The destination: a URL, `host`, `host:port` or IP address (`https` when no scheme is given).",
                    allow_null: false,
                    optional: &[],
                },
                Parameter {
                    name: "client",
                    ty: Type::String,
                    description: CLIENT.as_str(),
                    allow_null: false,
                    optional: &[],
                },
            ],
            returns: Type::Bool,
            summary: "Would a client bypass the proxy",
            description: "Tells whether the client would connect to the destination directly (true) or through the proxy (false) with this NO_PROXY value, following the client's own rules (checked against the real clients in this provider's tests). Host names are not resolved: for Ruby, which also matches a name's resolved address against address entries, only the name rules apply.",
            limit: None,
        }
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        let text = |i: usize| arguments.get(i).and_then(Value::as_str).unwrap_or_default();
        let destination =
            Destination::parse(text(1)).map_err(|why| FunctionError::argument(1, why))?;
        let client = Dialect::from_name(text(2)).ok_or_else(|| {
            FunctionError::argument(
                2,
                format!(
                    "{} is not a client; use one of {}.",
                    quoted(text(2)),
                    Dialect::names().join(", ")
                ),
            )
        })?;
        Ok(Value::bool(client.bypasses(text(0), &destination)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(no_proxy: &str, url: &str, client: &str) -> Result<Value, FunctionError> {
        NoProxyBypasses.call(&[
            Value::string(no_proxy),
            Value::string(url),
            Value::string(client),
        ])
    }

    #[test]
    fn decides_per_client() {
        assert_eq!(
            call("10.0.0.0/8", "http://10.1.2.3/", "go").unwrap(),
            Value::bool(true)
        );
        assert_eq!(
            call("10.0.0.0/8", "http://10.1.2.3/", "python").unwrap(),
            Value::bool(false)
        );
        assert_eq!(call("x", "ftp://x", "go").unwrap_err().argument, Some(1));
        assert_eq!(call("x", "x", "perl").unwrap_err().argument, Some(2));
    }
}
