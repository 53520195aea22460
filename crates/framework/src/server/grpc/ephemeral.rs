//! The ephemeral resource RPCs (protocol 6.7, Terraform 1.10 and later):
//! ValidateEphemeralResourceConfig, OpenEphemeralResource,
//! RenewEphemeralResource, CloseEphemeralResource, and the ephemeral
//! resources' part of GetMetadata and GetProviderSchema. Each converts its
//! request, runs under [`guard::run`] (logged with `tf_resource_type`, as
//! terraform-plugin-go logs ephemeral resource types) and converts the
//! response, as the other RPCs of [`ProviderServer`] do.

use std::collections::HashMap;
use std::time::SystemTime;

use super::rpc::{Object, Ran};
use super::{guard, ProviderServer, Subject};
use crate::ephemeral_resource::open_checked;
use crate::proto::{self, schema_to_proto};
use crate::registry::Registry;

/// GetMetadata's ephemeral resource types.
pub fn metadata(registry: &Registry) -> Vec<proto::get_metadata::EphemeralMetadata> {
    registry
        .ephemeral_resources()
        .keys()
        .map(|name| proto::get_metadata::EphemeralMetadata {
            type_name: name.to_string(),
        })
        .collect()
}

/// GetProviderSchema's ephemeral resource schemas, by type name.
pub fn schemas(registry: &Registry) -> HashMap<String, proto::Schema> {
    registry
        .ephemeral_resources()
        .iter()
        .map(|(name, r)| (name.to_string(), schema_to_proto(&r.schema)))
        .collect()
}

/// A renew time in the wire form.
fn timestamp(at: Option<SystemTime>) -> Option<prost_types::Timestamp> {
    at.map(prost_types::Timestamp::from)
}

impl ProviderServer {
    /// ValidateEphemeralResourceConfig: the schema's checks, then (when they
    /// pass) the resource's.
    pub(super) fn validate_ephemeral(
        &self,
        request: proto::validate_ephemeral_resource_config::Request,
    ) -> proto::validate_ephemeral_resource_config::Response {
        let name = &request.type_name;
        let diagnostics = Ran::check(
            "ValidateEphemeralResourceConfig",
            Subject::Resource(name),
            &request,
            |diags| {
                let config =
                    self.config(Object::Ephemeral(name), request.config.as_ref(), diags)?;
                let resource = self.server.registry().ephemeral_resource(name, diags)?;
                resource.schema.validate(&config, diags);
                if !diags.has_errors() {
                    resource.implementation.validate(&config, diags);
                }
                Some(())
            },
        );
        proto::validate_ephemeral_resource_config::Response { diagnostics }
    }

    /// OpenEphemeralResource: see [`open_checked`]. An open may wait on the
    /// network (up to the resource's own bounds), so it always runs on a
    /// thread of its own, as a large request does, never inline on the
    /// runtime's worker.
    pub(super) fn open_ephemeral(
        &self,
        request: proto::open_ephemeral_resource::Request,
    ) -> proto::open_ephemeral_resource::Response {
        let name = &request.type_name;
        let ran: Ran<_> = guard::run(
            "OpenEphemeralResource",
            Subject::Resource(name),
            usize::MAX,
            |diags| {
                let object = Object::Ephemeral(name);
                let config = self.config(object, request.config.as_ref(), diags)?;
                let resource = self.server.registry().ephemeral_resource(name, diags)?;
                let opened = open_checked(
                    resource.implementation.as_ref(),
                    &resource.schema,
                    config,
                    diags,
                )?;
                let result = self.encode(object, &opened.result, diags)?;
                Some((result, opened.renew_at, opened.private))
            },
        )
        .into();
        let (opened, diagnostics) = ran.succeeded();
        match opened {
            Some((result, renew_at, private)) => proto::open_ephemeral_resource::Response {
                diagnostics,
                renew_at: timestamp(renew_at),
                result: Some(result),
                private,
            },
            None => proto::open_ephemeral_resource::Response {
                diagnostics,
                ..Default::default()
            },
        }
    }

    /// RenewEphemeralResource: the resource's renew with the private bytes
    /// of the open (or last renew).
    pub(super) fn renew_ephemeral(
        &self,
        request: proto::renew_ephemeral_resource::Request,
    ) -> proto::renew_ephemeral_resource::Response {
        let name = &request.type_name;
        let ran = Ran::run(
            "RenewEphemeralResource",
            Subject::Resource(name),
            &request,
            |diags| {
                let resource = self.server.registry().ephemeral_resource(name, diags)?;
                Some(
                    resource
                        .implementation
                        .renew(request.private.as_deref(), diags),
                )
            },
        );
        let (renewed, diagnostics) = ran.regardless();
        let renewed = renewed.unwrap_or_default();
        proto::renew_ephemeral_resource::Response {
            diagnostics,
            renew_at: timestamp(renewed.renew_at),
            private: renewed.private,
        }
    }

    /// CloseEphemeralResource: the resource's close with the private bytes
    /// of the open (or last renew).
    pub(super) fn close_ephemeral(
        &self,
        request: proto::close_ephemeral_resource::Request,
    ) -> proto::close_ephemeral_resource::Response {
        let name = &request.type_name;
        let diagnostics = Ran::check(
            "CloseEphemeralResource",
            Subject::Resource(name),
            &request,
            |diags| {
                let resource = self.server.registry().ephemeral_resource(name, diags)?;
                resource
                    .implementation
                    .close(request.private.as_deref(), diags);
                Some(())
            },
        );
        proto::close_ephemeral_resource::Response { diagnostics }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use super::*;
    use crate::diagnostics::{AttributePath, Diagnostic, Diagnostics};
    use crate::ephemeral_resource::{EphemeralResource, Opened, Renewed};
    use crate::schema::{Attribute, Schema};
    use crate::server::grpc::tests::Offers;
    use crate::value::{msgpack, Type, Value};
    use proto::provider_server::Provider as _;
    use tonic::Request;

    /// Echoes `input` upper-cased into `out`, renews one second after the
    /// epoch, and records every renew and close it is asked for.
    #[derive(Default)]
    struct Echo {
        calls: Mutex<Vec<String>>,
    }

    impl EphemeralResource for Echo {
        fn type_name(&self) -> &'static str {
            "test_echo"
        }

        fn schema(&self) -> Schema {
            Schema::new(
                "echo",
                vec![
                    Attribute::required("input", Type::String, "input"),
                    Attribute::computed("out", Type::String, "out"),
                ],
            )
        }

        fn validate(&self, config: &Value, diags: &mut Diagnostics) {
            if config.get_attr("input") == Some(&Value::string("bad")) {
                diags.push(
                    Diagnostic::error("Bad input", "refused").at(AttributePath::attribute("input")),
                );
            }
        }

        fn open(&self, config: &Value, diags: &mut Diagnostics) -> Option<Opened> {
            let input = config.get_attr("input")?.as_str()?;
            if input == "fail" {
                diags.push(Diagnostic::error("Open failed", "as asked"));
                return None;
            }
            Some(Opened {
                result: Value::object([("out".to_owned(), Value::string(input.to_uppercase()))]),
                renew_at: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(1)),
                private: Some(input.as_bytes().to_vec()),
            })
        }

        fn renew(&self, private: Option<&[u8]>, _diags: &mut Diagnostics) -> Renewed {
            self.calls
                .lock()
                .unwrap()
                .push(format!("renew {:?}", private));
            Renewed {
                renew_at: None,
                private: Some(b"renewed".to_vec()),
            }
        }

        fn close(&self, private: Option<&[u8]>, _diags: &mut Diagnostics) {
            self.calls
                .lock()
                .unwrap()
                .push(format!("close {:?}", private));
        }
    }

    fn echo_type() -> Type {
        Type::object([("input", Type::String), ("out", Type::String)])
    }

    fn config(input: Value) -> Option<proto::DynamicValue> {
        let value = Value::object([("input".to_owned(), input), ("out".to_owned(), Value::Null)]);
        Some(proto::DynamicValue {
            msgpack: msgpack::encode(&value, &echo_type()).unwrap(),
            json: Vec::new(),
        })
    }

    fn server() -> (ProviderServer, Arc<Echo>) {
        let echo = Arc::new(Echo::default());
        let offers = Offers {
            ephemeral_resources: vec![echo.clone()],
            ..Offers::default()
        };
        (ProviderServer::new(&offers), echo)
    }

    fn summaries(diagnostics: &[proto::Diagnostic]) -> Vec<&str> {
        diagnostics.iter().map(|d| d.summary.as_str()).collect()
    }

    /// GetMetadata and GetProviderSchema list the ephemeral resource types
    /// in their own fields (6 and 8), not among the resources.
    #[tokio::test]
    async fn metadata_and_schema_list_ephemeral_resources() {
        let (server, _) = server();
        let metadata = server
            .get_metadata(Request::new(Default::default()))
            .await
            .unwrap()
            .into_inner();
        let names: Vec<&str> = metadata
            .ephemeral_resources
            .iter()
            .map(|e| e.type_name.as_str())
            .collect();
        assert_eq!(names, ["test_echo"]);
        assert!(metadata.resources.is_empty());
        let schema = server
            .get_provider_schema(Request::new(Default::default()))
            .await
            .unwrap()
            .into_inner();
        let echo = &schema.ephemeral_resource_schemas["test_echo"];
        let attributes: Vec<(&str, bool)> = echo
            .block
            .as_ref()
            .unwrap()
            .attributes
            .iter()
            .map(|a| (a.name.as_str(), a.computed))
            .collect();
        assert_eq!(attributes, [("input", false), ("out", true)]);
        assert!(schema.resource_schemas.is_empty());
        assert!(schema.data_source_schemas.is_empty());
    }

    /// Validation runs the schema's checks (a missing required input),
    /// then the resource's, each error on its attribute; an unknown type
    /// is an error.
    #[tokio::test]
    async fn validate_checks_the_schema_then_the_resource() {
        let (server, _) = server();
        let validate = |type_name: &str, input: Value| {
            server.validate_ephemeral(proto::validate_ephemeral_resource_config::Request {
                type_name: type_name.into(),
                config: config(input),
            })
        };
        assert!(validate("test_echo", Value::string("ok"))
            .diagnostics
            .is_empty());
        assert!(validate("test_echo", Value::unknown())
            .diagnostics
            .is_empty());
        let missing = validate("test_echo", Value::Null).diagnostics;
        assert_eq!(missing.len(), 1, "{missing:?}");
        let bad = validate("test_echo", Value::string("bad")).diagnostics;
        assert_eq!(summaries(&bad), ["Bad input"]);
        assert!(bad[0].attribute.is_some());
        let unknown = validate("test_other", Value::string("ok")).diagnostics;
        assert_eq!(summaries(&unknown), ["Unknown ephemeral resource type"]);
    }

    /// Open returns the configuration with the computed attributes, the
    /// renew time and the private bytes; a failed open returns no result.
    #[tokio::test]
    async fn open_returns_result_renew_time_and_private_bytes() {
        let (server, _) = server();
        let opened = server
            .open_ephemeral_resource(Request::new(proto::open_ephemeral_resource::Request {
                type_name: "test_echo".into(),
                config: config(Value::string("abc")),
                client_capabilities: None,
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(opened.diagnostics.is_empty(), "{:?}", opened.diagnostics);
        let result = msgpack::decode(&opened.result.unwrap().msgpack, &echo_type()).unwrap();
        assert_eq!(result.get_attr("input"), Some(&Value::string("abc")));
        assert_eq!(result.get_attr("out"), Some(&Value::string("ABC")));
        let renew_at = opened.renew_at.unwrap();
        assert_eq!((renew_at.seconds, renew_at.nanos), (1, 0));
        assert_eq!(opened.private.as_deref(), Some(&b"abc"[..]));

        let failed = server.open_ephemeral(proto::open_ephemeral_resource::Request {
            type_name: "test_echo".into(),
            config: config(Value::string("fail")),
            client_capabilities: None,
        });
        assert_eq!(summaries(&failed.diagnostics), ["Open failed"]);
        assert!(failed.result.is_none() && failed.renew_at.is_none() && failed.private.is_none());

        let missing = server.open_ephemeral(proto::open_ephemeral_resource::Request {
            type_name: "test_echo".into(),
            config: config(Value::Null),
            client_capabilities: None,
        });
        assert!(missing.result.is_none());
        assert_eq!(missing.diagnostics.len(), 1);
    }

    /// Renew and close reach the resource with the private bytes Terraform
    /// hands back; renew returns the new ones.
    #[tokio::test]
    async fn renew_and_close_get_the_private_bytes() {
        let (server, echo) = server();
        let renewed = server
            .renew_ephemeral_resource(Request::new(proto::renew_ephemeral_resource::Request {
                type_name: "test_echo".into(),
                private: Some(b"abc".to_vec()),
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(renewed.diagnostics.is_empty());
        assert_eq!(renewed.private.as_deref(), Some(&b"renewed"[..]));
        assert!(renewed.renew_at.is_none());
        let closed = server
            .close_ephemeral_resource(Request::new(proto::close_ephemeral_resource::Request {
                type_name: "test_echo".into(),
                private: None,
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(closed.diagnostics.is_empty());
        assert_eq!(
            *echo.calls.lock().unwrap(),
            ["renew Some([97, 98, 99])", "close None"]
        );
        let unknown = server.close_ephemeral(proto::close_ephemeral_resource::Request {
            type_name: "test_other".into(),
            private: None,
        });
        assert_eq!(
            summaries(&unknown.diagnostics),
            ["Unknown ephemeral resource type"]
        );
    }
}
