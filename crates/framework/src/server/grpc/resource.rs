//! The managed resource RPCs: ValidateResourceConfig, UpgradeResourceState,
//! ReadResource, PlanResourceChange, ApplyResourceChange and
//! ImportResourceState, each with the identity of its object, and the
//! identity RPCs GetResourceIdentitySchemas and UpgradeResourceIdentity.

use super::rpc::{Object, Ran};
use super::ProviderServer;
use crate::identity::ImportTarget;
use crate::proto::{self, identity_schema_to_proto, path_to_proto};
use crate::resource::{Carried, Private};
use crate::server::guard::Subject;
use crate::server::{
    ApplyResourceChange, PlanResourceChange, UpgradeResourceIdentity, UpgradeResourceState,
};

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

    /// ReadResource: the refreshed state and its identity; the private
    /// state is kept.
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
            let mut carried = Carried {
                identity: self.identity_in(name, request.current_identity.as_ref(), diags)?,
                ..Carried::default()
            };
            let new_state =
                self.server
                    .read_resource_carrying(name, &current, &mut carried, diags)?;
            let identity = self.identity_out(name, &carried.identity, diags)?;
            Some((self.encode(object, &new_state, diags)?, identity))
        });
        // On error Terraform keeps the prior state.
        let (read, diagnostics) = ran.succeeded();
        let (new_state, new_identity) = read.unzip();
        proto::read_resource::Response {
            new_state,
            diagnostics,
            private: request.private,
            new_identity: new_identity.flatten(),
        }
    }

    /// PlanResourceChange: the planned state, what forces replacement, and
    /// the planned private state and identity.
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
                let mut carried = Carried {
                    private: Private::decode(&request.prior_private, diags)?,
                    identity: self.identity_in(name, request.prior_identity.as_ref(), diags)?,
                };
                let planned = self.server.plan_resource_change_carrying(
                    PlanResourceChange {
                        type_name: name,
                        prior_state,
                        proposed_new_state,
                        config,
                    },
                    &mut carried,
                    diags,
                )?;
                let state = self.encode(object, &planned.planned_state, diags)?;
                let identity = self.identity_out(name, &carried.identity, diags)?;
                Some((state, planned.requires_replace, carried.private, identity))
            },
        );
        let (planned, diagnostics) = ran.succeeded();
        let Some((planned_state, requires_replace, private, identity)) = planned else {
            return proto::plan_resource_change::Response {
                planned_state: None,
                requires_replace: Vec::new(),
                planned_private: request.prior_private,
                diagnostics,
                planned_identity: request.prior_identity,
            };
        };
        proto::plan_resource_change::Response {
            planned_state: Some(planned_state),
            requires_replace: requires_replace.iter().map(path_to_proto).collect(),
            planned_private: private.encode(),
            diagnostics,
            planned_identity: identity,
        }
    }

    /// ApplyResourceChange: the new state, private state and identity; on
    /// failure the prior state.
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
                let mut carried = Carried {
                    private: Private::decode(&request.planned_private, diags)?,
                    identity: self.identity_in(name, request.planned_identity.as_ref(), diags)?,
                };
                let new_state = self.server.apply_resource_change_carrying(
                    ApplyResourceChange {
                        type_name: name,
                        prior_state,
                        planned_state,
                        config,
                    },
                    &mut carried,
                    diags,
                )?;
                let identity = self.identity_out(name, &carried.identity, diags)?;
                Some((
                    self.encode(object, &new_state, diags)?,
                    carried.private,
                    identity,
                ))
            },
        );
        let failed = ran.failed();
        let (applied, diagnostics) = ran.regardless();
        let (state, private, identity) = match applied {
            Some((state, private, identity)) => (Some(state), private.encode(), identity),
            None => (None, request.planned_private, request.planned_identity),
        };
        proto::apply_resource_change::Response {
            // On failure the prior state stays authoritative: Terraform keeps
            // it when new_state is absent, so nothing is lost.
            new_state: if failed { request.prior_state } else { state },
            private,
            diagnostics,
            new_identity: identity,
        }
    }

    /// ImportResourceState: the object `id` (or, when Terraform sends one,
    /// the identity) designates, with its private state and identity.
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
                let identity = match &request.identity {
                    Some(identity) => Some(self.identity_in(name, Some(identity), diags)?),
                    None => None,
                };
                let target = match &identity {
                    Some(identity) => ImportTarget::Identity(identity),
                    None => ImportTarget::Id(&request.id),
                };
                let mut carried = Carried::default();
                let imported = self.server.import_resource_state_carrying(
                    name,
                    target,
                    &mut carried,
                    diags,
                )?;
                let identity = self.identity_out(name, &carried.identity, diags)?;
                Some((
                    self.encode(Object::Resource(name), &imported, diags)?,
                    carried.private,
                    identity,
                ))
            },
        );
        let (imported, diagnostics) = ran.succeeded();
        proto::import_resource_state::Response {
            imported_resources: imported
                .map(
                    |(state, private, identity)| proto::import_resource_state::ImportedResource {
                        type_name: request.type_name,
                        state: Some(state),
                        private: private.encode(),
                        identity,
                    },
                )
                .into_iter()
                .collect(),
            diagnostics,
        }
    }

    /// GetResourceIdentitySchemas: the identity schema of every resource
    /// type that has one.
    pub(super) fn identity_schemas(
        &self,
        request: proto::get_resource_identity_schemas::Request,
    ) -> proto::get_resource_identity_schemas::Response {
        let ran = Ran::run(
            "GetResourceIdentitySchemas",
            Subject::Provider,
            &request,
            |_| {
                Some(
                    self.server
                        .get_resource_identity_schemas()
                        .into_iter()
                        .map(|(name, schema)| (name.to_owned(), identity_schema_to_proto(schema)))
                        .collect(),
                )
            },
        );
        let (identity_schemas, diagnostics) = ran.regardless();
        proto::get_resource_identity_schemas::Response {
            identity_schemas: identity_schemas.unwrap_or_default(),
            diagnostics,
        }
    }

    /// UpgradeResourceIdentity: the stored JSON identity, upgraded to the
    /// current identity schema.
    pub(super) fn upgrade_identity(
        &self,
        request: proto::upgrade_resource_identity::Request,
    ) -> proto::upgrade_resource_identity::Response {
        let name = &request.type_name;
        let ran = Ran::run(
            "UpgradeResourceIdentity",
            Subject::Resource(name),
            &request,
            |diags| {
                let raw = request.raw_identity.as_ref().map(|r| r.json.as_slice());
                let upgraded = self.server.upgrade_resource_identity(
                    UpgradeResourceIdentity {
                        type_name: name,
                        version: request.version,
                        raw_json: raw.unwrap_or_default(),
                    },
                    diags,
                )?;
                let upgraded = self.peer_identity(name, upgraded, diags)?;
                self.identity_out(name, &upgraded, diags)
            },
        );
        let (upgraded_identity, diagnostics) = ran.succeeded();
        proto::upgrade_resource_identity::Response {
            upgraded_identity: upgraded_identity.flatten(),
            diagnostics,
        }
    }
}
