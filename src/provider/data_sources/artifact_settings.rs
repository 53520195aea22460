//! `clusterproxy_artifact_settings`: the proxy settings a cluster artifact
//! holds, read without managing anything (drift reports against a profile).

use crate::domain::import::{self, KINDS};
use crate::domain::profile::{Profile, ProfileInput};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::schema::{Attribute, OneOf, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::convert;

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct ArtifactSettings;

impl DataSource for ArtifactSettings {
    fn type_name(&self) -> &'static str {
        "clusterproxy_artifact_settings"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Reads the proxy settings from a cluster artifact, the same artifacts `clusterproxy_profile` imports, without managing anything. Compare its `fingerprint` with a profile's to report drift.",
            vec![
                Attribute::required(
                    "kind",
                    Type::String,
                    "Artifact kind: `aks` (`az aks show -o json` or an httpProxyConfig), `tkg` (cluster configuration file), `capi` (KubeadmControlPlane / KubeadmConfigTemplate), `systemd` (drop-in), `giantswarm` (cluster-values or systemd-proxy Secret) or `rke2` (RKE2 or k3s environment file, `CONTAINERD_*` variables included).",
                )
                .validator(OneOf(&KINDS)),
                Attribute::required("content", Type::String, "The artifact's text, e.g. `file(\"cluster-config.yaml\")`. Sensitive: artifacts often hold proxy credentials.").sensitive(),
                Attribute::computed("name", Type::String, "The cluster's name when the artifact has one, else the kind."),
                Attribute::computed("http_proxy", Type::String, "HTTP proxy, without credentials."),
                Attribute::computed("https_proxy", Type::String, "HTTPS proxy, without credentials."),
                Attribute::computed("username", Type::String, "Proxy user name."),
                Attribute::computed("password", Type::String, "Proxy password.").sensitive(),
                Attribute::computed("no_proxy", Type::list(Type::String), "Installation-wide NO_PROXY entries, normalised."),
                Attribute::computed(
                    "dropped",
                    Type::list(convert::string_object_type(&["entry", "reason"])),
                    "NO_PROXY entries left out as cluster-specific or redundant, with the reason.",
                ),
                Attribute::computed("trusted_ca", Type::String, "Trusted CA (PEM)."),
                Attribute::computed(
                    "fingerprint",
                    Type::String,
                    "Fingerprint of the effective settings, computed as `clusterproxy_profile.fingerprint`: equal fingerprints mean equal settings.",
                ),
            ],
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let kind = convert::string(config, "kind").unwrap_or_default();
        let content = convert::string(config, "content").unwrap_or_default();
        let content_path = AttributePath::attribute("content");
        let imported = import::parse(&kind, &content)
            .map_err(|findings| convert::push_findings(&findings, &content_path, diags))
            .ok()?;
        let profile = Profile::new(&ProfileInput {
            http_proxy: imported.http_proxy.clone(),
            https_proxy: imported.https_proxy.clone(),
            username: imported.username.clone(),
            password: imported.password.clone(),
            no_proxy: imported.no_proxy.clone(),
            trusted_ca: imported.trusted_ca.clone(),
        })
        .map_err(|findings| convert::push_findings(&findings, &content_path, diags))
        .ok()?;
        let mut state = config.clone();
        state.set_attr("name", Value::string(&imported.name));
        state.set_attr("http_proxy", Value::opt_string(imported.http_proxy.clone()));
        state.set_attr(
            "https_proxy",
            Value::opt_string(imported.https_proxy.clone()),
        );
        state.set_attr("username", Value::opt_string(imported.username.clone()));
        state.set_attr("password", Value::opt_string(imported.password.clone()));
        state.set_attr("no_proxy", convert::string_list(&imported.no_proxy));
        state.set_attr(
            "dropped",
            convert::objects(imported.dropped.iter().map(|d| {
                vec![
                    ("entry", Value::string(&d.entry)),
                    ("reason", Value::string(&d.reason)),
                ]
            })),
        );
        state.set_attr("trusted_ca", Value::opt_string(imported.trusted_ca.clone()));
        state.set_attr("fingerprint", Value::string(&profile.fingerprint));
        Some(state)
    }
}
