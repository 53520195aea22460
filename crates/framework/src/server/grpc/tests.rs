//! The gRPC layer's guarantees: an incomplete import and a panic are
//! diagnostics, the private state reaches Terraform as the resource left it,
//! and every RPC runs in a span named as Terraform names it.

use std::sync::{Arc, Mutex};

use super::*;
use crate::data_source::DataSource;
use crate::diagnostics::Diagnostics;
use crate::ephemeral_resource::EphemeralResource;
use crate::function::{Function, FunctionError};
use crate::identity::ImportTarget;
use crate::resource::{Carried, Change, Resource};
use crate::schema::{Attribute, Schema};
use crate::value::{msgpack, Type, Value};
use proto::provider_server::Provider as _;

/// A resource whose import leaves an attribute unknown.
pub(super) struct HalfImported;

impl Resource for HalfImported {
    fn type_name(&self) -> &'static str {
        "test_half"
    }

    fn schema(&self) -> Schema {
        Schema::new("", vec![Attribute::computed("id", Type::String, "")])
    }

    fn apply(
        &self,
        _change: Change<'_>,
        planned: &Value,
        _diags: &mut Diagnostics,
    ) -> Option<Value> {
        Some(planned.clone())
    }

    fn import(
        &self,
        _target: ImportTarget<'_>,
        _carried: &mut Carried,
        _diags: &mut Diagnostics,
    ) -> Option<Value> {
        Some(Value::object([("id".to_owned(), Value::unknown())]))
    }
}

/// A provider without configuration that offers what it holds.
#[derive(Default)]
pub(super) struct Offers {
    pub resources: Vec<Arc<dyn Resource>>,
    pub data_sources: Vec<Arc<dyn DataSource>>,
    pub ephemeral_resources: Vec<Arc<dyn EphemeralResource>>,
    pub functions: Vec<Arc<dyn Function>>,
}

impl Provider for Offers {
    fn schema(&self) -> Schema {
        Schema::new("", Vec::new())
    }

    fn resources(&self) -> Vec<Arc<dyn Resource>> {
        self.resources.clone()
    }

    fn data_sources(&self) -> Vec<Arc<dyn DataSource>> {
        self.data_sources.clone()
    }

    fn ephemeral_resources(&self) -> Vec<Arc<dyn EphemeralResource>> {
        self.ephemeral_resources.clone()
    }

    fn functions(&self) -> Vec<Arc<dyn Function>> {
        self.functions.clone()
    }
}

/// Offers [`HalfImported`].
fn half_imported() -> Offers {
    Offers {
        resources: vec![Arc::new(HalfImported)],
        ..Offers::default()
    }
}

/// An import that yields unknown values is an error, never an empty
/// result Terraform would read as "nothing to import".
#[tokio::test]
async fn import_of_an_incomplete_object_is_a_diagnostic() {
    let server = ProviderServer::new(&half_imported());
    let response = server
        .import_resource_state(Request::new(proto::import_resource_state::Request {
            type_name: "test_half".into(),
            id: "x".into(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(response.imported_resources.is_empty());
    assert_eq!(response.diagnostics.len(), 1, "{:?}", response.diagnostics);
    assert_eq!(
        response.diagnostics[0].summary,
        "Import produced an incomplete state"
    );
}

/// A resource that marks its private state when `input` is `"mark"`: the
/// plan adds `planned`, the apply `applied`; otherwise it leaves it alone.
struct Marks;

impl Resource for Marks {
    fn type_name(&self) -> &'static str {
        "test_marks"
    }

    fn schema(&self) -> Schema {
        Schema::new("", vec![Attribute::required("input", Type::String, "")])
    }

    fn modify_plan(&self, change: Change<'_>, _planned: &mut Value, _diags: &mut Diagnostics) {
        if change.config.get_attr("input") == Some(&Value::string("mark")) {
            change.private.set("planned", "yes".to_owned());
        }
    }

    fn apply(
        &self,
        change: Change<'_>,
        planned: &Value,
        _diags: &mut Diagnostics,
    ) -> Option<Value> {
        if change.config.get_attr("input") == Some(&Value::string("mark")) {
            change.private.set("applied", "yes".to_owned());
        }
        Some(planned.clone())
    }
}

/// The private state Terraform stored goes through plan and apply as it
/// was unless the resource changes it; what the resource sets in either is
/// what Terraform gets back.
#[tokio::test]
async fn private_state_passes_through_plan_and_apply_unless_the_resource_changes_it() {
    let server = ProviderServer::new(&Offers {
        resources: vec![Arc::new(Marks)],
        ..Offers::default()
    });
    let ty = Type::object([("input", Type::String)]);
    let stored = br#"{"k":"v"}"#.to_vec();
    for (input, planned_private, applied_private) in [
        ("keep", &br#"{"k":"v"}"#[..], &br#"{"k":"v"}"#[..]),
        (
            "mark",
            br#"{"k":"v","planned":"yes"}"#,
            br#"{"applied":"yes","k":"v","planned":"yes"}"#,
        ),
    ] {
        let value = Value::object([("input".to_owned(), Value::string(input))]);
        let wire = Some(proto::DynamicValue {
            msgpack: msgpack::encode(&value, &ty).unwrap(),
            json: Vec::new(),
        });
        let plan = server
            .plan_resource_change(Request::new(proto::plan_resource_change::Request {
                type_name: "test_marks".into(),
                prior_state: wire.clone(),
                proposed_new_state: wire.clone(),
                config: wire.clone(),
                prior_private: stored.clone(),
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(plan.diagnostics.is_empty(), "{:?}", plan.diagnostics);
        assert_eq!(plan.planned_private, planned_private, "{input}");
        let apply = server
            .apply_resource_change(Request::new(proto::apply_resource_change::Request {
                type_name: "test_marks".into(),
                prior_state: wire.clone(),
                planned_state: plan.planned_state,
                config: wire,
                planned_private: plan.planned_private,
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(apply.diagnostics.is_empty(), "{:?}", apply.diagnostics);
        assert_eq!(apply.private, applied_private, "{input}");
    }
}

/// A function whose signature panics.
struct Broken;

impl Function for Broken {
    fn name(&self) -> &'static str {
        "broken"
    }

    fn signature(&self) -> crate::function::Signature {
        panic!("broken signature")
    }

    fn call(&self, _arguments: &[Value]) -> Result<Value, FunctionError> {
        Ok(Value::null())
    }
}

/// A panic while serving GetFunctions is an error diagnostic, not a
/// crashed handler.
#[tokio::test]
async fn a_panic_in_get_functions_is_a_diagnostic() {
    let response = ProviderServer::new(&Offers {
        functions: vec![Arc::new(Broken)],
        ..Offers::default()
    })
    .get_functions(Request::new(proto::get_functions::Request {}))
    .await
    .unwrap()
    .into_inner();
    assert!(response.functions.is_empty());
    assert_eq!(response.diagnostics.len(), 1, "{:?}", response.diagnostics);
    assert_eq!(response.diagnostics[0].summary, "Provider internal error");
}

/// Records the `tf_rpc` field of every span opened.
#[derive(Clone, Default)]
struct SpanNames(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for SpanNames {
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        _id: &tracing::span::Id,
        _ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        struct Rpc(Option<String>);
        impl tracing::field::Visit for Rpc {
            fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                if field.name() == "tf_rpc" {
                    self.0 = Some(value.to_owned());
                }
            }
        }
        let mut rpc = Rpc(None);
        attrs.record(&mut rpc);
        if let Some(rpc) = rpc.0 {
            self.0.lock().unwrap().push(rpc);
        }
    }
}

/// Every RPC of the service runs in an `rpc` span named as Terraform
/// names the RPC.
#[test]
fn every_rpc_runs_in_a_span() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let names = SpanNames::default();
    let subscriber = tracing_subscriber::registry().with(names.clone());
    let server = ProviderServer::new(&half_imported());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    tracing::subscriber::with_default(subscriber, || {
        runtime.block_on(async {
            let s = &server;
            s.get_metadata(Request::new(Default::default()))
                .await
                .unwrap();
            s.get_provider_schema(Request::new(Default::default()))
                .await
                .unwrap();
            proto::provider_server::Provider::validate_provider_config(
                s,
                Request::new(Default::default()),
            )
            .await
            .unwrap();
            s.validate_resource_config(Request::new(Default::default()))
                .await
                .unwrap();
            s.validate_data_resource_config(Request::new(Default::default()))
                .await
                .unwrap();
            s.upgrade_resource_state(Request::new(Default::default()))
                .await
                .unwrap();
            s.configure_provider(Request::new(Default::default()))
                .await
                .unwrap();
            s.read_resource(Request::new(Default::default()))
                .await
                .unwrap();
            s.plan_resource_change(Request::new(Default::default()))
                .await
                .unwrap();
            s.apply_resource_change(Request::new(Default::default()))
                .await
                .unwrap();
            s.import_resource_state(Request::new(Default::default()))
                .await
                .unwrap();
            s.read_data_source(Request::new(Default::default()))
                .await
                .unwrap();
            s.validate_ephemeral_resource_config(Request::new(Default::default()))
                .await
                .unwrap();
            s.open_ephemeral_resource(Request::new(Default::default()))
                .await
                .unwrap();
            s.renew_ephemeral_resource(Request::new(Default::default()))
                .await
                .unwrap();
            s.close_ephemeral_resource(Request::new(Default::default()))
                .await
                .unwrap();
            s.get_functions(Request::new(Default::default()))
                .await
                .unwrap();
            s.call_function(Request::new(Default::default()))
                .await
                .unwrap();
            s.stop_provider(Request::new(Default::default()))
                .await
                .unwrap();
        });
    });
    assert_eq!(
        *names.0.lock().unwrap(),
        [
            "GetMetadata",
            "GetProviderSchema",
            "ValidateProviderConfig",
            "ValidateResourceConfig",
            "ValidateDataResourceConfig",
            "UpgradeResourceState",
            "ConfigureProvider",
            "ReadResource",
            "PlanResourceChange",
            "ApplyResourceChange",
            "ImportResourceState",
            "ReadDataSource",
            "ValidateEphemeralResourceConfig",
            "OpenEphemeralResource",
            "RenewEphemeralResource",
            "CloseEphemeralResource",
            "GetFunctions",
            "CallFunction",
            "StopProvider",
        ]
    );
}
