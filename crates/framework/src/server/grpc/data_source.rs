//! The data source RPCs: ValidateDataResourceConfig and ReadDataSource.

use prost::Message as _;

use super::rpc::{Object, Ran};
use super::ProviderServer;
use crate::proto;
use crate::server::guard::{self, Subject};

impl ProviderServer {
    /// ValidateDataResourceConfig: the schema's checks, then the data
    /// source's.
    pub(super) fn validate_data_source(
        &self,
        request: proto::validate_data_resource_config::Request,
    ) -> proto::validate_data_resource_config::Response {
        let name = &request.type_name;
        let diagnostics = Ran::check(
            "ValidateDataResourceConfig",
            Subject::DataSource(name),
            &request,
            |diags| {
                let config =
                    self.config(Object::DataSource(name), request.config.as_ref(), diags)?;
                self.server
                    .validate_data_resource_config(name, &config, diags);
                Some(())
            },
        );
        proto::validate_data_resource_config::Response { diagnostics }
    }

    /// ReadDataSource: the data source's state for its configuration, on a
    /// thread of its own unless the request is small and the read does not
    /// run long ([`guard::abandonable`]: a read its client drops is
    /// cancelled).
    pub(super) async fn read_data(
        &self,
        request: proto::read_data_source::Request,
    ) -> proto::read_data_source::Response {
        let request_bytes = request.encoded_len();
        let name = request.type_name.clone();
        let long = self
            .server
            .registry()
            .data_sources()
            .get(name.as_str())
            .is_some_and(|d| d.implementation.runs_long());
        let subject = if long {
            Subject::LongDataSource(&name)
        } else {
            Subject::DataSource(&name)
        };
        let server = self.clone();
        guard::abandonable(subject, request_bytes, move || {
            server.read_data_now(request, request_bytes)
        })
        .await
    }

    /// ReadDataSource's handler, run where [`guard::abandonable`] placed
    /// it. The request's wire form is dropped once decoded, and the decoded
    /// configuration (moved into the state) once the state is encoded, so
    /// that no two forms of a large value are held longer than needed.
    fn read_data_now(
        &self,
        mut request: proto::read_data_source::Request,
        request_bytes: usize,
    ) -> proto::read_data_source::Response {
        let wire = request.config.take();
        let name = &request.type_name;
        let ran = Ran::run_sized(
            "ReadDataSource",
            Subject::DataSource(name),
            request_bytes,
            |diags| {
                let object = Object::DataSource(name);
                let config = self.config(object, wire.as_ref(), diags);
                drop(wire);
                let state = self.server.read_data_source(name, config?, diags)?;
                self.encode(object, &state, diags)
            },
        );
        let (state, diagnostics) = ran.succeeded();
        proto::read_data_source::Response { state, diagnostics }
    }
}
