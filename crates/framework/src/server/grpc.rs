//! The protocol-6 `Provider` gRPC service over the in-process [`Server`]:
//! each RPC converts its request ([`proto`]), calls the server and converts
//! the response, all under [`guard::run`] (span, panic guard, cancellation).

use prost::Message as _;
use tonic::{Request, Response, Status};

use super::guard::{self, Subject};
use super::{
    ApplyResourceChange, PlanResourceChange, ProviderSchema, Server, UpgradeResourceState,
};
use crate::diagnostics::Diagnostics;
use crate::function::FunctionError;
use crate::proto::{self, decode, diagnostics_to_proto, encode, path_to_proto, schema_to_proto};
use crate::provider::Provider;
use crate::resource::Private;
use crate::value::{msgpack, Value};

/// Largest message Terraform and this server exchange (Terraform's own limit).
pub const MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

/// Serves a [`Provider`] over the protocol-6 gRPC service.
pub struct ProviderServer {
    server: Server,
}

impl ProviderServer {
    /// Builds the server, computing every schema once.
    pub fn new(provider: &dyn Provider) -> Self {
        Self {
            server: Server::new(provider),
        }
    }

    /// The tonic service, with Terraform's message size limits.
    pub fn into_service(self) -> proto::provider_server::ProviderServer<Self> {
        proto::provider_server::ProviderServer::new(self)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE)
    }

    /// Decodes configurations, states or plans of resource `type_name`, each
    /// named for diagnostics; stops at the first that fails.
    fn resource_values<const N: usize>(
        &self,
        type_name: &str,
        values: [(Option<&proto::DynamicValue>, &str); N],
        diags: &mut Diagnostics,
    ) -> Option<[Value; N]> {
        let ty = &self
            .server
            .registry()
            .resource(type_name, diags)?
            .object_type;
        let mut decoded = Vec::with_capacity(N);
        for (value, what) in values {
            decoded.push(decode(value, ty, what, diags)?);
        }
        decoded.try_into().ok()
    }

    /// Encodes a state or plan of resource `type_name`.
    fn resource_state(
        &self,
        type_name: &str,
        value: &Value,
        diags: &mut Diagnostics,
    ) -> Option<proto::DynamicValue> {
        let resource = self.server.registry().resource(type_name, diags)?;
        encode(value, &resource.object_type, diags)
    }

    /// Decodes the configuration of data source `type_name`.
    fn data_source_config(
        &self,
        type_name: &str,
        value: Option<&proto::DynamicValue>,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let data_source = self.server.registry().data_source(type_name, diags)?;
        decode(value, &data_source.object_type, "configuration", diags)
    }

    /// Decodes the provider configuration (ValidateProviderConfig and
    /// ConfigureProvider).
    fn provider_config(
        &self,
        value: Option<&proto::DynamicValue>,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let ty = self.server.registry().provider_type();
        decode(value, ty, "provider configuration", diags)
    }

    /// Runs a body that only checks, under [`guard::run`]; its diagnostics.
    fn checked(
        &self,
        rpc: &'static str,
        subject: Subject<'_>,
        request_bytes: usize,
        body: impl FnOnce(&mut Diagnostics) -> Option<()>,
    ) -> Vec<proto::Diagnostic> {
        diagnostics_to_proto(&guard::run(rpc, subject, request_bytes, body).1)
    }

    /// CallFunction's body: decodes the arguments (an undecodable one is
    /// blamed by position), calls the function, encodes the result.
    fn call(
        &self,
        request: &proto::call_function::Request,
    ) -> Result<proto::DynamicValue, FunctionError> {
        let signature = self
            .server
            .function_signature(&request.name, request.arguments.len())?;
        let mut arguments = Vec::with_capacity(request.arguments.len());
        for (index, (argument, parameter)) in request
            .arguments
            .iter()
            .zip(&signature.parameters)
            .enumerate()
        {
            let mut diags = Diagnostics::new();
            let value = decode(
                Some(argument),
                &parameter.ty,
                "function argument",
                &mut diags,
            )
            .filter(|_| !diags.has_errors())
            .ok_or_else(|| {
                FunctionError::argument(index, format!("{} could not be decoded.", parameter.name))
            })?;
            arguments.push(value);
        }
        let result = self.server.call_function(&request.name, &arguments)?;
        msgpack::encode(&result, &signature.returns)
            .map(|bytes| proto::DynamicValue {
                msgpack: bytes,
                json: Vec::new(),
            })
            .map_err(|e| FunctionError {
                text: format!("Provider bug: the result could not be encoded: {e}."),
                argument: None,
            })
    }
}

#[tonic::async_trait]
impl proto::provider_server::Provider for ProviderServer {
    async fn get_metadata(
        &self,
        _request: Request<proto::get_metadata::Request>,
    ) -> Result<Response<proto::get_metadata::Response>, Status> {
        let (metadata, diags) = guard::run("GetMetadata", Subject::Provider, 0, |_| {
            self.server.get_metadata()
        });
        let metadata = metadata.unwrap_or_else(|| super::Metadata {
            resources: Vec::new(),
            data_sources: Vec::new(),
            functions: Vec::new(),
        });
        Ok(Response::new(proto::get_metadata::Response {
            server_capabilities: Some(proto::capabilities()),
            diagnostics: diagnostics_to_proto(&diags),
            data_sources: metadata
                .data_sources
                .iter()
                .map(|name| proto::get_metadata::DataSourceMetadata {
                    type_name: name.to_string(),
                })
                .collect(),
            resources: metadata
                .resources
                .iter()
                .map(|name| proto::get_metadata::ResourceMetadata {
                    type_name: name.to_string(),
                })
                .collect(),
            functions: metadata
                .functions
                .iter()
                .map(|name| proto::get_metadata::FunctionMetadata {
                    name: name.to_string(),
                })
                .collect(),
            ephemeral_resources: ephemeral::metadata(self.server.registry()),
        }))
    }

    async fn get_provider_schema(
        &self,
        _request: Request<proto::get_provider_schema::Request>,
    ) -> Result<Response<proto::get_provider_schema::Response>, Status> {
        let (response, diags) = guard::run("GetProviderSchema", Subject::Provider, 0, |_| {
            provider_schema(&self.server.get_provider_schema())
        });
        let mut response = response.unwrap_or_default();
        response.ephemeral_resource_schemas = ephemeral::schemas(self.server.registry());
        response.diagnostics.extend(diagnostics_to_proto(&diags));
        Ok(Response::new(response))
    }

    async fn validate_provider_config(
        &self,
        request: Request<proto::validate_provider_config::Request>,
    ) -> Result<Response<proto::validate_provider_config::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let diagnostics = self.checked(
            "ValidateProviderConfig",
            Subject::Provider,
            bytes,
            |diags| {
                let config = self.provider_config(request.config.as_ref(), diags)?;
                self.server.validate_provider_config(&config, diags);
                Some(())
            },
        );
        Ok(Response::new(proto::validate_provider_config::Response {
            diagnostics,
        }))
    }

    async fn validate_resource_config(
        &self,
        request: Request<proto::validate_resource_config::Request>,
    ) -> Result<Response<proto::validate_resource_config::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let diagnostics = self.checked(
            "ValidateResourceConfig",
            Subject::Resource(&request.type_name),
            bytes,
            |diags| {
                let [config] = self.resource_values(
                    &request.type_name,
                    [(request.config.as_ref(), "configuration")],
                    diags,
                )?;
                let write_only_allowed = request
                    .client_capabilities
                    .as_ref()
                    .is_some_and(|c| c.write_only_attributes_allowed);
                self.server.validate_resource_config(
                    &request.type_name,
                    &config,
                    write_only_allowed,
                    diags,
                );
                Some(())
            },
        );
        Ok(Response::new(proto::validate_resource_config::Response {
            diagnostics,
        }))
    }

    async fn validate_data_resource_config(
        &self,
        request: Request<proto::validate_data_resource_config::Request>,
    ) -> Result<Response<proto::validate_data_resource_config::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let diagnostics = self.checked(
            "ValidateDataResourceConfig",
            Subject::DataSource(&request.type_name),
            bytes,
            |diags| {
                let config =
                    self.data_source_config(&request.type_name, request.config.as_ref(), diags)?;
                self.server
                    .validate_data_resource_config(&request.type_name, &config, diags);
                Some(())
            },
        );
        Ok(Response::new(
            proto::validate_data_resource_config::Response { diagnostics },
        ))
    }

    async fn upgrade_resource_state(
        &self,
        request: Request<proto::upgrade_resource_state::Request>,
    ) -> Result<Response<proto::upgrade_resource_state::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let (state, diags) = guard::run(
            "UpgradeResourceState",
            Subject::Resource(&request.type_name),
            bytes,
            |diags| {
                let raw = request.raw_state.as_ref().map(|r| r.json.as_slice());
                let upgraded = self.server.upgrade_resource_state(
                    UpgradeResourceState {
                        type_name: &request.type_name,
                        version: request.version,
                        raw_json: raw.unwrap_or_default(),
                    },
                    diags,
                )?;
                self.resource_state(&request.type_name, &upgraded, diags)
            },
        );
        Ok(Response::new(proto::upgrade_resource_state::Response {
            upgraded_state: state.flatten(),
            diagnostics: diagnostics_to_proto(&diags),
        }))
    }

    async fn configure_provider(
        &self,
        request: Request<proto::configure_provider::Request>,
    ) -> Result<Response<proto::configure_provider::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let diagnostics = self.checked("ConfigureProvider", Subject::Provider, bytes, |diags| {
            let config = self.provider_config(request.config.as_ref(), diags)?;
            self.server
                .configure_provider(&request.terraform_version, &config, diags);
            Some(())
        });
        Ok(Response::new(proto::configure_provider::Response {
            diagnostics,
        }))
    }

    async fn read_resource(
        &self,
        request: Request<proto::read_resource::Request>,
    ) -> Result<Response<proto::read_resource::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let (state, diags) = guard::run(
            "ReadResource",
            Subject::Resource(&request.type_name),
            bytes,
            |diags| {
                let [current] = self.resource_values(
                    &request.type_name,
                    [(request.current_state.as_ref(), "current state")],
                    diags,
                )?;
                let new_state = self
                    .server
                    .read_resource(&request.type_name, &current, diags)?;
                self.resource_state(&request.type_name, &new_state, diags)
            },
        );
        let failed = diags.has_errors();
        Ok(Response::new(proto::read_resource::Response {
            // On error Terraform keeps the prior state; never send a half result.
            new_state: if failed { None } else { state.flatten() },
            diagnostics: diagnostics_to_proto(&diags),
            private: request.private,
        }))
    }

    async fn plan_resource_change(
        &self,
        request: Request<proto::plan_resource_change::Request>,
    ) -> Result<Response<proto::plan_resource_change::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let (plan, diags) = guard::run(
            "PlanResourceChange",
            Subject::Resource(&request.type_name),
            bytes,
            |diags| {
                let name = &request.type_name;
                let [prior_state, proposed_new_state, config] = self.resource_values(
                    name,
                    [
                        (request.prior_state.as_ref(), "prior state"),
                        (request.proposed_new_state.as_ref(), "proposed state"),
                        (request.config.as_ref(), "configuration"),
                    ],
                    diags,
                )?;
                let prior_private = Private::decode(&request.prior_private, diags)?;
                let planned = self.server.plan_resource_change_with_private(
                    PlanResourceChange {
                        type_name: name,
                        prior_state,
                        proposed_new_state,
                        config,
                    },
                    &prior_private,
                    diags,
                )?;
                let state = self.resource_state(name, &planned.planned_state, diags)?;
                Some((state, planned.requires_replace))
            },
        );
        let (planned_state, requires_replace) = match plan.flatten() {
            Some((state, replace)) if !diags.has_errors() => (Some(state), replace),
            _ => (None, Vec::new()),
        };
        Ok(Response::new(proto::plan_resource_change::Response {
            planned_state,
            requires_replace: requires_replace.iter().map(path_to_proto).collect(),
            planned_private: request.prior_private,
            diagnostics: diagnostics_to_proto(&diags),
        }))
    }

    async fn apply_resource_change(
        &self,
        request: Request<proto::apply_resource_change::Request>,
    ) -> Result<Response<proto::apply_resource_change::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let (state, diags) = guard::run(
            "ApplyResourceChange",
            Subject::Resource(&request.type_name),
            bytes,
            |diags| {
                let name = &request.type_name;
                let [prior_state, planned_state, config] = self.resource_values(
                    name,
                    [
                        (request.prior_state.as_ref(), "prior state"),
                        (request.planned_state.as_ref(), "planned state"),
                        (request.config.as_ref(), "configuration"),
                    ],
                    diags,
                )?;
                let mut private = Private::decode(&request.planned_private, diags)?;
                let new_state = self.server.apply_resource_change_with_private(
                    ApplyResourceChange {
                        type_name: name,
                        prior_state,
                        planned_state,
                        config,
                    },
                    &mut private,
                    diags,
                )?;
                Some((self.resource_state(name, &new_state, diags)?, private))
            },
        );
        let (state, private) = match state.flatten() {
            Some((state, private)) => (Some(state), private.encode()),
            None => (None, request.planned_private),
        };
        let failed = diags.has_errors();
        Ok(Response::new(proto::apply_resource_change::Response {
            // On failure the prior state stays authoritative: Terraform keeps
            // it when new_state is absent, so nothing is lost.
            new_state: if failed { request.prior_state } else { state },
            private,
            diagnostics: diagnostics_to_proto(&diags),
        }))
    }

    async fn import_resource_state(
        &self,
        request: Request<proto::import_resource_state::Request>,
    ) -> Result<Response<proto::import_resource_state::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let (state, diags) = guard::run(
            "ImportResourceState",
            Subject::Resource(&request.type_name),
            bytes,
            |diags| {
                let mut private = Private::default();
                let imported = self.server.import_resource_state_with_private(
                    &request.type_name,
                    &request.id,
                    &mut private,
                    diags,
                )?;
                Some((
                    self.resource_state(&request.type_name, &imported, diags)?,
                    private,
                ))
            },
        );
        let imported_resources = match state.flatten() {
            Some((state, private)) if !diags.has_errors() => {
                vec![proto::import_resource_state::ImportedResource {
                    type_name: request.type_name,
                    state: Some(state),
                    private: private.encode(),
                }]
            }
            _ => Vec::new(),
        };
        Ok(Response::new(proto::import_resource_state::Response {
            imported_resources,
            diagnostics: diagnostics_to_proto(&diags),
        }))
    }

    async fn read_data_source(
        &self,
        request: Request<proto::read_data_source::Request>,
    ) -> Result<Response<proto::read_data_source::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let (state, diags) = guard::run(
            "ReadDataSource",
            Subject::DataSource(&request.type_name),
            bytes,
            |diags| {
                let name = &request.type_name;
                let config = self.data_source_config(name, request.config.as_ref(), diags)?;
                let state = self.server.read_data_source(name, config, diags)?;
                let ty = &self.server.registry().data_source(name, diags)?.object_type;
                encode(&state, ty, diags)
            },
        );
        let failed = diags.has_errors();
        Ok(Response::new(proto::read_data_source::Response {
            state: if failed { None } else { state.flatten() },
            diagnostics: diagnostics_to_proto(&diags),
        }))
    }

    async fn validate_ephemeral_resource_config(
        &self,
        request: Request<proto::validate_ephemeral_resource_config::Request>,
    ) -> Result<Response<proto::validate_ephemeral_resource_config::Response>, Status> {
        Ok(Response::new(self.validate_ephemeral(request.into_inner())))
    }

    async fn open_ephemeral_resource(
        &self,
        request: Request<proto::open_ephemeral_resource::Request>,
    ) -> Result<Response<proto::open_ephemeral_resource::Response>, Status> {
        Ok(Response::new(self.open_ephemeral(request.into_inner())))
    }

    async fn renew_ephemeral_resource(
        &self,
        request: Request<proto::renew_ephemeral_resource::Request>,
    ) -> Result<Response<proto::renew_ephemeral_resource::Response>, Status> {
        Ok(Response::new(self.renew_ephemeral(request.into_inner())))
    }

    async fn close_ephemeral_resource(
        &self,
        request: Request<proto::close_ephemeral_resource::Request>,
    ) -> Result<Response<proto::close_ephemeral_resource::Response>, Status> {
        Ok(Response::new(self.close_ephemeral(request.into_inner())))
    }

    async fn get_functions(
        &self,
        _request: Request<proto::get_functions::Request>,
    ) -> Result<Response<proto::get_functions::Response>, Status> {
        let (functions, diags) = guard::run("GetFunctions", Subject::Provider, 0, |_| {
            proto::functions(&self.server.get_functions())
        });
        Ok(Response::new(proto::get_functions::Response {
            functions: functions.unwrap_or_default(),
            diagnostics: diagnostics_to_proto(&diags),
        }))
    }

    async fn call_function(
        &self,
        request: Request<proto::call_function::Request>,
    ) -> Result<Response<proto::call_function::Response>, Status> {
        let request = request.into_inner();
        let bytes = request.encoded_len();
        let (result, diags) = guard::run(
            "CallFunction",
            Subject::Function(&request.name),
            bytes,
            |_| self.call(&request),
        );
        let result = result.unwrap_or_else(|| {
            Err(FunctionError {
                text: details(&diags),
                argument: None,
            })
        });
        Ok(Response::new(match result {
            Ok(result) => proto::call_function::Response {
                result: Some(result),
                error: None,
            },
            Err(error) => proto::call_function::Response {
                result: None,
                error: Some(proto::function_error(error)),
            },
        }))
    }

    async fn stop_provider(
        &self,
        _request: Request<proto::stop_provider::Request>,
    ) -> Result<Response<proto::stop_provider::Response>, Status> {
        let (stopped, diags) =
            guard::run_to_completion("StopProvider", Subject::Provider, 0, |_| {
                self.server.stop_provider();
            });
        let error = match stopped {
            Some(()) => String::new(),
            None => details(&diags),
        };
        Ok(Response::new(proto::stop_provider::Response { error }))
    }
}

/// The details of `diags`, for responses that carry a text instead.
fn details(diags: &Diagnostics) -> String {
    diags
        .iter()
        .map(|d| d.detail.clone())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The GetProviderSchema response for `schema`.
fn provider_schema(schema: &ProviderSchema<'_>) -> proto::get_provider_schema::Response {
    proto::get_provider_schema::Response {
        provider: Some(schema_to_proto(schema.provider)),
        resource_schemas: schema
            .resources
            .iter()
            .map(|(name, s)| (name.to_string(), schema_to_proto(s)))
            .collect(),
        data_source_schemas: schema
            .data_sources
            .iter()
            .map(|(name, s)| (name.to_string(), schema_to_proto(s)))
            .collect(),
        functions: proto::functions(&schema.functions),
        ephemeral_resource_schemas: Default::default(),
        diagnostics: Vec::new(),
        provider_meta: None,
        server_capabilities: Some(proto::capabilities()),
    }
}

mod ephemeral;
#[cfg(test)]
mod tests;
