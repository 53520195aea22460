//! The action RPCs (protocol 6.10, Terraform >= 1.14): ValidateActionConfig,
//! PlanAction, the server-streaming InvokeAction, and the actions' part of
//! GetMetadata (`actions` = 9) and GetProviderSchema (`action_schemas` =
//! 11); field numbers of hashicorp/terraform v1.15.5
//! docs/plugin-protocol/tfplugin6.proto.
//!
//! InvokeAction runs the action on a thread of its own, under
//! [`guard::run`] (span, panic guard, cancellation), and sends each
//! progress message as it comes, then one Completed event with the
//! diagnostics: Terraform reads events until Completed
//! (internal/terraform/node_action_trigger_instance_apply.go).

use std::collections::HashMap;
use std::sync::Arc;

use tokio_stream::wrappers::ReceiverStream;

use super::rpc::{Object, Ran};
use super::{guard, EventStream, ProviderServer, Subject};
use crate::action::{invoke_checked, Action};
use crate::diagnostics::Diagnostics;
use crate::proto::{self, diagnostics_to_proto, schema_to_proto};
use crate::registry::Registry;
use crate::schema::Schema;
use crate::value::Type;

/// Events buffered between the invocation and the stream.
const BUFFERED_EVENTS: usize = 8;

/// GetMetadata's action types.
pub fn metadata(registry: &Registry) -> Vec<proto::get_metadata::ActionMetadata> {
    registry
        .actions()
        .keys()
        .map(|name| proto::get_metadata::ActionMetadata {
            type_name: name.to_string(),
        })
        .collect()
}

/// GetProviderSchema's action schemas, by type name.
pub fn schemas(registry: &Registry) -> HashMap<String, proto::ActionSchema> {
    registry
        .actions()
        .iter()
        .map(|(name, a)| {
            let schema = Some(schema_to_proto(&a.schema));
            (name.to_string(), proto::ActionSchema { schema })
        })
        .collect()
}

/// What an invocation needs, owned, for its thread.
struct Invocation {
    implementation: Arc<dyn Action>,
    schema: Schema,
    config_type: Type,
}

/// An event that carries the end of an invocation and its diagnostics.
fn completed(diags: &Diagnostics) -> proto::invoke_action::Event {
    proto::invoke_action::Event {
        r#type: Some(proto::invoke_action::event::Type::Completed(
            proto::invoke_action::event::Completed {
                diagnostics: diagnostics_to_proto(diags),
            },
        )),
    }
}

/// A progress event.
fn progress(message: String) -> proto::invoke_action::Event {
    proto::invoke_action::Event {
        r#type: Some(proto::invoke_action::event::Type::Progress(
            proto::invoke_action::event::Progress { message },
        )),
    }
}

impl ProviderServer {
    /// The schema's checks of an action's configuration, then (when they
    /// pass) the action's own: what ValidateActionConfig and PlanAction
    /// both run.
    fn check_action(
        &self,
        name: &str,
        config: Option<&proto::DynamicValue>,
        diags: &mut Diagnostics,
    ) -> Option<()> {
        let config = self.config(Object::Action(name), config, diags)?;
        let action = self.server.registry().action(name, diags)?;
        action.schema.validate(&config, diags);
        if !diags.has_errors() {
            action.implementation.validate(&config, diags);
        }
        Some(())
    }

    /// ValidateActionConfig.
    pub(super) fn validate_action(
        &self,
        request: proto::validate_action_config::Request,
    ) -> proto::validate_action_config::Response {
        let name = &request.type_name;
        let diagnostics = Ran::check(
            "ValidateActionConfig",
            Subject::Resource(name),
            &request,
            |diags| self.check_action(name, request.config.as_ref(), diags),
        );
        proto::validate_action_config::Response { diagnostics }
    }

    /// PlanAction: the checks of ValidateActionConfig on the configuration
    /// as planned (unknown values pass); nothing runs.
    pub(super) fn plan_action(
        &self,
        request: proto::plan_action::Request,
    ) -> proto::plan_action::Response {
        let name = &request.action_type;
        let diagnostics = Ran::check("PlanAction", Subject::Resource(name), &request, |diags| {
            self.check_action(name, request.config.as_ref(), diags)
        });
        proto::plan_action::Response { diagnostics }
    }

    /// What invoking `name` needs.
    fn invocation(&self, name: &str, diags: &mut Diagnostics) -> Option<Invocation> {
        let action = self.server.registry().action(name, diags)?;
        Some(Invocation {
            implementation: action.implementation.clone(),
            schema: action.schema.clone(),
            config_type: action.object_type.clone(),
        })
    }

    /// InvokeAction: the stream of the invocation's progress, ending with
    /// its Completed event.
    pub(super) fn invoke(
        &self,
        request: proto::invoke_action::Request,
    ) -> EventStream<proto::invoke_action::Event> {
        let (sender, receiver) = tokio::sync::mpsc::channel(BUFFERED_EVENTS);
        let mut diags = Diagnostics::new();
        let invocation = self.invocation(&request.action_type, &mut diags);
        std::thread::spawn(move || {
            // A stream Terraform dropped takes no more events; the action
            // still ends as it would.
            let send = |event| {
                let _ = sender.blocking_send(Ok(event));
            };
            let Some(invocation) = invocation else {
                send(completed(&diags));
                return;
            };
            let name = request.action_type.as_str();
            let (_, diags) = guard::run("InvokeAction", Subject::Resource(name), 0, |diags| {
                let config = proto::decode(
                    request.config.as_ref(),
                    &invocation.config_type,
                    "configuration",
                    diags,
                )?;
                invoke_checked(
                    invocation.implementation.as_ref(),
                    &invocation.schema,
                    config,
                    &mut |message| send(progress(message)),
                    diags,
                );
                Some(())
            });
            send(completed(&diags));
        });
        Box::pin(ReceiverStream::new(receiver))
    }
}
