//! The provider's own RPCs: GetMetadata, GetProviderSchema,
//! ValidateProviderConfig, ConfigureProvider and StopProvider.

use super::rpc::{Object, Ran};
use super::{action, ephemeral, list, ProviderServer};
use crate::proto::{self, schema_to_proto};
use crate::server::guard::{self, Subject};
use crate::server::{Metadata, ProviderSchema};

impl ProviderServer {
    /// GetMetadata: the names of everything the provider offers.
    pub(super) fn metadata(
        &self,
        request: proto::get_metadata::Request,
    ) -> proto::get_metadata::Response {
        let ran = Ran::run("GetMetadata", Subject::Provider, &request, |_| {
            Some(self.server.get_metadata())
        });
        let (metadata, diagnostics) = ran.regardless();
        let metadata = metadata.unwrap_or_else(|| Metadata {
            resources: Vec::new(),
            data_sources: Vec::new(),
            functions: Vec::new(),
        });
        proto::get_metadata::Response {
            server_capabilities: Some(proto::capabilities()),
            diagnostics,
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
            list_resources: list::metadata(self.server.registry()),
            actions: action::metadata(self.server.registry()),
        }
    }

    /// GetProviderSchema: every schema and function signature.
    pub(super) fn provider_schema(
        &self,
        request: proto::get_provider_schema::Request,
    ) -> proto::get_provider_schema::Response {
        let ran = Ran::run("GetProviderSchema", Subject::Provider, &request, |_| {
            Some(provider_schema(&self.server.get_provider_schema()))
        });
        let (response, diagnostics) = ran.regardless();
        let mut response = response.unwrap_or_default();
        response.ephemeral_resource_schemas = ephemeral::schemas(self.server.registry());
        response.list_resource_schemas = list::schemas(self.server.registry());
        response.action_schemas = action::schemas(self.server.registry());
        response.diagnostics.extend(diagnostics);
        response
    }

    /// ValidateProviderConfig: the schema's checks.
    pub(super) fn validate_provider(
        &self,
        request: proto::validate_provider_config::Request,
    ) -> proto::validate_provider_config::Response {
        let diagnostics = Ran::check(
            "ValidateProviderConfig",
            Subject::Provider,
            &request,
            |diags| {
                let config = self.config(Object::Provider, request.config.as_ref(), diags)?;
                self.server.validate_provider_config(&config, diags);
                Some(())
            },
        );
        proto::validate_provider_config::Response { diagnostics }
    }

    /// ConfigureProvider: the configuration is checked as
    /// ValidateProviderConfig does.
    pub(super) fn configure(
        &self,
        request: proto::configure_provider::Request,
    ) -> proto::configure_provider::Response {
        let diagnostics = Ran::check("ConfigureProvider", Subject::Provider, &request, |diags| {
            let config = self.config(Object::Provider, request.config.as_ref(), diags)?;
            self.server
                .configure_provider(&request.terraform_version, &config, diags);
            Some(())
        });
        proto::configure_provider::Response { diagnostics }
    }

    /// StopProvider: cancels every request in flight; it is never cancelled
    /// itself.
    pub(super) fn stop(
        &self,
        _request: proto::stop_provider::Request,
    ) -> proto::stop_provider::Response {
        let ran: Ran<()> = guard::run_to_completion("StopProvider", Subject::Provider, 0, |_| {
            self.server.stop_provider();
            Some(())
        })
        .into();
        let error = match ran.result {
            Some(()) => String::new(),
            None => ran.details(),
        };
        proto::stop_provider::Response { error }
    }
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
        list_resource_schemas: Default::default(),
        action_schemas: Default::default(),
        diagnostics: Vec::new(),
        provider_meta: None,
        server_capabilities: Some(proto::capabilities()),
    }
}
