//! The ephemeral resource contract (protocol 6.7, Terraform 1.10 and later):
//! a result computed for one Terraform operation, never stored in a plan or
//! state, optionally renewed and closed.

use std::sync::Mutex;
use std::time::SystemTime;

use super::data_source::{read_checked, DataSource};
use super::diagnostics::Diagnostics;
use super::schema::Schema;
use super::value::Value;

/// What an [`EphemeralResource::open`] returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    /// An object of the computed attributes
    /// ([`model::computed`](super::model::computed)), which the framework
    /// sets on the configuration to make the result.
    pub result: Value,
    /// When Terraform should call [`EphemeralResource::renew`]; `None`:
    /// never.
    pub renew_at: Option<SystemTime>,
    /// Opaque bytes Terraform hands back to renew and close.
    pub private: Option<Vec<u8>>,
}

/// What an [`EphemeralResource::renew`] returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Renewed {
    /// When to renew again; `None`: never.
    pub renew_at: Option<SystemTime>,
    /// The private bytes for the next renew and close.
    pub private: Option<Vec<u8>>,
}

/// An ephemeral resource: opens a result from its configuration, as a data
/// source reads one, but Terraform keeps it only while the operation runs.
///
/// The framework checks the configuration against
/// [`EphemeralResource::schema`] (validators, required attributes), fills
/// defaults, and verifies the result is wholly known before it reaches
/// Terraform, as for data sources ([`read_checked`]).
pub trait EphemeralResource: Send + Sync {
    /// Full type name, e.g. `clusterproxy_proxy_check`.
    fn type_name(&self) -> &'static str;

    /// The configuration arguments and the attributes an open computes; the
    /// server asks once and keeps it.
    fn schema(&self) -> Schema;

    /// Checks a configuration that may still hold unknown values. Only known
    /// values are checked.
    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Opens the resource for a wholly known configuration (defaults already
    /// filled). Returns `None` after adding an error diagnostic.
    fn open(&self, config: &Value, diags: &mut Diagnostics) -> Option<Opened>;

    /// Renews what [`EphemeralResource::open`] opened, given its private
    /// bytes; called only when the open (or last renew) set a `renew_at`.
    /// By default nothing is renewed and no further renew is asked for.
    fn renew(&self, private: Option<&[u8]>, _diags: &mut Diagnostics) -> Renewed {
        Renewed {
            renew_at: None,
            private: private.map(<[u8]>::to_vec),
        }
    }

    /// Releases what [`EphemeralResource::open`] opened, given its private
    /// bytes. By default there is nothing to release.
    fn close(&self, _private: Option<&[u8]>, _diags: &mut Diagnostics) {}
}

/// Opens `resource` for `config` as OpenEphemeralResource does: the
/// schema's and the resource's checks, defaults, the open, and the checks
/// Terraform holds results to, the very ones of a data source read
/// ([`read_checked`]). `schema` is `resource.schema()`, computed once by
/// the caller. Returns the result (the configuration with the computed
/// attributes set) with the renew time and private bytes.
pub fn open_checked(
    resource: &dyn EphemeralResource,
    schema: &Schema,
    config: Value,
    diags: &mut Diagnostics,
) -> Option<Opened> {
    let opening = Opening {
        resource,
        rest: Mutex::new(None),
    };
    let result = read_checked(&opening, schema, config, diags)?;
    let Renewed { renew_at, private } = opening
        .rest
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)?;
    Some(Opened {
        result,
        renew_at,
        private,
    })
}

/// An ephemeral resource seen as the data source whose read is its open,
/// so that an open is checked as a read is; keeps what the open returns
/// besides the result (the renew time and private bytes, as a renew
/// returns them).
struct Opening<'a> {
    resource: &'a dyn EphemeralResource,
    rest: Mutex<Option<Renewed>>,
}

impl DataSource for Opening<'_> {
    fn type_name(&self) -> &'static str {
        self.resource.type_name()
    }

    fn schema(&self) -> Schema {
        self.resource.schema()
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        self.resource.validate(config, diags);
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let opened = self.resource.open(config, diags)?;
        *self
            .rest
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Renewed {
            renew_at: opened.renew_at,
            private: opened.private,
        });
        Some(opened.result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Diagnostic;
    use crate::schema::Attribute;
    use crate::value::Type;

    /// Opens with the attributes it was made with; refuses `input = "no"`.
    struct Returns(Vec<(&'static str, Value)>);

    impl EphemeralResource for Returns {
        fn type_name(&self) -> &'static str {
            "test_returns"
        }

        fn schema(&self) -> Schema {
            Schema::new(
                "test",
                vec![
                    Attribute::required("input", Type::String, "input"),
                    Attribute::with_default("mode", Type::String, Value::string("a"), "mode"),
                    Attribute::computed("out", Type::String, "out"),
                ],
            )
        }

        fn validate(&self, config: &Value, diags: &mut Diagnostics) {
            if config.get_attr("input") == Some(&Value::string("no")) {
                diags.push(Diagnostic::error("refused", "no"));
            }
        }

        fn open(&self, _config: &Value, _diags: &mut Diagnostics) -> Option<Opened> {
            Some(Opened {
                result: Value::object(self.0.iter().map(|(k, v)| ((*k).to_owned(), v.clone()))),
                renew_at: Some(SystemTime::UNIX_EPOCH),
                private: Some(b"p".to_vec()),
            })
        }
    }

    fn open(input: &str, returns: Vec<(&'static str, Value)>) -> (Option<Opened>, Diagnostics) {
        let resource = Returns(returns);
        let config = Value::object([
            ("input".to_owned(), Value::string(input)),
            ("mode".to_owned(), Value::Null),
            ("out".to_owned(), Value::Null),
        ]);
        let mut diags = Diagnostics::new();
        let opened = open_checked(&resource, &resource.schema(), config, &mut diags);
        (opened, diags)
    }

    #[test]
    fn the_result_is_the_configuration_with_the_computed_attributes() {
        let (opened, diags) = open("x", vec![("out", Value::string("y"))]);
        assert!(!diags.has_errors(), "{diags:?}");
        let opened = opened.unwrap();
        assert_eq!(opened.result.get_attr("input"), Some(&Value::string("x")));
        assert_eq!(opened.result.get_attr("mode"), Some(&Value::string("a")));
        assert_eq!(opened.result.get_attr("out"), Some(&Value::string("y")));
        assert_eq!(opened.renew_at, Some(SystemTime::UNIX_EPOCH));
        assert_eq!(opened.private.as_deref(), Some(&b"p"[..]));
    }

    #[test]
    fn an_open_is_checked_as_a_read_is() {
        let (opened, diags) = open("x", vec![("input", Value::string("changed"))]);
        assert!(opened.is_none());
        assert!(diags.has_errors());
        let (opened, diags) = open("x", vec![("out", Value::unknown())]);
        assert!(opened.is_none());
        assert!(diags.has_errors());
        let (opened, diags) = open("no", vec![("out", Value::string("y"))]);
        assert!(opened.is_none());
        assert_eq!(diags.iter().next().unwrap().summary, "refused");
    }

    #[test]
    fn by_default_a_renew_keeps_the_private_bytes_and_asks_for_no_other() {
        let renewed = Returns(Vec::new()).renew(Some(b"p"), &mut Diagnostics::new());
        assert_eq!(
            renewed,
            Renewed {
                renew_at: None,
                private: Some(b"p".to_vec())
            }
        );
    }
}
