//! `clusterproxy_fleet`: the clusters a directory of artifacts holds, keyed
//! by cluster, each with what a `clusterproxy_profile` takes and what
//! imports it, for a `for_each` over the fleet and an `import { for_each }`
//! that adopts each new cluster as it comes (Terraform >= 1.11). The scan,
//! its configuration and its diagnostics are the list resource's
//! ([`crate::provider::fleet`], [`walk::scan`]), so both take the same
//! arguments, refuse the same input and list the same clusters. Nothing in it is a secret: no password, no verifier, no
//! artifact content beyond the settings.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use crate::artifacts::walk;
use crate::domain::import::fleet;
use crate::domain::profile::Profile;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::model::{self, Field};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::convert::{self, SettingsAt};
use crate::provider::fleet::{scan_of, skipped, unimported, unlistable, ScanConfig as Config};
use crate::provider::resources::profile::identity::{self as profile_identity, Identity};
use crate::provider::resources::profile::{gives_password, imported_inputs};

/// The fleet data source.
#[derive(Debug, Clone, Copy)]
pub struct FleetDataSource;

crate::object! {
    /// One cluster: a profile's arguments, and what imports it.
    pub struct Cluster {
        /// The profile name.
        pub name: String,
        /// HTTP proxy, without credentials.
        pub http_proxy: Option<String>,
        /// HTTPS proxy, without credentials; null when it is the HTTP proxy.
        pub https_proxy: Option<String>,
        /// Proxy user name.
        pub username: Option<String>,
        /// Installation-wide NO_PROXY entries; null when there are none.
        pub no_proxy: Option<Vec<String>>,
        /// Trusted CA (PEM).
        pub trusted_ca: Option<String>,
        /// The import ID of this cluster's artifact; null when the ID syntax cannot spell it.
        pub import_id: Option<String>,
        /// The identity that imports it (Terraform >= 1.12).
        pub identity: Identity,
        /// Whether the artifact gives a password (give it as `password_wo`).
        pub password_required: bool,
        /// The fingerprint of its public settings, as `clusterproxy_profile.fingerprint`.
        pub fingerprint: String,
    }
}

crate::model! {
    pub struct State {
        pub clusters: BTreeMap<String, Cluster> [computed("The clusters, keyed by `<folder below directory>/<cluster name>`: a key stays while the cluster's artifacts stay in their folder. Each holds the `clusterproxy_profile` arguments its import gives, by their names (`name`, `http_proxy`, `https_proxy`, `username`, `no_proxy`, `trusted_ca`; null where the import leaves one unset), `import_id` for `import { id = ... }` (Terraform >= 1.11, OpenTofu), `identity` for `import { identity = ... }` (Terraform >= 1.12), `password_required` (the artifact gives a password; pass it as `password_wo`) and `fingerprint`, the profile's public-settings fingerprint, for drift checks. Never a password: the data source is not sensitive.")],
    }
}

/// The cluster `listed` is, or `None` (with a warning on `directory`) when
/// its settings make no profile.
fn cluster(listed: &fleet::Listed, diags: &mut Diagnostics) -> Option<Cluster> {
    let inputs = imported_inputs(&listed.imported);
    let directory = AttributePath::attribute(Config::directory);
    let mut findings = Diagnostics::new();
    let profile = Profile::new(&inputs.input())
        .map_err(|f| convert::push_findings(&f, &directory, SettingsAt::Profile, &mut findings))
        .ok();
    let Some(profile) = profile else {
        let reasons: Vec<String> = findings.iter().map(|d| d.detail.clone()).collect();
        diags.extend(skipped(&listed.path, &reasons.join(" ")));
        return None;
    };
    let identity = Identity::get(
        &profile_identity::of_import(&listed.id, listed.name()),
        diags,
    )?;
    Some(Cluster {
        name: listed.name().to_owned(),
        http_proxy: inputs.http_proxy,
        https_proxy: inputs.https_proxy,
        username: inputs.username,
        no_proxy: inputs.no_proxy.map(|set| set.0),
        trusted_ca: inputs.trusted_ca,
        import_id: listed.id.text(),
        identity,
        password_required: gives_password(&profile),
        fingerprint: profile.fingerprint,
    })
}

impl DataSource for FleetDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_fleet"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "The clusters whose artifacts a directory holds (a GitOps repository), keyed by cluster: the scan and the importers of the `clusterproxy_profile` list resource, as a map for `for_each`. Each cluster holds the arguments of its `clusterproxy_profile`, its import ID and identity, and its fingerprint: a configuration that creates one profile per cluster and imports each with `import { for_each = ... }` adopts every new cluster on the next plan and leaves the others alone (Terraform >= 1.11; identities >= 1.12). Artifacts the import refuses, or files that cannot be read, get a warning naming them. A file that is no artifact but sets a proxy (a `HTTP_PROXY`, `HTTPS_PROXY` or `NO_PROXY` key in any case and spelling, `httpProxy`, `Acquire::http::Proxy`..., or a `proxy` block with `http`, `https`, `no`, `host` or `url` entries, given a value, outside comments) gets a warning naming the file, each key and its line (never a value) and what the file looks like; documentation, source, build and Terraform files (`*.md`, `*.txt`, `*.go`, `*.py`, `Makefile`, `*.tf`, `*.tfvars`...) are not looked into. Holds no password.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        if let Some(config) = Config::get_planned(config, diags) {
            scan_of(&config, diags);
        }
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let scan = scan_of(&config, diags)?;
        let mut clusters = BTreeMap::new();
        let scanned = walk::scan(&scan, &mut |event| {
            match event {
                fleet::Event::Listed(listed) => {
                    if let Some(cluster) = cluster(&listed, diags) {
                        clusters.insert(listed.key.clone(), cluster);
                    }
                }
                fleet::Event::Skipped { path, reason } => diags.extend(skipped(&path, &reason)),
                fleet::Event::Unimported { path, reason } => {
                    diags.extend(unimported(&path, &reason))
                }
            }
            ControlFlow::Continue(())
        });
        if let Err(detail) = scanned {
            diags.extend(unlistable(detail));
            return None;
        }
        Some(model::computed(State { clusters }))
    }

    /// The walk of a large directory takes long, however short its
    /// configuration.
    fn runs_long(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::identity::ImportTarget;
    use crate::framework::list_resource::ListResource;
    use crate::framework::resource::{Carried, Resource};
    use crate::framework::server::Server;
    use crate::provider::list_resources::profile::ProfileList;
    use crate::provider::resources::profile::{Computed, Inputs, ProfileResource};

    /// The fleet folder's proxy passwords, decoded (tests/fixtures/fleet).
    const PASSWORDS: [&str; 2] = ["s3cr@t", "s;cret x"];

    /// The data source's configuration with `directory` and every other
    /// argument null.
    fn config_of(server: &Server, directory: &str) -> Value {
        let schema = &server.registry().data_sources()["clusterproxy_fleet"].schema;
        let mut config = Value::object(
            schema
                .attributes
                .iter()
                .map(|a| (a.name.clone(), Value::null())),
        );
        config.set_attr(Config::directory, Value::string(directory));
        config
    }

    /// Reads the data source over `directory`.
    fn read(directory: &str) -> (Option<Value>, Diagnostics) {
        let server = Server::new(&crate::provider::ClusterProxy);
        let config = config_of(&server, directory);
        let mut diags = Diagnostics::default();
        server.validate_data_resource_config("clusterproxy_fleet", &config, &mut diags);
        let state = server.read_data_source("clusterproxy_fleet", config, &mut diags);
        (state, diags)
    }

    /// What a profile import gives, as a fleet cluster holds it.
    fn imported(target: ImportTarget<'_>) -> (Inputs, Computed) {
        let mut diags = Diagnostics::new();
        let state = ProfileResource
            .import(target, &mut Carried::default(), &mut diags)
            .unwrap_or_else(|| panic!("{diags:?}"));
        let inputs = Inputs::get(&state, &mut diags).unwrap();
        let computed = Computed::get(&state, &mut diags).unwrap();
        (inputs, computed)
    }

    /// Each cluster of the fleet folder holds exactly what its import (by
    /// identity and by ID) gives the profile, keyed by folder and name;
    /// two artifacts of one cluster in one folder are one cluster; no
    /// password is anywhere in it; the refused artifact is a warning on
    /// `directory`.
    #[test]
    fn each_cluster_holds_what_its_import_gives() {
        let (state, diags) = read("tests/fixtures/fleet");
        let state = state.unwrap_or_else(|| panic!("{diags:?}"));
        let text = format!("{state:?}");
        for password in PASSWORDS {
            assert!(!text.contains(password), "{text}");
        }
        let clusters = State::get(&state, &mut Diagnostics::new())
            .unwrap()
            .clusters;
        assert!(clusters.len() > 1, "{clusters:?}");
        assert!(
            clusters.contains_key("capi/capi-prod/capi-prod"),
            "{clusters:?}"
        );
        assert!(clusters.values().any(|c| c.password_required));
        for (key, cluster) in &clusters {
            let path = cluster.identity.path.clone().unwrap();
            let folder = path
                .strip_prefix("tests/fixtures/fleet/")
                .and_then(|rel| rel.rsplit_once('/'))
                .map(|(folder, _)| folder)
                .unwrap();
            assert_eq!(key, &format!("{folder}/{}", cluster.name));
            let by_identity = imported(ImportTarget::Identity(&cluster.identity.value()));
            let id = cluster.import_id.clone().unwrap();
            let by_id = imported(ImportTarget::Id(&id));
            assert_eq!(by_identity, by_id, "{key}");
            let (inputs, computed) = by_identity;
            assert_eq!(inputs.name.as_ref(), Some(&cluster.name), "{key}");
            assert_eq!(inputs.http_proxy, cluster.http_proxy, "{key}");
            assert_eq!(inputs.https_proxy, cluster.https_proxy, "{key}");
            assert_eq!(inputs.username, cluster.username, "{key}");
            assert_eq!(inputs.no_proxy.map(|s| s.0), cluster.no_proxy, "{key}");
            assert_eq!(inputs.trusted_ca, cluster.trusted_ca, "{key}");
            assert_eq!(computed.fingerprint, cluster.fingerprint, "{key}");
            assert_eq!(
                computed.settings.password_required, cluster.password_required,
                "{key}"
            );
        }
        let warnings: Vec<String> = diags
            .iter()
            .map(|d| format!("{:?} {}", d.path, d.detail))
            .collect();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("directory") && w.contains("rke2/broken/rke2-server")),
            "{warnings:?}"
        );
    }

    /// Bad globs, kinds and facts are refused on their element with the
    /// list resource's diagnostics, and nothing is read.
    #[test]
    fn bad_arguments_are_refused_as_the_list_resource_refuses_them() {
        let server = Server::new(&crate::provider::ClusterProxy);
        let mut config = config_of(&server, "tests/fixtures/fleet");
        config.set_attr(Config::include, Value::list(vec![Value::string("[a-")]));
        config.set_attr(
            Config::exclude,
            Value::list(vec![Value::string("ok/**"), Value::string("[")]),
        );
        config.set_attr(
            Config::kinds,
            Value::map([("x/*".to_owned(), Value::string("nope"))]),
        );
        config.set_attr(
            Config::facts,
            Value::map([("y/**".to_owned(), Value::string("cloud=mars"))]),
        );
        let shown = |diags: &Diagnostics| -> Vec<String> {
            diags
                .iter()
                .map(|d| format!("{:?} {:?} {} {}", d.severity, d.path, d.summary, d.detail))
                .collect()
        };
        let mut ours = Diagnostics::new();
        server.validate_data_resource_config("clusterproxy_fleet", &config, &mut ours);
        let mut list = Diagnostics::new();
        ListResource::validate(&ProfileList, &config, &mut list);
        assert_eq!(shown(&ours), shown(&list));
        let paths: Vec<String> = ours
            .iter()
            .map(|d| d.path.as_ref().map(ToString::to_string).unwrap_or_default())
            .collect();
        assert_eq!(paths.len(), 4, "{paths:?}");
        for attribute in ["include", "exclude", "kinds", "facts"] {
            assert!(
                paths.iter().any(|p| p.starts_with(attribute)),
                "{attribute}: {paths:?}"
            );
        }
        let mut diags = Diagnostics::new();
        assert!(server
            .read_data_source("clusterproxy_fleet", config, &mut diags)
            .is_none());
        assert_eq!(shown(&diags), shown(&list));
    }

    /// A directory that is not there is an error on `directory`.
    #[test]
    fn bad_configuration_is_an_error_on_its_attribute() {
        let (state, diags) = read("tests/fixtures/no-such-fleet");
        assert!(state.is_none());
        let error = diags
            .iter()
            .find(|d| d.severity == crate::framework::diagnostics::Severity::Error)
            .unwrap();
        assert_eq!(
            error.path.as_ref().map(ToString::to_string).as_deref(),
            Some("directory")
        );
    }

    /// Files that set a proxy in a format no importer reads are a warning
    /// on `directory` each, from the data source and the list resource
    /// alike, naming the file and quoting no value; the README is quiet.
    #[test]
    fn a_proxy_setting_no_importer_reads_is_a_warning_on_directory() {
        let directory = "tests/fixtures/unimported";
        let (state, diags) = read(directory);
        assert!(state.is_some(), "{diags:?}");
        let server = Server::new(&crate::provider::ClusterProxy);
        let mut listed = Diagnostics::new();
        ProfileList.list(&config_of(&server, directory), false, &mut |event| {
            if let crate::framework::list_resource::Event::Diagnostics(d) = event {
                listed.extend(d);
            }
            ControlFlow::Continue(())
        });
        for diags in [&diags, &listed] {
            let warnings: Vec<(String, String, String)> = diags
                .iter()
                .map(|d| {
                    let path = d.path.as_ref().map(ToString::to_string).unwrap_or_default();
                    (path, d.summary.clone(), d.detail.clone())
                })
                .collect();
            // Every file of the folder's kinds, each in a folder of its own.
            let files: Vec<String> = std::fs::read_dir(directory)
                .unwrap()
                .map(|kind| kind.unwrap().path())
                .filter(|kind| kind.is_dir())
                .flat_map(|kind| std::fs::read_dir(kind).unwrap())
                .map(|file| file.unwrap().path().display().to_string())
                .collect();
            for file in &files {
                assert!(
                    warnings
                        .iter()
                        .any(|(path, summary, detail)| path == "directory"
                            && summary == "Proxy setting not imported"
                            && detail.starts_with(&format!("{file}: sets "))),
                    "{file}: {warnings:?}"
                );
            }
            assert_eq!(warnings.len(), files.len(), "{warnings:?}");
            for (_, _, detail) in &warnings {
                assert!(
                    !detail.contains("://") && !detail.contains("somepassword"),
                    "{detail}"
                );
            }
        }
    }
}
