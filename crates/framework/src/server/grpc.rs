//! The protocol-6 `Provider` gRPC service over the in-process [`Server`].
//!
//! Split by RPC family as terraform-plugin-go splits its conversions: a
//! module per family (`provider`, `resource`, `data_source`,
//! `function`, `ephemeral`, `list`, `action`) holds each RPC's handler, from the request
//! message to the response message, and only what is particular to that
//! RPC; `rpc` holds what they share (running under [`guard::run`], the
//! outcome's diagnostics, value conversions by schema), and the wire types'
//! own conversions are in [`proto`].

use std::pin::Pin;
use std::sync::Arc;

use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use super::guard::{self, Subject};
use super::Server;
use crate::proto;
use crate::provider::Provider;

pub use crate::proto::MAX_MESSAGE_SIZE;
pub use bounded::Bounded;

/// Serves a [`Provider`] over the protocol-6 gRPC service; a clone serves
/// the same server (for a handler that runs on a thread of its own).
#[derive(Clone)]
pub struct ProviderServer {
    server: Arc<Server>,
}

impl ProviderServer {
    /// Builds the server, computing every schema once.
    pub fn new(provider: &dyn Provider) -> Self {
        Self {
            server: Arc::new(Server::new(provider)),
        }
    }

    /// The tonic service, with Terraform's message size limits; a request
    /// over the limit is refused naming the limit, not its size.
    pub fn into_service(self) -> Bounded<proto::provider_server::ProviderServer<Self>> {
        Bounded(
            proto::provider_server::ProviderServer::new(self)
                .max_decoding_message_size(MAX_MESSAGE_SIZE)
                .max_encoding_message_size(MAX_MESSAGE_SIZE),
        )
    }
}

/// The events of a server-streaming RPC.
type EventStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

/// The service: each RPC (named as the generated trait and the prost
/// module of its messages name it) answered by its handler (`awaited`: an
/// async one, see [`guard::abandonable`]), and the RPCs of
/// the proto file this provider does not serve yet answered UNIMPLEMENTED,
/// which Terraform reads as "not supported".
macro_rules! service {
    (
        served { $($rpc:ident => $handler:ident,)* }
        awaited { $($awaited:ident => $async_handler:ident,)* }
        unserved { $($unserved:ident,)* }
    ) => {
        #[tonic::async_trait]
        impl proto::provider_server::Provider for ProviderServer {
            $(
                async fn $rpc(
                    &self,
                    request: Request<proto::$rpc::Request>,
                ) -> Result<Response<proto::$rpc::Response>, Status> {
                    Ok(Response::new(self.$handler(request.into_inner())))
                }
            )*
            $(
                async fn $awaited(
                    &self,
                    request: Request<proto::$awaited::Request>,
                ) -> Result<Response<proto::$awaited::Response>, Status> {
                    Ok(Response::new(self.$async_handler(request.into_inner()).await))
                }
            )*
            $(
                async fn $unserved(
                    &self,
                    _request: Request<proto::$unserved::Request>,
                ) -> Result<Response<proto::$unserved::Response>, Status> {
                    Err(unserved(stringify!($unserved)))
                }
            )*

            type ListResourceStream = EventStream<proto::list_resource::Event>;

            async fn list_resource(
                &self,
                request: Request<proto::list_resource::Request>,
            ) -> Result<Response<Self::ListResourceStream>, Status> {
                Ok(Response::new(self.list(request.into_inner())))
            }

            type InvokeActionStream = EventStream<proto::invoke_action::Event>;

            async fn invoke_action(
                &self,
                request: Request<proto::invoke_action::Request>,
            ) -> Result<Response<Self::InvokeActionStream>, Status> {
                Ok(Response::new(self.invoke(request.into_inner())))
            }
        }
    };
}

/// The status of an RPC this provider does not serve.
fn unserved(rpc: &str) -> Status {
    Status::unimplemented(format!("{rpc} is not served by this provider"))
}

service! {
    served {
        get_metadata => metadata,
        get_provider_schema => provider_schema,
        validate_provider_config => validate_provider,
        configure_provider => configure,
        stop_provider => stop,
        validate_resource_config => validate_resource,
        upgrade_resource_state => upgrade,
        read_resource => read,
        plan_resource_change => plan,
        apply_resource_change => apply,
        import_resource_state => import,
        validate_data_resource_config => validate_data_source,
        get_functions => functions,
        call_function => call,
        validate_ephemeral_resource_config => validate_ephemeral,
        open_ephemeral_resource => open_ephemeral,
        renew_ephemeral_resource => renew_ephemeral,
        close_ephemeral_resource => close_ephemeral,
        get_resource_identity_schemas => identity_schemas,
        upgrade_resource_identity => upgrade_identity,
        validate_list_resource_config => validate_list,
        validate_action_config => validate_action,
        plan_action => plan_action,
    }
    awaited {
        read_data_source => read_data,
    }
    unserved {
        generate_resource_config,
    }
}

mod action;
mod bounded;
mod data_source;
mod ephemeral;
mod function;
#[cfg(test)]
mod identity_tests;
mod list;
mod provider;
mod resource;
mod rpc;
#[cfg(test)]
mod size_tests;
#[cfg(test)]
mod tests;
