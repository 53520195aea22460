//! The protocol-6 `Provider` gRPC service: decodes requests, runs the
//! framework's schema-driven logic and the provider's hooks, enforces
//! Terraform's invariants, and encodes responses.
//!
//! Every handler runs under `catch_unwind`: a bug becomes an error diagnostic,
//! never a crash of the plugin.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use tonic::{Request, Response, Status};

use super::data_source::{read_checked, DataSource};
use super::diagnostics::{Diagnostic, Diagnostics};
use super::function::{Function, FunctionError};
use super::planning::{base_plan, check_apply, check_plan, replacement_paths};
use super::proto;
use super::provider::Provider;
use super::resource::Resource;
use super::schema::Schema;
use super::value::{json, msgpack, Type, Value};
use crate::domain::cancel;

/// The cancellation flags of the requests in flight, by request id.
static IN_FLIGHT: Mutex<BTreeMap<u64, cancel::Flag>> = Mutex::new(BTreeMap::new());

/// Cancels every request in flight (StopProvider, a stop signal, the host
/// gone): each stops at its next cancellation point and answers with an
/// error diagnostic. Requests that arrive later run normally.
pub fn cancel_in_flight() {
    let in_flight = IN_FLIGHT.lock().unwrap_or_else(PoisonError::into_inner);
    for flag in in_flight.values() {
        flag.cancel();
    }
}

/// Runs `work` on this thread; inside a multi-threaded runtime the worker
/// hands its other tasks (signals, other connections) to another thread first.
fn blocking<R>(work: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

/// Largest message Terraform and this server exchange (Terraform's own limit).
pub const MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

struct Registered<T: ?Sized> {
    implementation: Arc<T>,
    schema: Schema,
    object_type: Type,
}

impl<T: ?Sized> Registered<T> {
    fn new(implementation: Arc<T>, schema: Schema) -> Self {
        let object_type = schema.object_type();
        Self {
            implementation,
            schema,
            object_type,
        }
    }
}

/// Serves a [`Provider`] over the protocol-6 gRPC service.
pub struct ProviderServer {
    provider_schema: Schema,
    resources: BTreeMap<&'static str, Registered<dyn Resource>>,
    data_sources: BTreeMap<&'static str, Registered<dyn DataSource>>,
    functions: BTreeMap<&'static str, Arc<dyn Function>>,
    next_request_id: AtomicU64,
}

impl ProviderServer {
    /// Builds the server, computing every schema once.
    pub fn new(provider: &dyn Provider) -> Self {
        Self {
            provider_schema: provider.schema(),
            resources: provider
                .resources()
                .into_iter()
                .map(|r| (r.type_name(), Registered::new(r.clone(), r.schema())))
                .collect(),
            data_sources: provider
                .data_sources()
                .into_iter()
                .map(|d| (d.type_name(), Registered::new(d.clone(), d.schema())))
                .collect(),
            functions: provider
                .functions()
                .into_iter()
                .map(|f| (f.name(), f))
                .collect(),
            next_request_id: AtomicU64::new(1),
        }
    }

    /// The tonic service, with Terraform's message size limits.
    pub fn into_service(self) -> proto::provider_server::ProviderServer<Self> {
        proto::provider_server::ProviderServer::new(self)
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE)
    }

    /// The schemas of resources, data sources and functions, in the form
    /// `GetProviderSchema` returns (also used to generate documentation).
    pub fn schema_response(&self) -> proto::get_provider_schema::Response {
        proto::get_provider_schema::Response {
            provider: Some(self.provider_schema.to_proto()),
            resource_schemas: self
                .resources
                .iter()
                .map(|(name, r)| (name.to_string(), r.schema.to_proto()))
                .collect(),
            data_source_schemas: self
                .data_sources
                .iter()
                .map(|(name, d)| (name.to_string(), d.schema.to_proto()))
                .collect(),
            functions: self.function_definitions(),
            diagnostics: Vec::new(),
            provider_meta: None,
            server_capabilities: Some(capabilities()),
        }
    }

    fn function_definitions(&self) -> std::collections::HashMap<String, proto::Function> {
        self.functions
            .iter()
            .map(|(name, f)| (name.to_string(), function_to_proto(f.as_ref())))
            .collect()
    }

    /// Runs one RPC body with logging, timing, panic protection and
    /// cancellation ([`cancel_in_flight`]: its result is then discarded).
    fn handle<T>(
        &self,
        rpc: &'static str,
        subject: Subject<'_>,
        body: impl FnOnce(&mut Diagnostics) -> T,
    ) -> (Option<T>, Diagnostics) {
        let request_id = self.next_request_id.fetch_add(1, Ordering::Relaxed);
        let span = match subject {
            Subject::Provider => tracing::debug_span!("rpc", tf_rpc = rpc, tf_req_id = request_id),
            Subject::Resource(name) => tracing::debug_span!(
                "rpc",
                tf_rpc = rpc,
                tf_req_id = request_id,
                tf_resource_type = name
            ),
            Subject::DataSource(name) => tracing::debug_span!(
                "rpc",
                tf_rpc = rpc,
                tf_req_id = request_id,
                tf_data_source_type = name
            ),
            Subject::Function(name) => tracing::debug_span!(
                "rpc",
                tf_rpc = rpc,
                tf_req_id = request_id,
                tf_function_name = name
            ),
        };
        let _entered = span.enter();
        let started = Instant::now();
        tracing::debug!("received request");
        let mut diags = Diagnostics::new();
        let flag = cancel::Flag::new();
        IN_FLIGHT
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(request_id, flag.clone());
        let result = blocking(|| {
            catch_unwind(AssertUnwindSafe(|| {
                cancel::scope(&flag, || body(&mut diags))
            }))
        });
        IN_FLIGHT
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&request_id);
        let result = match result {
            Ok(_) if flag.is_cancelled() => {
                diags = Diagnostics::new();
                diags.push(Diagnostic::error(
                    "Provider stopped",
                    format!("The provider was asked to stop (StopProvider, a signal, or Terraform closed its connection) while handling {rpc}; the request was cancelled."),
                ));
                None
            }
            Ok(value) => Some(value),
            Err(_) => {
                diags.push(Diagnostic::error(
                    "Provider internal error",
                    format!("The provider failed while handling {rpc}. Please report this issue to the provider developers."),
                ));
                None
            }
        };
        tracing::debug!(
            tf_req_duration_ms = started.elapsed().as_millis() as u64,
            diagnostics = diags.iter().count(),
            "served request"
        );
        (result, diags)
    }

    /// Decodes the provider configuration and validates it against the schema.
    fn validate_provider_config(
        &self,
        config: Option<&proto::DynamicValue>,
        diags: &mut Diagnostics,
    ) {
        let ty = self.provider_schema.object_type();
        if let Some(config) = decode(config, &ty, "provider configuration", diags) {
            self.provider_schema.validate(&config, diags);
        }
    }

    fn resource(&self, name: &str, diags: &mut Diagnostics) -> Option<&Registered<dyn Resource>> {
        let found = self.resources.get(name);
        if found.is_none() {
            diags.push(Diagnostic::error(
                "Unknown resource type",
                format!("This provider has no resource type {name:?}."),
            ));
        }
        found
    }

    fn data_source(
        &self,
        name: &str,
        diags: &mut Diagnostics,
    ) -> Option<&Registered<dyn DataSource>> {
        let found = self.data_sources.get(name);
        if found.is_none() {
            diags.push(Diagnostic::error(
                "Unknown data source type",
                format!("This provider has no data source type {name:?}."),
            ));
        }
        found
    }
}

/// What an RPC is about, logged as terraform-plugin-go names it
/// (`tf_resource_type`, `tf_data_source_type`, `tf_function_name`).
#[derive(Clone, Copy)]
enum Subject<'a> {
    /// The provider itself.
    Provider,
    /// A managed resource type.
    Resource(&'a str),
    /// A data source type.
    DataSource(&'a str),
    /// A provider function.
    Function(&'a str),
}

fn capabilities() -> proto::ServerCapabilities {
    proto::ServerCapabilities {
        plan_destroy: false,
        get_provider_schema_optional: false,
        move_resource_state: false,
    }
}

fn function_to_proto(function: &dyn Function) -> proto::Function {
    let signature = function.signature();
    proto::Function {
        parameters: signature
            .parameters
            .iter()
            .map(|p| proto::function::Parameter {
                name: p.name.to_owned(),
                r#type: p.ty.to_json_bytes(),
                allow_null_value: p.allow_null,
                allow_unknown_values: false,
                description: p.description.to_owned(),
                description_kind: proto::StringKind::Markdown as i32,
            })
            .collect(),
        variadic_parameter: None,
        r#return: Some(proto::function::Return {
            r#type: signature.returns.to_json_bytes(),
        }),
        summary: signature.summary.to_owned(),
        description: signature.description.to_owned(),
        description_kind: proto::StringKind::Markdown as i32,
        deprecation_message: String::new(),
    }
}

/// Decodes a DynamicValue (msgpack preferred, else JSON; absent means null).
fn decode(
    value: Option<&proto::DynamicValue>,
    ty: &Type,
    what: &str,
    diags: &mut Diagnostics,
) -> Option<Value> {
    let Some(value) = value else {
        return Some(Value::null());
    };
    let decoded = if !value.msgpack.is_empty() {
        msgpack::decode(&value.msgpack, ty).map_err(|e| e.to_string())
    } else if !value.json.is_empty() {
        json::decode(&value.json, ty).map_err(|e| e.to_string())
    } else {
        Ok(Value::null())
    };
    match decoded {
        Ok(v) => Some(v),
        Err(error) => {
            diags.push(Diagnostic::error(
                format!("Invalid {what} received from Terraform"),
                format!("The provider could not decode the {what}: {error}."),
            ));
            None
        }
    }
}

/// Encodes a value as msgpack DynamicValue.
fn encode(value: &Value, ty: &Type, diags: &mut Diagnostics) -> Option<proto::DynamicValue> {
    match msgpack::encode(value, ty) {
        Ok(bytes) => Some(proto::DynamicValue {
            msgpack: bytes,
            json: Vec::new(),
        }),
        Err(error) => {
            diags.push(Diagnostic::error(
                "Provider bug: value does not match its schema",
                format!("The provider could not encode its result: {error}."),
            ));
            None
        }
    }
}

fn validate_with<T: ?Sized>(
    registered: &Registered<T>,
    config: &Value,
    diags: &mut Diagnostics,
    hook: impl FnOnce(&T, &Value, &mut Diagnostics),
) {
    registered.schema.validate(config, diags);
    if !diags.has_errors() {
        hook(&registered.implementation, config, diags);
    }
}

#[tonic::async_trait]
impl proto::provider_server::Provider for ProviderServer {
    async fn get_metadata(
        &self,
        _request: Request<proto::get_metadata::Request>,
    ) -> Result<Response<proto::get_metadata::Response>, Status> {
        Ok(Response::new(proto::get_metadata::Response {
            server_capabilities: Some(capabilities()),
            diagnostics: Vec::new(),
            data_sources: self
                .data_sources
                .keys()
                .map(|name| proto::get_metadata::DataSourceMetadata {
                    type_name: name.to_string(),
                })
                .collect(),
            resources: self
                .resources
                .keys()
                .map(|name| proto::get_metadata::ResourceMetadata {
                    type_name: name.to_string(),
                })
                .collect(),
            functions: self
                .functions
                .keys()
                .map(|name| proto::get_metadata::FunctionMetadata {
                    name: name.to_string(),
                })
                .collect(),
        }))
    }

    async fn get_provider_schema(
        &self,
        _request: Request<proto::get_provider_schema::Request>,
    ) -> Result<Response<proto::get_provider_schema::Response>, Status> {
        let (response, _) = self.handle("GetProviderSchema", Subject::Provider, |_| {
            self.schema_response()
        });
        Ok(Response::new(response.unwrap_or_default()))
    }

    async fn validate_provider_config(
        &self,
        request: Request<proto::validate_provider_config::Request>,
    ) -> Result<Response<proto::validate_provider_config::Response>, Status> {
        let request = request.into_inner();
        let (_, diags) = self.handle("ValidateProviderConfig", Subject::Provider, |diags| {
            self.validate_provider_config(request.config.as_ref(), diags);
        });
        Ok(Response::new(proto::validate_provider_config::Response {
            diagnostics: diags.to_proto(),
        }))
    }

    async fn validate_resource_config(
        &self,
        request: Request<proto::validate_resource_config::Request>,
    ) -> Result<Response<proto::validate_resource_config::Response>, Status> {
        let request = request.into_inner();
        let (_, diags) = self.handle(
            "ValidateResourceConfig",
            Subject::Resource(&request.type_name),
            |diags| {
                let resource = self.resource(&request.type_name, diags)?;
                let config = decode(
                    request.config.as_ref(),
                    &resource.object_type,
                    "configuration",
                    diags,
                )?;
                validate_with(resource, &config, diags, |r, c, d| r.validate(c, d));
                Some(())
            },
        );
        Ok(Response::new(proto::validate_resource_config::Response {
            diagnostics: diags.to_proto(),
        }))
    }

    async fn validate_data_resource_config(
        &self,
        request: Request<proto::validate_data_resource_config::Request>,
    ) -> Result<Response<proto::validate_data_resource_config::Response>, Status> {
        let request = request.into_inner();
        let (_, diags) = self.handle(
            "ValidateDataResourceConfig",
            Subject::DataSource(&request.type_name),
            |diags| {
                let data_source = self.data_source(&request.type_name, diags)?;
                let config = decode(
                    request.config.as_ref(),
                    &data_source.object_type,
                    "configuration",
                    diags,
                )?;
                validate_with(data_source, &config, diags, |d, c, ds| d.validate(c, ds));
                Some(())
            },
        );
        Ok(Response::new(
            proto::validate_data_resource_config::Response {
                diagnostics: diags.to_proto(),
            },
        ))
    }

    async fn upgrade_resource_state(
        &self,
        request: Request<proto::upgrade_resource_state::Request>,
    ) -> Result<Response<proto::upgrade_resource_state::Response>, Status> {
        let request = request.into_inner();
        let (state, diags) = self.handle("UpgradeResourceState", Subject::Resource(&request.type_name), |diags| {
            let resource = self.resource(&request.type_name, diags)?;
            let raw = request.raw_state.unwrap_or_default();
            if raw.json.is_empty() {
                diags.push(Diagnostic::error(
                    "Unsupported state format",
                    "The stored state has no JSON form (legacy flatmap state is not supported by this provider).",
                ));
                return None;
            }
            let upgraded = if request.version == resource.schema.version {
                decode_current_json(&raw.json, &resource.object_type, diags)?
            } else if request.version > resource.schema.version {
                diags.push(Diagnostic::error(
                    "State written by a newer provider",
                    format!(
                        "The state has schema version {} but this provider knows up to {}. Upgrade the provider.",
                        request.version, resource.schema.version
                    ),
                ));
                return None;
            } else {
                resource.implementation.upgrade_state(request.version, &raw.json, diags)?
            };
            encode(&upgraded, &resource.object_type, diags)
        });
        Ok(Response::new(proto::upgrade_resource_state::Response {
            upgraded_state: state.flatten(),
            diagnostics: diags.to_proto(),
        }))
    }

    async fn configure_provider(
        &self,
        request: Request<proto::configure_provider::Request>,
    ) -> Result<Response<proto::configure_provider::Response>, Status> {
        let request = request.into_inner();
        let (_, diags) = self.handle("ConfigureProvider", Subject::Provider, |diags| {
            tracing::info!(terraform_version = %request.terraform_version, "configuring provider");
            self.validate_provider_config(request.config.as_ref(), diags);
        });
        Ok(Response::new(proto::configure_provider::Response {
            diagnostics: diags.to_proto(),
        }))
    }

    async fn read_resource(
        &self,
        request: Request<proto::read_resource::Request>,
    ) -> Result<Response<proto::read_resource::Response>, Status> {
        let request = request.into_inner();
        let (state, diags) = self.handle(
            "ReadResource",
            Subject::Resource(&request.type_name),
            |diags| {
                let resource = self.resource(&request.type_name, diags)?;
                let current = decode(
                    request.current_state.as_ref(),
                    &resource.object_type,
                    "current state",
                    diags,
                )?;
                let new_state = if current.is_null() {
                    Value::null()
                } else {
                    resource
                        .implementation
                        .read(&current, diags)
                        .unwrap_or_else(Value::null)
                };
                if !new_state.is_wholly_known() {
                    diags.push(Diagnostic::error(
                        "Provider bug: unknown value after read",
                        "The provider returned an unknown value from ReadResource.",
                    ));
                    return None;
                }
                encode(&new_state, &resource.object_type, diags)
            },
        );
        let failed = diags.has_errors();
        Ok(Response::new(proto::read_resource::Response {
            // On error Terraform keeps the prior state; never send a half result.
            new_state: if failed { None } else { state.flatten() },
            diagnostics: diags.to_proto(),
            private: request.private,
        }))
    }

    async fn plan_resource_change(
        &self,
        request: Request<proto::plan_resource_change::Request>,
    ) -> Result<Response<proto::plan_resource_change::Response>, Status> {
        let request = request.into_inner();
        let (plan, diags) = self.handle(
            "PlanResourceChange",
            Subject::Resource(&request.type_name),
            |diags| {
                let resource = self.resource(&request.type_name, diags)?;
                let ty = &resource.object_type;
                let prior = decode(request.prior_state.as_ref(), ty, "prior state", diags)?;
                let proposed = decode(
                    request.proposed_new_state.as_ref(),
                    ty,
                    "proposed state",
                    diags,
                )?;
                let config = decode(request.config.as_ref(), ty, "configuration", diags)?;
                if proposed.is_null() {
                    return Some((encode(&Value::null(), ty, diags)?, Vec::new()));
                }
                let prior = (!prior.is_null()).then_some(prior);
                let mut planned = base_plan(&resource.schema, prior.as_ref(), &proposed, &config);
                resource
                    .implementation
                    .modify_plan(prior.as_ref(), &config, &mut planned, diags);
                if diags.has_errors() {
                    return None;
                }
                check_plan(&resource.schema, &config, &planned, diags);
                if diags.has_errors() {
                    return None;
                }
                let replace = replacement_paths(&resource.schema, prior.as_ref(), &planned);
                Some((encode(&planned, ty, diags)?, replace))
            },
        );
        let (planned_state, requires_replace) = match plan.flatten() {
            Some((state, replace)) if !diags.has_errors() => (Some(state), replace),
            _ => (None, Vec::new()),
        };
        Ok(Response::new(proto::plan_resource_change::Response {
            planned_state,
            requires_replace: requires_replace.iter().map(|p| p.to_proto()).collect(),
            planned_private: request.prior_private,
            diagnostics: diags.to_proto(),
        }))
    }

    async fn apply_resource_change(
        &self,
        request: Request<proto::apply_resource_change::Request>,
    ) -> Result<Response<proto::apply_resource_change::Response>, Status> {
        let request = request.into_inner();
        let (state, diags) = self.handle(
            "ApplyResourceChange",
            Subject::Resource(&request.type_name),
            |diags| {
                let resource = self.resource(&request.type_name, diags)?;
                let ty = &resource.object_type;
                let prior = decode(request.prior_state.as_ref(), ty, "prior state", diags)?;
                let planned = decode(request.planned_state.as_ref(), ty, "planned state", diags)?;
                let config = decode(request.config.as_ref(), ty, "configuration", diags)?;
                if planned.is_null() {
                    resource.implementation.delete(&prior, diags);
                    return if diags.has_errors() {
                        None
                    } else {
                        encode(&Value::null(), ty, diags)
                    };
                }
                let prior = (!prior.is_null()).then_some(prior);
                let new_state =
                    resource
                        .implementation
                        .apply(prior.as_ref(), &config, &planned, diags)?;
                check_apply(&resource.schema, &planned, &new_state, diags);
                if diags.has_errors() {
                    return None;
                }
                encode(&new_state, ty, diags)
            },
        );
        let failed = diags.has_errors();
        Ok(Response::new(proto::apply_resource_change::Response {
            // On failure the prior state stays authoritative: Terraform keeps
            // it when new_state is absent, so nothing is lost.
            new_state: if failed {
                request.prior_state
            } else {
                state.flatten()
            },
            private: request.planned_private,
            diagnostics: diags.to_proto(),
        }))
    }

    async fn import_resource_state(
        &self,
        request: Request<proto::import_resource_state::Request>,
    ) -> Result<Response<proto::import_resource_state::Response>, Status> {
        let request = request.into_inner();
        let (state, diags) = self.handle(
            "ImportResourceState",
            Subject::Resource(&request.type_name),
            |diags| {
                let resource = self.resource(&request.type_name, diags)?;
                let imported = resource.implementation.import(&request.id, diags)?;
                if diags.has_errors() {
                    return None;
                }
                if !imported.is_wholly_known() {
                    diags.push(Diagnostic::error(
                        "Import produced an incomplete state",
                        "The imported object holds unknown values; nothing was imported. This is a bug in the provider.",
                    ));
                    return None;
                }
                encode(&imported, &resource.object_type, diags)
            },
        );
        let imported_resources = match state.flatten() {
            Some(state) if !diags.has_errors() => {
                vec![proto::import_resource_state::ImportedResource {
                    type_name: request.type_name,
                    state: Some(state),
                    private: Vec::new(),
                }]
            }
            _ => Vec::new(),
        };
        Ok(Response::new(proto::import_resource_state::Response {
            imported_resources,
            diagnostics: diags.to_proto(),
        }))
    }

    async fn read_data_source(
        &self,
        request: Request<proto::read_data_source::Request>,
    ) -> Result<Response<proto::read_data_source::Response>, Status> {
        let request = request.into_inner();
        let (state, diags) = self.handle(
            "ReadDataSource",
            Subject::DataSource(&request.type_name),
            |diags| {
                let data_source = self.data_source(&request.type_name, diags)?;
                let ty = &data_source.object_type;
                let config = decode(request.config.as_ref(), ty, "configuration", diags)?;
                let state = read_checked(
                    data_source.implementation.as_ref(),
                    &data_source.schema,
                    config,
                    diags,
                )?;
                encode(&state, ty, diags)
            },
        );
        let failed = diags.has_errors();
        Ok(Response::new(proto::read_data_source::Response {
            state: if failed { None } else { state.flatten() },
            diagnostics: diags.to_proto(),
        }))
    }

    async fn get_functions(
        &self,
        _request: Request<proto::get_functions::Request>,
    ) -> Result<Response<proto::get_functions::Response>, Status> {
        Ok(Response::new(proto::get_functions::Response {
            functions: self.function_definitions(),
            diagnostics: Vec::new(),
        }))
    }

    async fn call_function(
        &self,
        request: Request<proto::call_function::Request>,
    ) -> Result<Response<proto::call_function::Response>, Status> {
        let request = request.into_inner();
        let (result, diags) = self.handle("CallFunction", Subject::Function(&request.name), |_| {
            self.call(&request)
        });
        let result = result.unwrap_or_else(|| {
            let text = diags
                .iter()
                .map(|d| d.detail.clone())
                .collect::<Vec<_>>()
                .join("; ");
            Err(FunctionError {
                text,
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
                error: Some(proto::FunctionError {
                    text: error.text,
                    function_argument: error.argument.map(|i| i as i64),
                }),
            },
        }))
    }

    async fn stop_provider(
        &self,
        _request: Request<proto::stop_provider::Request>,
    ) -> Result<Response<proto::stop_provider::Response>, Status> {
        cancel_in_flight();
        Ok(Response::new(proto::stop_provider::Response {
            error: String::new(),
        }))
    }
}

impl ProviderServer {
    fn call(
        &self,
        request: &proto::call_function::Request,
    ) -> Result<proto::DynamicValue, FunctionError> {
        let function = self
            .functions
            .get(request.name.as_str())
            .ok_or_else(|| FunctionError {
                text: format!("This provider has no function {:?}.", request.name),
                argument: None,
            })?;
        let signature = function.signature();
        if request.arguments.len() != signature.parameters.len() {
            return Err(FunctionError {
                text: format!(
                    "{} takes {} arguments, got {}.",
                    request.name,
                    signature.parameters.len(),
                    request.arguments.len()
                ),
                argument: None,
            });
        }
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
        let result = function.call(&arguments)?;
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

/// Decodes JSON state at the current schema version.
fn decode_current_json(raw: &[u8], ty: &Type, diags: &mut Diagnostics) -> Option<Value> {
    match json::decode(raw, ty) {
        Ok(value) => Some(value),
        Err(error) => {
            diags.push(Diagnostic::error(
                "Unreadable stored state",
                format!("The stored state does not match the current schema: {error}."),
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::schema::Attribute;
    use proto::provider_server::Provider as _;

    /// A resource whose import leaves an attribute unknown.
    struct HalfImported;

    impl Resource for HalfImported {
        fn type_name(&self) -> &'static str {
            "test_half"
        }

        fn schema(&self) -> Schema {
            Schema::new("", vec![Attribute::computed("id", Type::String, "")])
        }

        fn apply(
            &self,
            _prior: Option<&Value>,
            _config: &Value,
            planned: &Value,
            _diags: &mut Diagnostics,
        ) -> Option<Value> {
            Some(planned.clone())
        }

        fn import(&self, _id: &str, _diags: &mut Diagnostics) -> Option<Value> {
            Some(Value::object([("id".to_owned(), Value::unknown())]))
        }
    }

    struct TestProvider;

    impl Provider for TestProvider {
        fn schema(&self) -> Schema {
            Schema::new("", Vec::new())
        }

        fn resources(&self) -> Vec<Arc<dyn Resource>> {
            vec![Arc::new(HalfImported)]
        }

        fn data_sources(&self) -> Vec<Arc<dyn DataSource>> {
            Vec::new()
        }

        fn functions(&self) -> Vec<Arc<dyn Function>> {
            Vec::new()
        }
    }

    /// An import that yields unknown values is an error, never an empty
    /// result Terraform would read as "nothing to import".
    #[tokio::test]
    async fn import_of_an_incomplete_object_is_a_diagnostic() {
        let server = ProviderServer::new(&TestProvider);
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
}
