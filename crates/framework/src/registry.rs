//! The type registry: what a [`Provider`] offers, by name, with every schema
//! and object type computed once.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::action::Action;
use super::data_source::DataSource;
use super::diagnostics::{Diagnostic, Diagnostics};
use super::ephemeral_resource::EphemeralResource;
use super::function::Function;
use super::identity::IdentitySchema;
use super::list_resource::ListResource;
use super::provider::Provider;
use super::resource::Resource;
use super::schema::Schema;
use super::value::Type;

/// One registered resource, data source, ephemeral resource, list resource
/// or action type.
pub struct Registered<T: ?Sized> {
    /// The provider's implementation of the type.
    pub implementation: Arc<T>,
    /// Its schema, computed once when the registry is built.
    pub schema: Schema,
    /// The object type of its configuration and state.
    pub object_type: Type,
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

/// The identity schema of a resource type and the object type of its
/// identities, computed once.
pub struct Identity {
    /// The identity schema.
    pub schema: IdentitySchema,
    /// The object type of identities.
    pub object_type: Type,
}

impl Identity {
    fn new(schema: IdentitySchema) -> Self {
        let object_type = schema.object_type();
        Self {
            schema,
            object_type,
        }
    }
}

/// The provider's configuration schema, resource types (with their
/// identity schemas), data source types,
/// ephemeral resource types and functions, each by name.
pub struct Registry {
    provider_schema: Schema,
    provider_type: Type,
    resources: BTreeMap<&'static str, Registered<dyn Resource>>,
    identities: BTreeMap<&'static str, Identity>,
    data_sources: BTreeMap<&'static str, Registered<dyn DataSource>>,
    ephemeral_resources: BTreeMap<&'static str, Registered<dyn EphemeralResource>>,
    functions: BTreeMap<&'static str, Arc<dyn Function>>,
    list_resources: BTreeMap<&'static str, Registered<dyn ListResource>>,
    actions: BTreeMap<&'static str, Registered<dyn Action>>,
}

impl Registry {
    /// Registers everything `provider` offers, computing every schema once.
    pub fn new(provider: &dyn Provider) -> Self {
        let provider_schema = provider.schema();
        let resources = provider.resources();
        Self {
            provider_type: provider_schema.object_type(),
            provider_schema,
            identities: resources
                .iter()
                .filter_map(|r| Some((r.type_name(), Identity::new(r.identity_schema()?))))
                .collect(),
            resources: resources
                .into_iter()
                .map(|r| (r.type_name(), Registered::new(r.clone(), r.schema())))
                .collect(),
            data_sources: provider
                .data_sources()
                .into_iter()
                .map(|d| (d.type_name(), Registered::new(d.clone(), d.schema())))
                .collect(),
            ephemeral_resources: provider
                .ephemeral_resources()
                .into_iter()
                .map(|e| (e.type_name(), Registered::new(e.clone(), e.schema())))
                .collect(),
            functions: provider
                .functions()
                .into_iter()
                .map(|f| (f.name(), f))
                .collect(),
            list_resources: provider
                .list_resources()
                .into_iter()
                .map(|l| (l.type_name(), Registered::new(l.clone(), l.schema())))
                .collect(),
            actions: provider
                .actions()
                .into_iter()
                .map(|a| (a.type_name(), Registered::new(a.clone(), a.schema())))
                .collect(),
        }
    }

    /// The provider configuration schema.
    pub fn provider_schema(&self) -> &Schema {
        &self.provider_schema
    }

    /// The object type of the provider configuration.
    pub fn provider_type(&self) -> &Type {
        &self.provider_type
    }

    /// Resource types by name.
    pub fn resources(&self) -> &BTreeMap<&'static str, Registered<dyn Resource>> {
        &self.resources
    }

    /// The identity schemas of the resource types that have one, by name.
    pub fn identities(&self) -> &BTreeMap<&'static str, Identity> {
        &self.identities
    }

    /// The identity of resource type `name`, or an error diagnostic when
    /// it has none.
    pub fn identity(&self, name: &str, diags: &mut Diagnostics) -> Option<&Identity> {
        let found = self.identities.get(name);
        if found.is_none() {
            diags.push(Diagnostic::error(
                "Resource identity not supported",
                format!("This provider has no resource identity for {name:?}: import it by ID."),
            ));
        }
        found
    }

    /// Data source types by name.
    pub fn data_sources(&self) -> &BTreeMap<&'static str, Registered<dyn DataSource>> {
        &self.data_sources
    }

    /// Ephemeral resource types by name.
    pub fn ephemeral_resources(
        &self,
    ) -> &BTreeMap<&'static str, Registered<dyn EphemeralResource>> {
        &self.ephemeral_resources
    }

    /// Functions by name.
    pub fn functions(&self) -> &BTreeMap<&'static str, Arc<dyn Function>> {
        &self.functions
    }

    /// List resource types by name.
    pub fn list_resources(&self) -> &BTreeMap<&'static str, Registered<dyn ListResource>> {
        &self.list_resources
    }

    /// Actions by name.
    pub fn actions(&self) -> &BTreeMap<&'static str, Registered<dyn Action>> {
        &self.actions
    }

    /// The action type `name`, or an error diagnostic.
    pub fn action(&self, name: &str, diags: &mut Diagnostics) -> Option<&Registered<dyn Action>> {
        let found = self.actions.get(name);
        if found.is_none() {
            diags.push(Diagnostic::error(
                "Unknown action type",
                format!("This provider has no action type {name:?}."),
            ));
        }
        found
    }

    /// The list resource type `name`, or an error diagnostic.
    pub fn list_resource(
        &self,
        name: &str,
        diags: &mut Diagnostics,
    ) -> Option<&Registered<dyn ListResource>> {
        let found = self.list_resources.get(name);
        if found.is_none() {
            diags.push(Diagnostic::error(
                "Unknown list resource type",
                format!("This provider has no list resource type {name:?}."),
            ));
        }
        found
    }

    /// The resource type `name`, or an error diagnostic.
    pub fn resource(
        &self,
        name: &str,
        diags: &mut Diagnostics,
    ) -> Option<&Registered<dyn Resource>> {
        let found = self.resources.get(name);
        if found.is_none() {
            diags.push(Diagnostic::error(
                "Unknown resource type",
                format!("This provider has no resource type {name:?}."),
            ));
        }
        found
    }

    /// The data source type `name`, or an error diagnostic.
    pub fn data_source(
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

    /// The ephemeral resource type `name`, or an error diagnostic.
    pub fn ephemeral_resource(
        &self,
        name: &str,
        diags: &mut Diagnostics,
    ) -> Option<&Registered<dyn EphemeralResource>> {
        let found = self.ephemeral_resources.get(name);
        if found.is_none() {
            diags.push(Diagnostic::error(
                "Unknown ephemeral resource type",
                format!("This provider has no ephemeral resource type {name:?}."),
            ));
        }
        found
    }
}
