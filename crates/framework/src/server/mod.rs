//! The provider server, in two layers as terraform-plugin-go and
//! terraform-plugin-framework split it:
//!
//! - [`Server`] (this module): the in-process server. One method per RPC,
//!   taking and returning framework [`Value`]s and typed requests; it runs
//!   the schema-driven logic and the provider's hooks and enforces the
//!   invariants Terraform holds providers to. No wire types.
//! - [`grpc`]: the protocol-6 gRPC service, a thin layer that converts
//!   messages ([`super::proto`]) and runs every RPC under [`guard`] (span,
//!   panic guard, cancellation).

pub mod grpc;
pub mod guard;

use std::collections::BTreeMap;

use super::data_source::read_checked;
use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::function::{FunctionError, Signature};
use super::identity::{IdentitySchema, ImportTarget};
use super::planning::{base_plan, check_apply, check_plan, replacement_paths};
use super::provider::Provider;
use super::registry::{Registered, Registry};
use super::resource::{Carried, Change, Resource};
use super::schema::Schema;
use super::value::{json, msgpack, Type, Value};

pub use grpc::ProviderServer;

/// The in-process provider server.
pub struct Server {
    registry: Registry,
}

/// GetMetadata: the names of everything the provider offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// Resource type names.
    pub resources: Vec<&'static str>,
    /// Data source type names.
    pub data_sources: Vec<&'static str>,
    /// Function names.
    pub functions: Vec<&'static str>,
}

/// GetProviderSchema: every schema and function signature, by name.
pub struct ProviderSchema<'a> {
    /// The provider configuration schema.
    pub provider: &'a Schema,
    /// Resource schemas.
    pub resources: BTreeMap<&'static str, &'a Schema>,
    /// Data source schemas.
    pub data_sources: BTreeMap<&'static str, &'a Schema>,
    /// Function signatures.
    pub functions: BTreeMap<&'static str, Signature>,
}

/// UpgradeResourceState: stored state written at some schema version.
#[derive(Debug, Clone, Copy)]
pub struct UpgradeResourceState<'a> {
    /// The resource type.
    pub type_name: &'a str,
    /// The schema version the state was written with.
    pub version: i64,
    /// The stored state, in Terraform's JSON state form.
    pub raw_json: &'a [u8],
}

/// UpgradeResourceIdentity: a stored identity written at some identity
/// schema version.
#[derive(Debug, Clone, Copy)]
pub struct UpgradeResourceIdentity<'a> {
    /// The resource type.
    pub type_name: &'a str,
    /// The identity schema version the identity was written with.
    pub version: i64,
    /// The stored identity, in Terraform's JSON state form.
    pub raw_json: &'a [u8],
}

/// PlanResourceChange: the values Terraform plans from.
#[derive(Debug, Clone)]
pub struct PlanResourceChange<'a> {
    /// The resource type.
    pub type_name: &'a str,
    /// The prior state; null on create.
    pub prior_state: Value,
    /// Terraform's proposal (configuration merged over the prior state);
    /// null on destroy.
    pub proposed_new_state: Value,
    /// The configuration, possibly with unknown values.
    pub config: Value,
}

/// A planned change: the planned state and what forces replacement.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedChange {
    /// The planned state; unknown where only apply can tell, null on destroy.
    pub planned_state: Value,
    /// Attributes whose change requires replacing the object.
    pub requires_replace: Vec<AttributePath>,
}

/// ApplyResourceChange: the change to carry out.
#[derive(Debug, Clone)]
pub struct ApplyResourceChange<'a> {
    /// The resource type.
    pub type_name: &'a str,
    /// The prior state; null on create.
    pub prior_state: Value,
    /// The planned state; null on delete.
    pub planned_state: Value,
    /// The configuration.
    pub config: Value,
}

impl Server {
    /// Builds the server, computing every schema once.
    pub fn new(provider: &dyn Provider) -> Self {
        Self {
            registry: Registry::new(provider),
        }
    }

    /// What the provider offers, by name.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// GetMetadata: the names of everything offered, without schemas.
    pub fn get_metadata(&self) -> Metadata {
        Metadata {
            resources: self.registry.resources().keys().copied().collect(),
            data_sources: self.registry.data_sources().keys().copied().collect(),
            functions: self.registry.functions().keys().copied().collect(),
        }
    }

    /// GetProviderSchema: every schema (computed when the server was built)
    /// and function signature.
    pub fn get_provider_schema(&self) -> ProviderSchema<'_> {
        ProviderSchema {
            provider: self.registry.provider_schema(),
            resources: schemas(self.registry.resources()),
            data_sources: schemas(self.registry.data_sources()),
            functions: self.get_functions(),
        }
    }

    /// GetFunctions: every function's signature, by name.
    pub fn get_functions(&self) -> BTreeMap<&'static str, Signature> {
        self.registry
            .functions()
            .iter()
            .map(|(name, f)| (*name, f.signature()))
            .collect()
    }

    /// ValidateProviderConfig: checks the configuration against the schema.
    pub fn validate_provider_config(&self, config: &Value, diags: &mut Diagnostics) {
        self.registry.provider_schema().validate(config, diags);
    }

    /// ConfigureProvider: the provider has no state to configure; the
    /// configuration is checked as [`Server::validate_provider_config`] does.
    pub fn configure_provider(
        &self,
        terraform_version: &str,
        config: &Value,
        diags: &mut Diagnostics,
    ) {
        tracing::info!(terraform_version, "configuring provider");
        self.validate_provider_config(config, diags);
    }

    /// ValidateResourceConfig: the schema's checks (a write-only value only
    /// when the client announced `write_only_allowed`), then the resource's.
    pub fn validate_resource_config(
        &self,
        type_name: &str,
        config: &Value,
        write_only_allowed: bool,
        diags: &mut Diagnostics,
    ) {
        if let Some(resource) = self.registry.resource(type_name, diags) {
            resource
                .schema
                .check_write_only(config, write_only_allowed, diags);
            validate_with(resource, config, diags, |r, c, d| r.validate(c, d));
        }
    }

    /// ValidateDataResourceConfig: the schema's checks, then the data source's.
    pub fn validate_data_resource_config(
        &self,
        type_name: &str,
        config: &Value,
        diags: &mut Diagnostics,
    ) {
        if let Some(data_source) = self.registry.data_source(type_name, diags) {
            validate_with(data_source, config, diags, |d, c, ds| d.validate(c, ds));
        }
    }

    /// UpgradeResourceState: stored state of the current version is read as
    /// is, older versions go through the resource's upgrader, newer ones are
    /// refused.
    pub fn upgrade_resource_state(
        &self,
        request: UpgradeResourceState<'_>,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let resource = self.registry.resource(request.type_name, diags)?;
        if request.raw_json.is_empty() {
            diags.push(Diagnostic::error(
                "Unsupported state format",
                "The stored state has no JSON form (legacy flatmap state is not supported by this provider).",
            ));
            return None;
        }
        let mut upgraded = upgrade_stored(
            Stored {
                what: "state",
                version: request.version,
                current: resource.schema.version,
                ty: &resource.object_type,
                json: request.raw_json,
            },
            |version, json, diags| resource.implementation.upgrade_state(version, json, diags),
            diags,
        )?;
        resource.schema.nullify_write_only(&mut upgraded);
        Some(upgraded)
    }

    /// GetResourceIdentitySchemas: the identity schema of every resource
    /// type that has one.
    pub fn get_resource_identity_schemas(&self) -> BTreeMap<&'static str, &IdentitySchema> {
        self.registry
            .identities()
            .iter()
            .map(|(name, identity)| (*name, &identity.schema))
            .collect()
    }

    /// UpgradeResourceIdentity: a stored identity of the current identity
    /// version is read as is, older versions go through the resource's
    /// upgrader, newer ones are refused; the result is checked as every
    /// identity is.
    pub fn upgrade_resource_identity(
        &self,
        request: UpgradeResourceIdentity<'_>,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let resource = self.registry.resource(request.type_name, diags)?;
        let identity = self.registry.identity(request.type_name, diags)?;
        let upgraded = upgrade_stored(
            Stored {
                what: "identity",
                version: request.version,
                current: identity.schema.version,
                ty: &identity.object_type,
                json: request.raw_json,
            },
            |version, json, diags| {
                resource
                    .implementation
                    .upgrade_identity(version, json, diags)
            },
            diags,
        )?;
        check_identity(&upgraded, &identity.object_type, false, diags).then_some(upgraded)
    }

    /// ReadResource: the refreshed state, null when the object is gone. The
    /// result is wholly known.
    pub fn read_resource(
        &self,
        type_name: &str,
        current_state: &Value,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        self.read_resource_carrying(type_name, current_state, &mut Carried::default(), diags)
    }

    /// [`Server::read_resource`] with the current identity in `carried`,
    /// which becomes the new identity.
    pub fn read_resource_carrying(
        &self,
        type_name: &str,
        current_state: &Value,
        carried: &mut Carried,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let resource = self.registry.resource(type_name, diags)?;
        let mut new_state = if current_state.is_null() {
            Value::null()
        } else {
            resource
                .implementation
                .read(current_state, diags)
                .unwrap_or_else(Value::null)
        };
        resource.schema.nullify_write_only(&mut new_state);
        if !new_state.is_wholly_known() {
            diags.push(Diagnostic::error(
                "Provider bug: unknown value after read",
                "The provider returned an unknown value from ReadResource.",
            ));
            return None;
        }
        if diags.has_errors() || !self.settle_identity(type_name, &new_state, carried, false, diags)
        {
            return None;
        }
        Some(new_state)
    }

    /// PlanResourceChange: the framework's plan (defaults, unknown computed
    /// values, kept prior values), refined by the resource, checked against
    /// Terraform's planning rules, with the attributes forcing replacement.
    pub fn plan_resource_change(
        &self,
        request: PlanResourceChange<'_>,
        diags: &mut Diagnostics,
    ) -> Option<PlannedChange> {
        self.plan_resource_change_carrying(request, &mut Carried::default(), diags)
    }

    /// [`Server::plan_resource_change`] with the prior private state and
    /// identity in `carried`, which become the planned ones.
    pub fn plan_resource_change_carrying(
        &self,
        request: PlanResourceChange<'_>,
        carried: &mut Carried,
        diags: &mut Diagnostics,
    ) -> Option<PlannedChange> {
        let resource = self.registry.resource(request.type_name, diags)?;
        if request.proposed_new_state.is_null() {
            carried.identity = Value::null();
            return Some(PlannedChange {
                planned_state: Value::null(),
                requires_replace: Vec::new(),
            });
        }
        let prior = (!request.prior_state.is_null()).then_some(request.prior_state);
        if prior.is_none() {
            // A new object (a create, or the second plan of a replacement):
            // the identity Terraform hands over is the replaced object's.
            carried.identity = Value::null();
        }
        let mut planned = base_plan(
            &resource.schema,
            prior.as_ref(),
            &request.proposed_new_state,
            &request.config,
        );
        let change = Change {
            prior: prior.as_ref(),
            config: &request.config,
            private: &mut carried.private,
        };
        resource
            .implementation
            .modify_plan(change, &mut planned, diags);
        resource.schema.nullify_write_only(&mut planned);
        if diags.has_errors() {
            return None;
        }
        check_plan(&resource.schema, &request.config, &planned, diags);
        if diags.has_errors()
            || !self.settle_identity(request.type_name, &planned, carried, prior.is_none(), diags)
        {
            return None;
        }
        let requires_replace = replacement_paths(&resource.schema, prior.as_ref(), &planned);
        Some(PlannedChange {
            planned_state: planned,
            requires_replace,
        })
    }

    /// ApplyResourceChange: creates, updates or (planned state null) deletes
    /// the object; returns the new state, checked against the plan. `None`
    /// on error: Terraform then keeps the prior state.
    pub fn apply_resource_change(
        &self,
        request: ApplyResourceChange<'_>,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        self.apply_resource_change_carrying(request, &mut Carried::default(), diags)
    }

    /// [`Server::apply_resource_change`] with the planned private state and
    /// identity in `carried`, which become the new ones.
    pub fn apply_resource_change_carrying(
        &self,
        request: ApplyResourceChange<'_>,
        carried: &mut Carried,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let resource = self.registry.resource(request.type_name, diags)?;
        if request.planned_state.is_null() {
            resource.implementation.delete(&request.prior_state, diags);
            carried.identity = Value::null();
            return (!diags.has_errors()).then(Value::null);
        }
        let prior = (!request.prior_state.is_null()).then_some(request.prior_state);
        let change = Change {
            prior: prior.as_ref(),
            config: &request.config,
            private: &mut carried.private,
        };
        let mut new_state = resource
            .implementation
            .apply(change, &request.planned_state, diags)?;
        resource.schema.nullify_write_only(&mut new_state);
        check_apply(&resource.schema, &request.planned_state, &new_state, diags);
        if diags.has_errors()
            || !self.settle_identity(request.type_name, &new_state, carried, false, diags)
        {
            return None;
        }
        Some(new_state)
    }

    /// ImportResourceState: the wholly known state `id` designates.
    pub fn import_resource_state(
        &self,
        type_name: &str,
        id: &str,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        self.import_resource_state_carrying(
            type_name,
            ImportTarget::Id(id),
            &mut Carried::default(),
            diags,
        )
    }

    /// ImportResourceState by ID or by identity (checked against the
    /// identity schema first): the wholly known state, and in `carried` the
    /// private state and the identity to store with it.
    pub fn import_resource_state_carrying(
        &self,
        type_name: &str,
        target: ImportTarget<'_>,
        carried: &mut Carried,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let resource = self.registry.resource(type_name, diags)?;
        if let ImportTarget::Identity(identity) = target {
            let registered = self.registry.identity(type_name, diags)?;
            registered.schema.check_import(identity, diags);
            if diags.has_errors() {
                return None;
            }
        }
        let mut imported = resource.implementation.import(target, carried, diags)?;
        resource.schema.nullify_write_only(&mut imported);
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
        self.settle_identity(type_name, &imported, carried, false, diags)
            .then_some(imported)
    }

    /// Sets `carried.identity` to the identity of the object whose state is
    /// `state`, from the identity Terraform holds for it (null when none):
    /// null for no object and for a type without identities, else the
    /// resource's, checked (of the identity type; wholly known unless
    /// `new_object`, an object still to be created). False after an error.
    fn settle_identity(
        &self,
        type_name: &str,
        state: &Value,
        carried: &mut Carried,
        new_object: bool,
        diags: &mut Diagnostics,
    ) -> bool {
        let (Some(identity), Some(resource)) = (
            self.registry.identities().get(type_name),
            self.registry.resources().get(type_name),
        ) else {
            carried.identity = Value::null();
            return true;
        };
        if state.is_null() {
            carried.identity = Value::null();
            return true;
        }
        let implementation: &dyn Resource = resource.implementation.as_ref();
        carried.identity = implementation.identity(state, &carried.identity, diags);
        !diags.has_errors()
            && check_identity(&carried.identity, &identity.object_type, new_object, diags)
    }

    /// ReadDataSource: see [`read_checked`].
    pub fn read_data_source(
        &self,
        type_name: &str,
        config: Value,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let data_source = self.registry.data_source(type_name, diags)?;
        read_checked(
            data_source.implementation.as_ref(),
            &data_source.schema,
            config,
            diags,
        )
    }

    /// The signature of function `name`, checked against the number of
    /// arguments of a call.
    pub fn function_signature(
        &self,
        name: &str,
        arguments: usize,
    ) -> Result<Signature, FunctionError> {
        let function = self
            .registry
            .functions()
            .get(name)
            .ok_or_else(|| FunctionError {
                text: format!("This provider has no function {name:?}."),
                argument: None,
            })?;
        let signature = function.signature();
        if arguments != signature.parameters.len() {
            return Err(FunctionError {
                text: format!(
                    "{name} takes {} arguments, got {arguments}.",
                    signature.parameters.len()
                ),
                argument: None,
            });
        }
        Ok(signature)
    }

    /// CallFunction: the result of function `name` for `arguments` (of the
    /// parameter types).
    pub fn call_function(&self, name: &str, arguments: &[Value]) -> Result<Value, FunctionError> {
        self.function_signature(name, arguments.len())?;
        self.registry.functions()[name].call(arguments)
    }

    /// StopProvider: cancels every request in flight.
    pub fn stop_provider(&self) {
        guard::cancel_in_flight();
    }
}

/// A stored state or identity, written at `version` of a schema now at
/// `current`.
struct Stored<'a> {
    /// What it is, for diagnostics: "state" or "identity".
    what: &'static str,
    version: i64,
    current: i64,
    ty: &'a Type,
    json: &'a [u8],
}

/// A stored value of the current version read as is; an older one through
/// `upgrader`; a newer one refused.
fn upgrade_stored(
    stored: Stored<'_>,
    upgrader: impl FnOnce(i64, &[u8], &mut Diagnostics) -> Option<Value>,
    diags: &mut Diagnostics,
) -> Option<Value> {
    let Stored {
        what,
        version,
        current,
        ty,
        json,
    } = stored;
    if version == current {
        match json::decode(json, ty) {
            Ok(value) => Some(value),
            Err(error) => {
                diags.push(Diagnostic::error(
                    format!("Unreadable stored {what}"),
                    format!("The stored {what} does not match the current schema: {error}."),
                ));
                None
            }
        }
    } else if version > current {
        diags.push(Diagnostic::error(
            format!("{} written by a newer provider", capitalized(what)),
            format!(
                "The {what} has schema version {version} but this provider knows up to {current}. Upgrade the provider."
            ),
        ));
        None
    } else {
        upgrader(version, json, diags)
    }
}

/// `word` with its first letter upper case.
fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Checks an identity the resource produced: an object of type `ty`,
/// wholly known unless `may_be_unknown`. False after an error.
fn check_identity(
    identity: &Value,
    ty: &Type,
    may_be_unknown: bool,
    diags: &mut Diagnostics,
) -> bool {
    let problem = if identity.is_null() {
        Some("no identity".to_owned())
    } else if let Err(error) = msgpack::encode(identity, ty) {
        Some(format!(
            "an identity that does not match the identity schema: {error}"
        ))
    } else if !may_be_unknown && !identity.is_wholly_known() {
        Some("an identity with unknown values".to_owned())
    } else {
        None
    };
    if let Some(problem) = &problem {
        diags.push(Diagnostic::error(
            "Provider bug: invalid resource identity",
            format!("The provider returned {problem}."),
        ));
    }
    problem.is_none()
}

/// The schemas of `registered`, by name.
fn schemas<'a, T: ?Sized>(
    registered: &'a BTreeMap<&'static str, Registered<T>>,
) -> BTreeMap<&'static str, &'a Schema> {
    registered
        .iter()
        .map(|(name, r)| (*name, &r.schema))
        .collect()
}

/// The schema's checks, then (when they pass) the implementation's `hook`.
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
