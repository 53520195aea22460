//! `clusterproxy_profile` as a list resource: adopts a fleet. It scans a
//! directory of cluster artifacts with the fleet scan ([`walk::scan`],
//! configured by [`ScanConfig`]) and lists one profile per cluster, each with the
//! identity that imports it (`import { identity = ... }`, what
//! `terraform query -generate-config-out` writes) and, with
//! `include_resource`, the profile that import gives: the object comes from
//! the resource's own import by that identity, so the two cannot differ. It
//! never holds a password (the import keeps none in state), which matters
//! since `terraform query -json` prints objects unredacted.

use std::ops::ControlFlow;

use crate::artifacts::walk;
use crate::domain::import::{self, fleet};
use crate::framework::diagnostics::{Diagnostic, Diagnostics, Severity};
use crate::framework::identity::ImportTarget;
use crate::framework::list_resource::{Event, Found, ListResource};
use crate::framework::model::{Field, Model};
use crate::framework::resource::{Carried, Resource};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::fleet::{scan_of, skipped, unimported, unlistable, ScanConfig};
use crate::provider::resources::profile::{identity as profile_identity, ProfileResource};

/// The list resource.
#[derive(Debug, Clone, Copy)]
pub struct ProfileList;

/// The identity that imports `listed`.
fn identity(listed: &fleet::Listed) -> Value {
    profile_identity::of_import(&listed.id, listed.name())
}

/// The profile an import by `identity` gives, without its password; `None`
/// (with a warning) when the import fails now (the file changed since).
fn object(identity: &Value, path: &str, diags: &mut Diagnostics) -> Option<Value> {
    let mut import_diags = Diagnostics::new();
    let state = ProfileResource.import(
        ImportTarget::Identity(identity),
        &mut Carried::default(),
        &mut import_diags,
    );
    if import_diags.has_errors() || state.is_none() {
        let reasons: Vec<String> = import_diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.detail.clone())
            .collect();
        diags.push(Diagnostic::warning(
            "Artifact not listed",
            format!("{path}: its import failed: {}", reasons.join(" ")),
        ));
        return None;
    }
    state
}

impl ListResource for ProfileList {
    fn type_name(&self) -> &'static str {
        "clusterproxy_profile"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            &format!(
                "Lists the clusters whose artifacts a directory holds (a GitOps repository) as profiles to import: one per cluster, each file's kind told from its content and name ({}), imported as an import ID imports it. Files that are no artifact and set no proxy are passed over quietly. A file that is no artifact but sets a proxy (a `HTTP_PROXY`, `HTTPS_PROXY` or `NO_PROXY` key in any case and spelling, `httpProxy`, `Acquire::http::Proxy`..., or a `proxy` block with `http`, `https`, `no`, `host` or `url` entries, given a value, outside comments) gets a warning naming the file, each key and its line (never a value) and what the file looks like; documentation, source, build and Terraform files (`*.md`, `*.txt`, `*.go`, `*.py`, `Makefile`, `*.tf`, `*.tfvars`...) are not looked into. An artifact the import refuses (an unexpanded `${{var}}`, a placeholder CA...) or a file that cannot be read gets a warning naming it and the reason, and the listing goes on. A cluster is a folder and a name: two artifacts in one folder that name the same cluster (a Cluster and its KubeadmControlPlane side by side, a copy) give one result, and clusters that share a name in different folders are listed each. With `include_resource`, each result holds the profile the import gives, without its password. Terraform >= 1.14.",
                import::kinds().join(", ")
            ),
            ScanConfig::attributes(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        if let Some(config) = ScanConfig::get_planned(config, diags) {
            scan_of(&config, diags);
        }
    }

    fn list(
        &self,
        config: &Value,
        include_object: bool,
        emit: &mut dyn FnMut(Event) -> ControlFlow<()>,
    ) {
        let mut diags = Diagnostics::new();
        let Some(scan) = ScanConfig::get(config, &mut diags).and_then(|c| scan_of(&c, &mut diags))
        else {
            let _ = emit(Event::Diagnostics(diags));
            return;
        };
        let scanned = walk::scan(&scan, &mut |event| match event {
            fleet::Event::Listed(listed) => {
                let identity = identity(&listed);
                let object = match include_object {
                    true => {
                        let mut diags = Diagnostics::new();
                        match object(&identity, &listed.path, &mut diags) {
                            Some(object) => Some(object),
                            None => return emit(Event::Diagnostics(diags)),
                        }
                    }
                    false => None,
                };
                emit(Event::Found(Found {
                    identity,
                    display_name: listed.display_name(),
                    object,
                    diagnostics: Diagnostics::new(),
                }))
            }
            fleet::Event::Skipped { path, reason } => {
                emit(Event::Diagnostics(skipped(&path, &reason)))
            }
            fleet::Event::Unimported { path, reason } => {
                emit(Event::Diagnostics(unimported(&path, &reason)))
            }
        });
        if let Err(detail) = scanned {
            let _ = emit(Event::Diagnostics(unlistable(detail)));
        }
    }
}
