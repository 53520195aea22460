//! `clusterproxy_capi_kubeadm`: the Cluster API kubeadm bootstrap pieces.

use crate::domain::render::capi::{ApiVersion, Capi, Content, Kubeadm};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::{OneOf, Schema};
use crate::framework::value::Value;
use crate::provider::inputs::{self, Needed, NodeConfig, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct CapiKubeadmDataSource;

crate::model! {
    pub struct Config {
        /// Proxy settings, cluster inputs, units and OS family.
        pub node: NodeConfig [embed],
        pub base64_content: bool [with_default(Value::bool(false), "Write inline file contents base64-encoded (`encoding: base64`); an error with `cluster_name`, where no file is inline.")],
        pub cluster_name: Maybe<String> [optional("Cluster name (a DNS-1123 label: it is a label value in Cluster API). When set, every file comes from the Secret `<cluster_name>-systemd-proxy` through `contentFrom.secret`: the drop-in of each unit (key `<unit>Proxy`, e.g. `containerdProxy` as Giant Swarm names it), the environment file `/etc/clusterproxy/proxy.env` (key `proxyEnv`) that `pre_kubeadm_commands` source for kubeadm, and with `trusted_ca` the CA bundle (key `trustedCa`); `files`, `pre_kubeadm_commands` and `yaml` then hold no credential. `secret_manifest` and `cluster_values_yaml` are rendered.")],
        pub revision: Maybe<i64> [optional("The rollout signal when the proxy settings are given directly (with `profile` it is the profile's `revision`, which its `settings` carry, and setting it is an error): a whole number >= 1 that moves with every change of the settings, the password included, e.g. a `clusterproxy_profile`'s `revision`. With `cluster_name` the Secret is named `<cluster_name>-systemd-proxy-r<revision>`, so a change of settings changes the `contentFrom.secret.name` of every file in the `kubeadmConfigSpec`, which makes a KubeadmControlPlane roll its machines, while unchanged settings change no byte; `template_name_suffix` is `-r<revision>`, for KubeadmConfigTemplate names. Nothing derived from the password enters the spec. Without a revision (neither `profile` nor `revision`) the names carry no suffix and a change of the password alone changes only `secret_manifest`. See the Day 2 guide.").conflicts_with(&[RendererInputs::profile])],
        pub capi_api_version: Maybe<String> [with_default(
            Value::string(ApiVersion::NAMES[0]),
            "The Cluster API version of the KubeadmControlPlane, KubeadmConfigTemplate or KubeadmConfig the pieces go into: `v1beta2` (the default: Cluster API 1.11 and later, where it is the storage version) or `v1beta1` (Cluster API before 1.11; deprecated since). The pieces have the same shape in both and are checked against the CRDs of Cluster API 1.14 for both; `bootstrap_api_version` and `control_plane_api_version` are the `apiVersion` of the objects to write.",
        )
        .validator(OneOf(&ApiVersion::NAMES))],
        pub namespace: Maybe<String> [with_default(Value::string("default"), "With `cluster_name`: the namespace of the Secret (a DNS-1123 label). Defaults to `default`; setting it without `cluster_name` is an error.")],
    }
}

crate::object! {
    /// One `files` entry.
    pub struct File {
        /// Path on the node.
        pub path: String,
        /// Owner.
        pub owner: String,
        /// Mode.
        pub permissions: String,
        /// `base64` for encoded inline content.
        pub encoding: Option<String>,
        /// Inline content.
        pub content: Option<String>,
        /// Secret holding the content.
        pub secret_name: Option<String>,
        /// Key in the Secret.
        pub secret_key: Option<String>,
    }
}

crate::model! {
    pub struct State {
        pub files: Vec<File> [computed("`files` entries for KubeadmControlPlane `spec.kubeadmConfigSpec` and KubeadmConfigTemplate `spec.template.spec`: `path`, `owner`, `permissions` (`0600` for files with credentials, `0644` otherwise), and `content` (with `encoding`) or `secret_name`/`secret_key`. With `trusted_ca`, the CA bundle for `os_family` comes last. Holds the credentials without `cluster_name`, which reads them from a Secret instead.").sensitive()],
        pub files_redacted: Vec<File> [computed("`files` with the proxy password replaced by `***`, for review.")],
        pub pre_kubeadm_commands: Vec<String> [computed("`preKubeadmCommands`: with `trusted_ca` the trust store update of `os_family`, `systemctl daemon-reload`, `systemctl restart -- '<unit>'` for each unit but kubelet, then the variables for kubeadm (which passes them into the static pods): shell-safe `export` lines, or with `cluster_name` `. '/etc/clusterproxy/proxy.env'`. Holds the credentials without `cluster_name`, which reads them from a Secret instead.").sensitive()],
        pub pre_kubeadm_commands_redacted: Vec<String> [computed("`pre_kubeadm_commands` with the proxy password replaced by `***`, for review.")],
        pub yaml: String [computed("`files` and `preKubeadmCommands` as a YAML fragment for `kubeadmConfigSpec`. Holds the credentials without `cluster_name`, which reads them from a Secret instead.").sensitive()],
        pub yaml_redacted: String [computed("`yaml` with the proxy password replaced by `***`, for review.")],
        pub secret_manifest: Option<String> [computed("The Secret `<cluster_name>-systemd-proxy` holding the drop-ins, the environment file and the CA bundle (null without `cluster_name`). Holds the credentials: it is the Secret that `cluster_name` reads them from; write it with `kubernetes_secret_v1.binary_data_wo` (see the secret-free-state guide).").sensitive()],
        pub secret_manifest_redacted: Option<String> [computed("`secret_manifest` with the proxy password replaced by `***`, for review.")],
        pub secret_name: Option<String> [computed("With `cluster_name`, the name of the Secret the files come from: `<cluster_name>-systemd-proxy`, or with `revision` `<cluster_name>-systemd-proxy-r<revision>`; null without `cluster_name`.")],
        pub template_name_suffix: String [computed("`-r<revision>`, or empty without `revision`: append it to the name of the KubeadmConfigTemplate that holds these pieces and to the MachineDeployment's `spec.template.spec.bootstrap.configRef.name`. Cluster API treats templates as immutable and rolls a MachineDeployment only when its machine template changes, so a new template name is what rolls the workers.")],
        pub bootstrap_api_version: String [computed("The `apiVersion` of the KubeadmConfigTemplate (or KubeadmConfig) that holds these pieces under `spec.template.spec` (`spec`), for `capi_api_version`: `bootstrap.cluster.x-k8s.io/v1beta2` by default.")],
        pub control_plane_api_version: String [computed("The `apiVersion` of the KubeadmControlPlane that holds these pieces under `spec.kubeadmConfigSpec`, for `capi_api_version`: `controlplane.cluster.x-k8s.io/v1beta2` by default.")],
        pub cluster_values_yaml: Option<String> [computed("`cluster.proxy` (`http`, `https`, `noProxy`) for the `<cluster_name>-cluster-values` Secret (null without `cluster_name`). Holds the credentials: these values take no Secret reference.").sensitive()],
        pub cluster_values_yaml_redacted: Option<String> [computed("`cluster_values_yaml` with the proxy password replaced by `***`, for review.")],
    }
}

fn files(kubeadm: &Kubeadm) -> Vec<File> {
    kubeadm
        .files
        .iter()
        .map(|f| {
            let (encoding, content, secret_name, secret_key) = match &f.content {
                Content::Inline { content, base64 } => (
                    base64.then(|| "base64".to_owned()),
                    Some(content.clone()),
                    None,
                    None,
                ),
                Content::Secret { name, key } => {
                    (None, None, Some(name.clone()), Some(key.clone()))
                }
            };
            File {
                path: f.path.clone(),
                owner: f.owner.clone(),
                permissions: f.permissions.clone(),
                encoding,
                content,
                secret_name,
                secret_key,
            }
        })
        .collect()
}

impl DataSource for CapiKubeadmDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_capi_kubeadm"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders the Cluster API kubeadm bootstrap pieces that put nodes behind the proxy: systemd drop-in `files`, `preKubeadmCommands`, the Secret variant, and enforces CAPI's limits (content <= 10240 characters, path <= 512, at most 200 files, no duplicate paths). Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let Some(config) = Config::get_planned(config, diags) else {
            return;
        };
        config.node.validate(diags);
        let needed = Needed {
            name: Config::cluster_name,
            absent: config.cluster_name.is_null(),
            remedy: "set `cluster_name` (the Secret variant)",
        };
        inputs::reject_without(
            &needed,
            &[(Config::namespace, config.namespace.known().is_some())],
            diags,
        );
        inputs::check_names(
            &[
                (Config::cluster_name, &config.cluster_name),
                (Config::namespace, &config.namespace),
            ],
            diags,
        );
        if config.revision.known().is_some_and(|r| *r < 1) {
            diags.push(
                Diagnostic::error(
                    "Invalid revision",
                    "`revision` is a profile's revision, a whole number >= 1.",
                )
                .at(AttributePath::attribute(Config::revision)),
            );
        }
        if config.base64_content && !config.cluster_name.is_null() {
            diags.push(
                Diagnostic::error(
                    "base64_content with cluster_name",
                    "With `cluster_name` every file comes from the Secret and none is inline; remove `base64_content`.",
                )
                .at(AttributePath::attribute(Config::base64_content)),
            );
        }
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let (mut proxy, units, os) = config.node.resolve(diags)?;
        if let Some(revision) = config.revision.known() {
            proxy.settings.revision = Some(*revision);
        }
        let renderer = Capi {
            units,
            os,
            base64_content: config.base64_content,
            cluster_name: config.cluster_name.known().cloned(),
            namespace: config.namespace.known().cloned().unwrap_or_default(),
        };
        let api_version = config
            .capi_api_version
            .known()
            .and_then(|name| ApiVersion::from_name(name))
            .unwrap_or(ApiVersion::V1beta2);
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        Some(model::computed(State {
            files: files(&secret.kubeadm),
            files_redacted: files(&redacted.kubeadm),
            pre_kubeadm_commands: secret.kubeadm.pre_kubeadm_commands.clone(),
            pre_kubeadm_commands_redacted: redacted.kubeadm.pre_kubeadm_commands.clone(),
            yaml: secret.kubeadm.to_yaml(),
            yaml_redacted: redacted.kubeadm.to_yaml(),
            secret_manifest: secret.secret_manifest,
            secret_manifest_redacted: redacted.secret_manifest,
            cluster_values_yaml: secret.cluster_values,
            cluster_values_yaml_redacted: redacted.cluster_values,
            secret_name: secret.secret_name,
            template_name_suffix: secret.template_suffix,
            bootstrap_api_version: api_version.bootstrap(),
            control_plane_api_version: api_version.control_plane(),
        }))
    }
}

impl Platform for CapiKubeadmDataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "Cluster API (kubeadm)",
            writes: "`files` and `preKubeadmCommands` for `KubeadmConfigSpec`, or with `cluster_name` a Secret that every file comes from (`contentFrom`)",
            pitfalls: "with `cluster_name` the KubeadmControlPlane holds no credential in any encoding; CAPI's size limits",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: Some(Config::capi_api_version),
            consumers: "Cluster API KubeadmConfigSpec, `v1beta2` (Cluster API 1.11 and later, the default) and `v1beta1` (before 1.11); checked against the KubeadmControlPlane, KubeadmConfigTemplate and KubeadmConfig CRDs of Cluster API 1.14 for both",
            differences: "`files` (with `contentFrom.secret`) and `preKubeadmCommands` have the same shape in both API versions, so the rendered fragment goes into either; `capi_api_version` sets the `apiVersion` outputs (`bootstrap_api_version`, `control_plane_api_version`) of the objects that hold it",
        }
    }

    fn summary(&self) -> &'static str {
        "`files`, `preKubeadmCommands`, the Secret variant and cluster values for Cluster API"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::server::Server;

    /// `capi_api_version` names the `apiVersion` of the objects that hold
    /// the pieces, v1beta2 by default, and leaves the pieces as they are;
    /// a version Cluster API does not serve is an error on the attribute.
    #[test]
    fn api_version_names_the_objects_and_is_validated() {
        let server = Server::new(&crate::provider::ClusterProxy);
        let name = "clusterproxy_capi_kubeadm";
        let schema = &server.registry().data_sources()[name].schema;
        let config = |version: Option<&str>| {
            Value::object(schema.attributes.iter().map(|a| {
                let value = match a.name.as_str() {
                    "http_proxy" => Value::string("http://proxy.corp.example:3128"),
                    Config::capi_api_version => version.map_or_else(Value::null, Value::string),
                    _ => Value::null(),
                };
                (a.name.clone(), value)
            }))
        };
        let read = |version: Option<&str>| {
            let mut diags = Diagnostics::new();
            let state = server.read_data_source(name, config(version), &mut diags);
            assert!(diags.is_empty(), "{diags:?}");
            state.unwrap()
        };
        let versions = |state: &Value| {
            [
                State::control_plane_api_version,
                State::bootstrap_api_version,
            ]
            .map(|a| state.get_attr(a).and_then(Value::as_str).map(str::to_owned))
        };
        let default = read(None);
        assert_eq!(
            versions(&default),
            [
                Some("controlplane.cluster.x-k8s.io/v1beta2".to_owned()),
                Some("bootstrap.cluster.x-k8s.io/v1beta2".to_owned())
            ]
        );
        assert_eq!(versions(&read(Some("v1beta2"))), versions(&default));
        let v1beta1 = read(Some("v1beta1"));
        assert_eq!(
            versions(&v1beta1),
            [
                Some("controlplane.cluster.x-k8s.io/v1beta1".to_owned()),
                Some("bootstrap.cluster.x-k8s.io/v1beta1".to_owned())
            ]
        );
        assert_eq!(v1beta1.get_attr(State::yaml), default.get_attr(State::yaml));
        let mut diags = Diagnostics::new();
        server.validate_data_resource_config(name, &config(Some("v1alpha4")), &mut diags);
        let paths: Vec<String> = diags
            .iter()
            .filter_map(|d| d.path.as_ref().map(ToString::to_string))
            .collect();
        assert_eq!(paths, [Config::capi_api_version], "{diags:?}");
    }
}
