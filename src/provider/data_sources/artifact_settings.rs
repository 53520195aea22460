//! `clusterproxy_artifact_settings`: the proxy settings a cluster artifact
//! holds, read without managing anything, and whether they are what a
//! profile renders for the cluster (drift reports).

use crate::domain::import::{self, drift};
use crate::domain::profile::Profile;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::model::{self, Field};
use crate::framework::schema::{OneOf, Schema};
use crate::framework::value::Value;
use crate::provider::convert::{self, SettingsAt};
use crate::provider::inputs::{ClusterInputs, Settings};

/// Reads the proxy settings of a cluster artifact and reports drift from a profile.
#[derive(Debug, Clone, Copy)]
pub struct ArtifactSettingsDataSource;

crate::model! {
    pub struct Config {
        pub kind: String [required(&format!("Artifact kind: {}.", import::described_kinds())).validator(OneOf(import::kinds()))],
        pub content: String [required("The artifact's text, e.g. `file(\"cluster-config.yaml\")`, at most 4 MiB. Sensitive: artifacts often hold proxy credentials.").sensitive()],
        pub profile: Option<Settings> [optional("The `settings` of the `clusterproxy_profile` the artifact was rendered from. When set, `in_sync` and `differences` compare the artifact with what the renderers write from it for this cluster (give the same cluster inputs as the renderer).").sensitive()],
        /// The renderers' cluster inputs, minus `installation` (the profile's list).
        pub cluster: ClusterInputs [embed],
    }
}

crate::object! {
    /// A NO_PROXY entry left out.
    pub struct Dropped {
        /// The entry, normalised.
        pub entry: String,
        /// Why it is cluster-specific (the input that adds it back) or redundant.
        pub reason: String,
    }
}

crate::model! {
    pub struct State {
        pub name: String [computed("The cluster's name when the artifact has one, else the kind.")],
        pub http_proxy: Option<String> [computed("HTTP proxy, without credentials, spelt as the artifact writes it (`http://` added when it has no scheme).")],
        pub https_proxy: Option<String> [computed("HTTPS proxy, without credentials, spelt as the artifact writes it; null when the artifact sets none (its clients then send HTTPS direct).")],
        pub username: Option<String> [computed("Proxy user name.")],
        pub password: Option<String> [computed("Proxy password, for the profile's `password`, which takes no Secret reference.").sensitive()],
        pub no_proxy: Vec<String> [computed("Installation-wide NO_PROXY entries, normalised: what is left after the entries the renderers add from the cluster inputs (or the platform adds itself) are taken out.")],
        pub dropped: Vec<Dropped> [computed("NO_PROXY entries left out as cluster-specific or redundant, with the reason.")],
        pub trusted_ca: Option<String> [computed("Trusted CA (PEM).")],
        pub warnings: Vec<String> [computed("What was read differently from how the artifact writes it (e.g. a proxy URL without a scheme), CIDR blocks that could not be classified, and with a `profile` that gives no password while the artifact has one, `password not compared`.")],
        pub fingerprint: String [computed("Fingerprint of the effective settings, computed as `clusterproxy_profile.fingerprint`.")],
        pub in_sync: Option<bool> [computed("With `profile`: true when the artifact holds exactly what the renderers write from the profile for these cluster inputs. Null without `profile`.")],
        pub differences: Vec<String> [computed("With `profile`: one line per field that differs (`http_proxy`, `https_proxy`, `username`, `password`, `no_proxy`, `trusted_ca`), naming the entries that differ; passwords are compared, never shown, and only when `profile` gives one. Empty when in sync or without `profile`.")],
    }
}

impl DataSource for ArtifactSettingsDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_artifact_settings"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Reads the proxy settings from a cluster artifact, the same artifacts `clusterproxy_profile` imports, without managing anything. With `profile` and the renderer's cluster inputs, reports whether the artifact (e.g. a node's drop-in) still holds what Terraform rendered: `in_sync`, and the `differences` by field.",
            model::attributes::<Config, State>(),
        )
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let content_path = AttributePath::attribute(Config::content);
        let profile_path = AttributePath::attribute(Config::profile);
        let facts = config.cluster.cluster(Vec::new());
        // Each attribute is checked before any error returns, so that every
        // bad one is reported.
        let expected = config.profile.as_ref().map(|p| p.input());
        let expected_ok = expected.as_ref().is_none_or(|e| {
            Profile::new(e)
                .map_err(|findings| {
                    convert::push_findings(&findings, &profile_path, SettingsAt::Profile, diags)
                })
                .is_ok()
        });
        let imported = import::parse_with(&config.kind, &config.content, &facts)
            .map_err(|findings| {
                convert::push_findings(&findings, &content_path, SettingsAt::Profile, diags)
            })
            .ok()
            .filter(|_| expected_ok)?;
        let profile = Profile::new(&imported.input())
            .map_err(|findings| {
                convert::push_findings(&findings, &content_path, SettingsAt::Profile, diags)
            })
            .ok()?;
        let mut warnings = imported.warnings.clone();
        if expected
            .as_ref()
            .is_some_and(|e| drift::password_not_compared(&imported, e))
        {
            warnings.push("password not compared: `profile` gives none (a profile's `settings` never hold it); give it with `merge(clusterproxy_profile.x.settings, { password = ... })` to compare it.".to_owned());
        }
        let (in_sync, differences) = match &expected {
            None => (None, Vec::new()),
            Some(expected) => {
                let found = drift::differences(&imported, expected)
                    .map_err(|findings| {
                        convert::push_findings(&findings, &profile_path, SettingsAt::Profile, diags)
                    })
                    .ok()?;
                (Some(found.is_empty()), found)
            }
        };
        Some(model::computed(State {
            name: imported.name.clone(),
            http_proxy: imported.http_proxy.clone(),
            https_proxy: imported.https_proxy.clone(),
            username: imported.username.clone(),
            password: imported.password.clone(),
            no_proxy: imported.no_proxy.clone(),
            dropped: imported
                .dropped
                .iter()
                .map(|d| Dropped {
                    entry: d.entry.clone(),
                    reason: d.reason.clone(),
                })
                .collect(),
            trusted_ca: imported.trusted_ca.clone(),
            warnings,
            fingerprint: profile.fingerprint.clone(),
            in_sync,
            differences,
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::framework::diagnostics::Diagnostics;
    use crate::framework::server::Server;
    use crate::framework::value::Value;

    /// A configuration of the data source with every attribute null but
    /// `kind` systemd and `content`.
    fn config(server: &Server, content: &str) -> Value {
        let schema = &server.registry().data_sources()["clusterproxy_artifact_settings"].schema;
        let mut config = Value::object(
            schema
                .attributes
                .iter()
                .map(|a| (a.name.clone(), Value::null())),
        );
        config.set_attr("kind", Value::string("systemd"));
        config.set_attr("content", Value::string(content));
        config
    }

    /// Two bad attributes give two diagnostics, each on its attribute: an
    /// artifact that cannot be read and a `profile` that is no profile.
    #[test]
    fn two_bad_attributes_give_two_diagnostics() {
        let name = "clusterproxy_artifact_settings";
        let server = Server::new(&crate::provider::ClusterProxy);
        let mut config = config(&server, "[Service]\n");
        let profile = Value::object([
            (
                "http_proxy".to_owned(),
                Value::string("ftp://proxy.example"),
            ),
            ("https_proxy".to_owned(), Value::null()),
            ("username".to_owned(), Value::null()),
            ("password".to_owned(), Value::null()),
            ("no_proxy".to_owned(), Value::list(Vec::new())),
            ("trusted_ca".to_owned(), Value::null()),
        ]);
        config.set_attr("profile", profile);
        let mut diags = Diagnostics::default();
        server.validate_data_resource_config(name, &config, &mut diags);
        assert!(!diags.has_errors(), "{diags:?}");
        assert!(server.read_data_source(name, config, &mut diags).is_none());
        let paths: Vec<String> = diags
            .iter()
            .map(|d| d.path.as_ref().map(ToString::to_string).unwrap_or_default())
            .collect();
        assert!(
            paths.iter().any(|p| p.starts_with("content"))
                && paths.iter().any(|p| p.starts_with("profile")),
            "{diags:?}"
        );
    }

    /// A `profile` without a password (what a profile's `settings` hold)
    /// against an artifact with one: in sync, and the warnings say the
    /// password was not compared; never "password differs".
    #[test]
    fn a_profile_without_a_password_leaves_it_uncompared() {
        let name = "clusterproxy_artifact_settings";
        let server = Server::new(&crate::provider::ClusterProxy);
        let config = config(
            &server,
            "[Service]\nEnvironment=HTTP_PROXY=http://svc:s3cr%%40t@proxy.corp.example:3128\nEnvironment=HTTPS_PROXY=http://svc:s3cr%%40t@proxy.corp.example:3128\n",
        );
        let profile = |password: Option<&str>| {
            Value::object([
                (
                    "http_proxy".to_owned(),
                    Value::string("http://proxy.corp.example:3128"),
                ),
                ("https_proxy".to_owned(), Value::null()),
                ("username".to_owned(), Value::string("svc")),
                (
                    "password".to_owned(),
                    password.map_or_else(Value::null, Value::string),
                ),
                ("no_proxy".to_owned(), Value::list(Vec::new())),
                ("trusted_ca".to_owned(), Value::null()),
            ])
        };
        let read = |profile: Value| {
            let mut config = config.clone();
            config.set_attr("profile", profile);
            let mut diags = Diagnostics::default();
            let state = server.read_data_source(name, config, &mut diags);
            state.unwrap_or_else(|| panic!("{diags:?}"))
        };
        let strings = |state: &Value, attr: &str| format!("{:?}", state.get_attr(attr));
        let state = read(profile(None));
        assert_eq!(state.get_attr("in_sync"), Some(&Value::Bool(true)));
        assert!(!strings(&state, "differences").contains("password"));
        assert!(strings(&state, "warnings").contains("password not compared"));
        let state = read(profile(Some("other")));
        assert!(strings(&state, "differences").contains("password differs"));
        assert!(!strings(&state, "warnings").contains("password not compared"));
        let state = read(profile(Some("s3cr@t")));
        assert_eq!(state.get_attr("in_sync"), Some(&Value::Bool(true)));
        assert!(!strings(&state, "warnings").contains("password not compared"));
    }

    /// The `kind` attribute comes from the importer registry: its
    /// description names every kind with what it reads, and validation
    /// accepts exactly the registered kinds, on the attribute.
    #[test]
    fn kind_is_one_of_the_registered_importers() {
        use crate::domain::import;
        let name = "clusterproxy_artifact_settings";
        let server = Server::new(&crate::provider::ClusterProxy);
        let schema = &server.registry().data_sources()[name].schema;
        let kind = schema.attributes.iter().find(|a| a.name == "kind").unwrap();
        for importer in import::importers() {
            let entry = format!("`{}` ({})", importer.kind(), importer.reads());
            assert!(kind.description.contains(&entry), "{entry}");
        }
        let config = |kind: &str| {
            let mut config = Value::object(
                schema
                    .attributes
                    .iter()
                    .map(|a| (a.name.clone(), Value::null())),
            );
            config.set_attr("kind", Value::string(kind));
            config.set_attr("content", Value::string("x"));
            config
        };
        for kind in import::kinds() {
            let mut diags = Diagnostics::default();
            server.validate_data_resource_config(name, &config(kind), &mut diags);
            assert!(!diags.has_errors(), "{kind}: {diags:?}");
        }
        let mut diags = Diagnostics::default();
        server.validate_data_resource_config(name, &config("bogus"), &mut diags);
        let error = diags.iter().next().expect("an unknown kind is an error");
        assert_eq!(
            error.path.as_ref().map(ToString::to_string).as_deref(),
            Some("kind")
        );
    }
}
