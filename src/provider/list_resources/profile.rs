//! `clusterproxy_profile` as a list resource: adopts a fleet. It scans a
//! directory of cluster artifacts with the domain's fleet scan
//! ([`fleet::scan`]) and lists one profile per cluster, each with the
//! identity that imports it (`import { identity = ... }`, what
//! `terraform query -generate-config-out` writes) and, with
//! `include_resource`, the profile that import gives: the object comes from
//! the resource's own import by that identity, so the two cannot differ. It
//! never holds a password (the import keeps none in state), which matters
//! since `terraform query -json` prints objects unredacted.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use crate::domain::import::{self, fleet};
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics, Severity};
use crate::framework::identity::ImportTarget;
use crate::framework::list_resource::{Event, Found, ListResource};
use crate::framework::model::{Field, Model};
use crate::framework::resource::{Carried, Resource};
use crate::framework::schema::{NoNullElements, NotBlank, Schema};
use crate::framework::value::Value;
use crate::provider::resources::profile::{identity as profile_identity, ProfileResource};

crate::model! {
    /// The `config` block.
    pub struct Config {
        pub directory: String [required("The directory that holds the artifacts (a GitOps repository, or a part of it), relative to the working directory or absolute. It is walked down to 32 levels, following symbolic links except those that lead back to a parent (a loop), over at most 50,000 files and directories; names starting with `.` (`.git`, `.terraform`) are passed over. Each file's path, as this attribute names it joined with its path below it, goes into the identity, so import from the same working directory.").validator(NotBlank)],
        pub include: Vec<String> [optional("Globs of the files to read, relative to `directory` (all files when unset): `*` and `?` within a name, `**` across directories (`clusters/**/*.yaml`), `[a-z]` classes; a glob without `/` matches the file's name at any depth.").validator(NoNullElements)],
        pub exclude: Vec<String> [optional("Globs of the files and directories to pass over, as `include` writes them (`secrets/**`).").validator(NoNullElements)],
        pub kinds: BTreeMap<String, String> [optional("The kind of the files a glob matches, for artifacts whose kind cannot be told from their content and name, e.g. `{ \"nodes/*/proxy\" = \"systemd\" }`; of the globs that match a file, the longest applies. Kinds as in import IDs.")],
        pub facts: BTreeMap<String, String> [optional("Import facts of the files a glob matches, in the import ID's syntax, e.g. `{ \"clusters/prod/**\" = \"pod_cidrs=10.244.0.0/16;service_cidrs=10.96.0.0/12;cloud=aws\" }` (also `node_cidrs`, `cluster_domain`, `apiserver_host`, `apiserver_ip`, `control_plane_endpoint`, `https_through_proxy=true`); of the globs that match a file, the longest applies. They go into the identity, so the import by identity classifies NO_PROXY the same way.")],
    }
}

/// The list resource.
#[derive(Debug, Clone, Copy)]
pub struct ProfileList;

/// The scan `config` describes; each bad part is an error on its attribute.
fn scan_of(config: &Config, diags: &mut Diagnostics) -> Option<fleet::Scan> {
    fleet::Scan::new(
        &config.directory,
        &config.include,
        &config.exclude,
        &config.kinds,
        &config.facts,
    )
    .map_err(|bad| {
        for bad in bad {
            let (path, detail) = match bad {
                fleet::Bad::Include(i, why) => {
                    (AttributePath::attribute(Config::include).index(i), why)
                }
                fleet::Bad::Exclude(i, why) => {
                    (AttributePath::attribute(Config::exclude).index(i), why)
                }
                fleet::Bad::Kind(glob, why) => {
                    (AttributePath::attribute(Config::kinds).key(glob), why)
                }
                fleet::Bad::Facts(glob, why) => {
                    (AttributePath::attribute(Config::facts).key(glob), why)
                }
            };
            diags.push(Diagnostic::error("Invalid list configuration", detail).at(path));
        }
    })
    .ok()
}

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
                "Lists the clusters whose artifacts a directory holds (a GitOps repository) as profiles to import: one per cluster, each file's kind told from its content and name ({}), imported as an import ID imports it. Files that are no artifact are passed over quietly; an artifact the import refuses (an unexpanded `${{var}}`, a placeholder CA...) or a file that cannot be read gets a warning naming it and the reason, and the listing goes on. Two artifacts of one cluster (a Cluster and its KubeadmControlPlane side by side, a copy) give one result. With `include_resource`, each result holds the profile the import gives, without its password. Terraform >= 1.14.",
                import::kinds().join(", ")
            ),
            Config::attributes(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        if let Some(config) = Config::get_planned(config, diags) {
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
        let Some(scan) = Config::get(config, &mut diags).and_then(|c| scan_of(&c, &mut diags))
        else {
            let _ = emit(Event::Diagnostics(diags));
            return;
        };
        let scanned = fleet::scan(&scan, &mut |event| match event {
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
                }))
            }
            fleet::Event::Skipped { path, reason } => {
                let mut diags = Diagnostics::new();
                diags.push(
                    Diagnostic::warning("Artifact not listed", format!("{path}: {reason}"))
                        .at(AttributePath::attribute(Config::directory)),
                );
                emit(Event::Diagnostics(diags))
            }
        });
        if let Err(detail) = scanned {
            let mut diags = Diagnostics::new();
            diags.push(
                Diagnostic::error("Cannot list the directory", detail)
                    .at(AttributePath::attribute(Config::directory)),
            );
            let _ = emit(Event::Diagnostics(diags));
        }
    }
}
