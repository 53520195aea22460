//! The list resource RPCs (protocol 6.10, Terraform >= 1.14):
//! ValidateListResourceConfig, the server-streaming ListResource, and the
//! list resources' part of GetMetadata (`list_resources` = 7) and
//! GetProviderSchema (`list_resource_schemas` = 9); field numbers of
//! hashicorp/terraform v1.15.5 docs/plugin-protocol/tfplugin6.proto
//! (ListResource.Request: type_name = 1, config = 2,
//! include_resource_object = 3, limit = 4; ListResource.Event: identity = 1,
//! display_name = 2, resource_object = 3, diagnostic = 4).
//!
//! ListResource runs the listing on a thread of its own, under
//! [`guard::run`] (span, panic guard, cancellation), and sends each event
//! as it comes through a small bounded channel: the stream holds a few
//! events at most, whatever the number of results, and a listing whose
//! stream Terraform dropped (it read `limit` results) stops at once: its
//! cancellation flag watches the stream ([`cancel::Flag::watching`]). A
//! warning that travels with a result (more results than the limit) goes in
//! that result's event, which Terraform reads.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use clusterproxy_cancel as cancel;
use tokio_stream::wrappers::ReceiverStream;

use super::rpc::Ran;
use super::{guard, EventStream, ProviderServer, Subject};
use crate::diagnostics::{AttributePath, Diagnostics, PathStep};
use crate::list_resource::{list_checked, Event, ListResource};
use crate::proto::{self, diagnostics_to_proto, schema_to_proto};
use crate::registry::Registry;
use crate::schema::Schema;
use crate::value::Type;

/// The block of a `list` block that holds the list resource's arguments.
const CONFIG_BLOCK: &str = "config";

/// Events buffered between the listing and the stream.
const BUFFERED_EVENTS: usize = 8;

/// GetMetadata's list resource types.
pub fn metadata(registry: &Registry) -> Vec<proto::get_metadata::ListResourceMetadata> {
    registry
        .list_resources()
        .keys()
        .map(|name| proto::get_metadata::ListResourceMetadata {
            type_name: name.to_string(),
        })
        .collect()
}

/// GetProviderSchema's list resource schemas (of the `config` block), by
/// type name.
pub fn schemas(registry: &Registry) -> HashMap<String, proto::Schema> {
    registry
        .list_resources()
        .iter()
        .map(|(name, l)| (name.to_string(), schema_to_proto(&l.schema)))
        .collect()
}

/// What a listing needs, owned, for its thread.
struct Listing {
    implementation: Arc<dyn ListResource>,
    schema: Schema,
    config_type: Type,
    identity_type: Type,
    object_type: Type,
}

impl ProviderServer {
    /// ValidateListResourceConfig: the schema's checks, then (when they
    /// pass) the list resource's.
    pub(super) fn validate_list(
        &self,
        request: proto::validate_list_resource_config::Request,
    ) -> proto::validate_list_resource_config::Response {
        let name = &request.type_name;
        let ran: Ran<()> = Ran::run(
            "ValidateListResourceConfig",
            Subject::Resource(name),
            &request,
            |diags| {
                let list = self.server.registry().list_resource(name, diags)?;
                let config = proto::decode(
                    request.config.as_ref(),
                    &list.object_type,
                    "configuration",
                    diags,
                )?;
                list.schema.validate(&config, diags);
                if !diags.has_errors() {
                    list.implementation.validate(&config, diags);
                }
                Some(())
            },
        );
        proto::validate_list_resource_config::Response {
            diagnostics: in_config_block(&ran.diags),
        }
    }

    /// What listing `name` needs: the list resource, and the types of its
    /// configuration, of the managed resource's identities and objects.
    fn listing(&self, name: &str, diags: &mut Diagnostics) -> Option<Listing> {
        let registry = self.server.registry();
        let list = registry.list_resource(name, diags)?;
        let resource = registry.resource(name, diags)?;
        let identity = registry.identity(name, diags)?;
        Some(Listing {
            implementation: list.implementation.clone(),
            schema: list.schema.clone(),
            config_type: list.object_type.clone(),
            identity_type: identity.object_type.clone(),
            object_type: resource.object_type.clone(),
        })
    }

    /// ListResource: the stream of events of the listing.
    pub(super) fn list(
        &self,
        request: proto::list_resource::Request,
    ) -> EventStream<proto::list_resource::Event> {
        let (sender, receiver) = tokio::sync::mpsc::channel(BUFFERED_EVENTS);
        let mut diags = Diagnostics::new();
        let listing = self.listing(&request.type_name, &mut diags);
        // In flight from now, not from when the thread starts: a
        // StopProvider in between reaches this listing too.
        let in_flight = guard::InFlight::register();
        std::thread::spawn(move || {
            let send = |event: proto::list_resource::Event| {
                sender
                    .blocking_send(Ok(event))
                    .map_err(|_| ())
                    .map_or(ControlFlow::Break(()), ControlFlow::Continue)
            };
            let Some(listing) = listing else {
                let _ = send(diagnostics_event(&diags));
                return;
            };
            let name = request.type_name.as_str();
            // A stream its client dropped cancels the listing at once, not
            // at its next result (a walk may find none for long).
            let dropped = {
                let sender = sender.clone();
                cancel::Flag::watching(move || sender.is_closed())
            };
            let (_, diags) = guard::run_registered(
                "ListResource",
                Subject::Resource(name),
                0,
                in_flight,
                |diags| {
                    let config = proto::decode(
                        request.config.as_ref(),
                        &listing.config_type,
                        "configuration",
                        diags,
                    )?;
                    cancel::scope(&dropped, || {
                        list_checked(
                            listing.implementation.as_ref(),
                            &listing.schema,
                            &config,
                            request.include_resource_object,
                            request.limit,
                            &mut |event| send(to_proto(&listing, event)),
                        )
                    });
                    Some(())
                },
            );
            // What the guard reported (a panic, a cancellation).
            if !diags.is_empty() {
                let _ = send(diagnostics_event(&diags));
            }
        });
        Box::pin(ReceiverStream::new(receiver))
    }
}

/// An event that carries only diagnostics.
fn diagnostics_event(diags: &Diagnostics) -> proto::list_resource::Event {
    proto::list_resource::Event {
        diagnostic: in_config_block(diags),
        ..Default::default()
    }
}

/// Diagnostics in the wire form, their attribute paths under the `config`
/// block: Terraform places them in the whole `list` block
/// (internal/terraform/node_resource_plan_instance_query.go, `InConfigBody`
/// of the list block's body), whose `config` block holds the attributes of
/// the list resource's schema.
fn in_config_block(diags: &Diagnostics) -> Vec<proto::Diagnostic> {
    let mut moved = Diagnostics::new();
    for diagnostic in diags.iter() {
        let mut diagnostic = diagnostic.clone();
        diagnostic.path = diagnostic.path.map(|path| {
            path.steps().iter().fold(
                AttributePath::attribute(CONFIG_BLOCK),
                |at, step| match step {
                    PathStep::Attribute(name) => at.attr(name.clone()),
                    PathStep::Index(i) => at.index(usize::try_from(*i).unwrap_or(usize::MAX)),
                    PathStep::Key(key) => at.key(key.clone()),
                },
            )
        });
        moved.push(diagnostic);
    }
    diagnostics_to_proto(&moved)
}

/// An event in the wire form; a value that does not encode becomes an
/// error event.
fn to_proto(listing: &Listing, event: Event) -> proto::list_resource::Event {
    let found = match event {
        Event::Diagnostics(diags) => return diagnostics_event(&diags),
        Event::Found(found) => found,
    };
    let mut diags = Diagnostics::new();
    let Some(identity) = proto::encode(&found.identity, &listing.identity_type, &mut diags) else {
        return diagnostics_event(&diags);
    };
    let resource_object = match &found.object {
        Some(object) => match proto::encode(object, &listing.object_type, &mut diags) {
            Some(object) => Some(object),
            None => return diagnostics_event(&diags),
        },
        None => None,
    };
    proto::list_resource::Event {
        identity: Some(proto::ResourceIdentityData {
            identity_data: Some(identity),
        }),
        display_name: found.display_name,
        resource_object,
        diagnostic: in_config_block(&found.diagnostics),
    }
}
