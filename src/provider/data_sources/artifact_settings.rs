//! `clusterproxy_artifact_settings`: the proxy settings a cluster artifact
//! holds, read without managing anything, and whether they are what a
//! profile renders for the cluster (drift reports).

use crate::domain::import::{self, drift, KINDS};
use crate::domain::profile::{Profile, ProfileInput};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::schema::{Attribute, OneOf, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct ArtifactSettings;

/// The renderers' cluster inputs, minus `installation` (the profile's list).
fn cluster_inputs() -> Vec<Attribute> {
    inputs::cluster_attributes()
        .into_iter()
        .filter(|a| a.name != "installation")
        .collect()
}

impl DataSource for ArtifactSettings {
    fn type_name(&self) -> &'static str {
        "clusterproxy_artifact_settings"
    }

    fn schema(&self) -> Schema {
        let mut attributes = vec![
            Attribute::required(
                "kind",
                Type::String,
                "Artifact kind: `aks` (`az aks show -o json` or an httpProxyConfig), `tkg` (cluster configuration file), `capi` (KubeadmControlPlane / KubeadmConfigTemplate, with the Cluster when at hand, or an EKS Anywhere Cluster), `systemd` (drop-in), `giantswarm` (cluster chart values, userconfig ConfigMap, cluster-values or systemd-proxy Secret) `openshift` (the `config.openshift.io/v1` Proxy with its trustedCA ConfigMap, an install-config, or the `cluster-config-v1` ConfigMap) or `rke2` (RKE2 `/etc/default/rke2-*` or k3s `*.service.env` environment file).",
            )
            .validator(OneOf(&KINDS)),
            Attribute::required("content", Type::String, "The artifact's text, e.g. `file(\"cluster-config.yaml\")`, at most 4 MiB. Sensitive: artifacts often hold proxy credentials.").sensitive(),
            Attribute::optional(
                "profile",
                inputs::settings_type(),
                "The `settings` of the `clusterproxy_profile` the artifact was rendered from. When set, `in_sync` and `differences` compare the artifact with what the renderers write from it for this cluster (give the same cluster inputs as the renderer).",
            )
            .sensitive(),
        ];
        attributes.extend(cluster_inputs());
        attributes.extend([
            Attribute::computed("name", Type::String, "The cluster's name when the artifact has one, else the kind."),
            Attribute::computed("http_proxy", Type::String, "HTTP proxy, without credentials."),
            Attribute::computed("https_proxy", Type::String, "HTTPS proxy, without credentials; null when the artifact sets none (its clients then send HTTPS direct)."),
            Attribute::computed("username", Type::String, "Proxy user name."),
            Attribute::computed("password", Type::String, "Proxy password.").sensitive(),
            Attribute::computed("no_proxy", Type::list(Type::String), "Installation-wide NO_PROXY entries, normalised: what is left after the entries the renderers add from the cluster inputs (or the platform adds itself) are taken out."),
            Attribute::computed(
                "dropped",
                Type::list(convert::string_object_type(&["entry", "reason"])),
                "NO_PROXY entries left out as cluster-specific or redundant, with the reason.",
            ),
            Attribute::computed("trusted_ca", Type::String, "Trusted CA (PEM)."),
            Attribute::computed("warnings", Type::list(Type::String), "What was read differently from how the artifact writes it (e.g. a proxy URL without a scheme), and CIDR blocks that could not be classified."),
            Attribute::computed(
                "fingerprint",
                Type::String,
                "Fingerprint of the effective settings, computed as `clusterproxy_profile.fingerprint`.",
            ),
            Attribute::computed("in_sync", Type::Bool, "With `profile`: true when the artifact holds exactly what the renderers write from the profile for these cluster inputs. Null without `profile`."),
            Attribute::computed("differences", Type::list(Type::String), "With `profile`: one line per field that differs (`http_proxy`, `https_proxy`, `username`, `password`, `no_proxy`, `trusted_ca`), naming the entries that differ; passwords are compared, never shown. Empty when in sync or without `profile`."),
        ]);
        Schema::new(
            "Reads the proxy settings from a cluster artifact, the same artifacts `clusterproxy_profile` imports, without managing anything. With `profile` and the renderer's cluster inputs, reports whether the artifact (e.g. a node's drop-in) still holds what Terraform rendered: `in_sync`, and the `differences` by field.",
            attributes,
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let kind = convert::string(config, "kind").unwrap_or_default();
        let content = convert::string(config, "content").unwrap_or_default();
        let content_path = AttributePath::attribute("content");
        let facts = inputs::read_cluster(config);
        let imported = import::parse_with(&kind, &content, &facts)
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
        let (in_sync, differences) = match config.get_attr("profile").filter(|p| !p.is_null()) {
            None => (Value::null(), Vec::new()),
            Some(expected) => {
                let expected = ProfileInput {
                    http_proxy: convert::string(expected, "http_proxy"),
                    https_proxy: convert::string(expected, "https_proxy"),
                    username: convert::string(expected, "username"),
                    password: convert::string(expected, "password"),
                    no_proxy: convert::strings(expected, "no_proxy"),
                    trusted_ca: convert::string(expected, "trusted_ca"),
                };
                let found = drift::differences(&imported, &expected)
                    .map_err(|findings| {
                        convert::push_findings(
                            &findings,
                            &AttributePath::attribute("profile"),
                            diags,
                        )
                    })
                    .ok()?;
                (Value::bool(found.is_empty()), found)
            }
        };
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
        state.set_attr("warnings", convert::string_list(&imported.warnings));
        state.set_attr("fingerprint", Value::string(&profile.fingerprint));
        state.set_attr("in_sync", in_sync);
        state.set_attr("differences", convert::string_list(&differences));
        Some(state)
    }
}
