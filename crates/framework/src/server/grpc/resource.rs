//! The managed resource RPCs: ValidateResourceConfig, UpgradeResourceState,
//! ReadResource, PlanResourceChange, ApplyResourceChange and
//! ImportResourceState.

use super::rpc::{Object, Ran};
use super::ProviderServer;
use crate::proto::{self, path_to_proto};
use crate::resource::Private;
use crate::server::guard::Subject;
use crate::server::{ApplyResourceChange, PlanResourceChange, UpgradeResourceState};

impl ProviderServer {
    /// ValidateResourceConfig: a write-only value is allowed only when the
    /// client says so.
    pub(super) fn validate_resource(
        &self,
        request: proto::validate_resource_config::Request,
    ) -> proto::validate_resource_config::Response {
        let name = &request.type_name;
        let diagnostics = Ran::check(
            "ValidateResourceConfig",
            Subject::Resource(name),
            &request,
            |diags| {
                let config = self.config(Object::Resource(name), request.config.as_ref(), diags)?;
                let write_only_allowed = request
                    .client_capabilities
                    .as_ref()
                    .is_some_and(|c| c.write_only_attributes_allowed);
                self.server
                    .validate_resource_config(name, &config, write_only_allowed, diags);
                Some(())
            },
        );
        proto::validate_resource_config::Response { diagnostics }
    }

    /// UpgradeResourceState: the stored JSON state, upgraded to the current
    /// schema.
    pub(super) fn upgrade(
        &self,
        request: proto::upgrade_resource_state::Request,
    ) -> proto::upgrade_resource_state::Response {
        let name = &request.type_name;
        let ran = Ran::run(
            "UpgradeResourceState",
            Subject::Resource(name),
            &request,
            |diags| {
                let raw = request.raw_state.as_ref().map(|r| r.json.as_slice());
                let upgraded = self.server.upgrade_resource_state(
                    UpgradeResourceState {
                        type_name: name,
                        version: request.version,
                        raw_json: raw.unwrap_or_default(),
                    },
                    diags,
                )?;
                self.encode(Object::Resource(name), &upgraded, diags)
            },
        );
        let (upgraded_state, diagnostics) = ran.regardless();
        proto::upgrade_resource_state::Response {
            upgraded_state,
            diagnostics,
        }
    }

    /// ReadResource: the refreshed state; the private state is kept.
    pub(super) fn read(
        &self,
        request: proto::read_resource::Request,
    ) -> proto::read_resource::Response {
        let name = &request.type_name;
        let ran = Ran::run("ReadResource", Subject::Resource(name), &request, |diags| {
            let object = Object::Resource(name);
            let [current] = self.decode(
                object,
                [(request.current_state.as_ref(), "current state")],
                diags,
            )?;
            let new_state = self.server.read_resource(name, &current, diags)?;
            self.encode(object, &new_state, diags)
        });
        // On error Terraform keeps the prior state.
        let (new_state, diagnostics) = ran.succeeded();
        proto::read_resource::Response {
            new_state,
            diagnostics,
            private: request.private,
            new_identity: None,
        }
    }

    /// PlanResourceChange: the planned state, what forces replacement, and
    /// the planned private state.
    pub(super) fn plan(
        &self,
        request: proto::plan_resource_change::Request,
    ) -> proto::plan_resource_change::Response {
        let name = &request.type_name;
        let ran = Ran::run(
            "PlanResourceChange",
            Subject::Resource(name),
            &request,
            |diags| {
                let object = Object::Resource(name);
                let [prior_state, proposed_new_state, config] = self.decode(
                    object,
                    [
                        (request.prior_state.as_ref(), "prior state"),
                        (request.proposed_new_state.as_ref(), "proposed state"),
                        (request.config.as_ref(), "configuration"),
                    ],
                    diags,
                )?;
                let mut private = Private::decode(&request.prior_private, diags)?;
                let planned = self.server.plan_resource_change_with_private(
                    PlanResourceChange {
                        type_name: name,
                        prior_state,
                        proposed_new_state,
                        config,
                    },
                    &mut private,
                    diags,
                )?;
                let state = self.encode(object, &planned.planned_state, diags)?;
                Some((state, planned.requires_replace, private))
            },
        );
        let (planned, diagnostics) = ran.succeeded();
        let Some((planned_state, requires_replace, private)) = planned else {
            return proto::plan_resource_change::Response {
                planned_state: None,
                requires_replace: Vec::new(),
                planned_private: request.prior_private,
                diagnostics,
                planned_identity: None,
            };
        };
        proto::plan_resource_change::Response {
            planned_state: Some(planned_state),
            requires_replace: requires_replace.iter().map(path_to_proto).collect(),
            planned_private: private.encode(),
            diagnostics,
            planned_identity: None,
        }
    }

    /// ApplyResourceChange: the new state and private state; on failure the
    /// prior state.
    pub(super) fn apply(
        &self,
        request: proto::apply_resource_change::Request,
    ) -> proto::apply_resource_change::Response {
        let name = &request.type_name;
        let ran = Ran::run(
            "ApplyResourceChange",
            Subject::Resource(name),
            &request,
            |diags| {
                let object = Object::Resource(name);
                let [prior_state, planned_state, config] = self.decode(
                    object,
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
                Some((self.encode(object, &new_state, diags)?, private))
            },
        );
        let failed = ran.failed();
        let (applied, diagnostics) = ran.regardless();
        let (state, private) = match applied {
            Some((state, private)) => (Some(state), private.encode()),
            None => (None, request.planned_private),
        };
        proto::apply_resource_change::Response {
            // On failure the prior state stays authoritative: Terraform keeps
            // it when new_state is absent, so nothing is lost.
            new_state: if failed { request.prior_state } else { state },
            private,
            diagnostics,
            new_identity: None,
        }
    }

    /// ImportResourceState: the object `id` designates, with its private
    /// state.
    pub(super) fn import(
        &self,
        request: proto::import_resource_state::Request,
    ) -> proto::import_resource_state::Response {
        let name = &request.type_name;
        let ran = Ran::run(
            "ImportResourceState",
            Subject::Resource(name),
            &request,
            |diags| {
                let mut private = Private::default();
                let imported = self.server.import_resource_state_with_private(
                    name,
                    &request.id,
                    &mut private,
                    diags,
                )?;
                Some((
                    self.encode(Object::Resource(name), &imported, diags)?,
                    private,
                ))
            },
        );
        let (imported, diagnostics) = ran.succeeded();
        proto::import_resource_state::Response {
            imported_resources: imported
                .map(
                    |(state, private)| proto::import_resource_state::ImportedResource {
                        type_name: request.type_name,
                        state: Some(state),
                        private: private.encode(),
                        identity: None,
                    },
                )
                .into_iter()
                .collect(),
            diagnostics,
        }
    }
}
