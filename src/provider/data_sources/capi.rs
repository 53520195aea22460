//! `clusterproxy_capi_kubeadm`: the Cluster API kubeadm bootstrap pieces.

use crate::domain::render::capi::{Capi, Content, Kubeadm};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::inputs::{self, Needed, NodeConfig, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct CapiKubeadm;

crate::model! {
    pub struct Config {
        /// Proxy settings, cluster inputs, units and OS family.
        pub node: NodeConfig [embed],
        pub base64_content: bool [with_default(Value::bool(false), "Write inline file contents base64-encoded (`encoding: base64`); an error with `cluster_name`, where no file is inline.")],
        pub cluster_name: Maybe<String> [optional("Cluster name (a DNS-1123 label: it is a label value in Cluster API). When set, every file comes from the Secret `<cluster_name>-systemd-proxy` through `contentFrom.secret`: the drop-in of each unit (key `<unit>Proxy`, e.g. `containerdProxy` as Giant Swarm names it), the environment file `/etc/clusterproxy/proxy.env` (key `proxyEnv`) that `pre_kubeadm_commands` source for kubeadm, and with `trusted_ca` the CA bundle (key `trustedCa`); `files`, `pre_kubeadm_commands` and `yaml` then hold no credential. `secret_manifest` and `cluster_values_yaml` are rendered.")],
        pub revision: Maybe<i64> [optional("The rollout signal when the proxy settings are given directly (with `profile` it is the profile's `revision`, which its `settings` carry, and setting it is an error): a whole number >= 1 that moves with every change of the settings, the password included, e.g. a `clusterproxy_profile`'s `revision`. With `cluster_name` the Secret is named `<cluster_name>-systemd-proxy-r<revision>`, so a change of settings changes the `contentFrom.secret.name` of every file in the `kubeadmConfigSpec`, which makes a KubeadmControlPlane roll its machines, while unchanged settings change no byte; `template_name_suffix` is `-r<revision>`, for KubeadmConfigTemplate names. Nothing derived from the password enters the spec. Without a revision (neither `profile` nor `revision`) the names carry no suffix and a change of the password alone changes only `secret_manifest`. See the Day 2 guide.").conflicts_with(&[RendererInputs::profile])],
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

impl DataSource for CapiKubeadm {
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
        }))
    }
}

impl Platform for CapiKubeadm {
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
            input: None,
            consumers: "Cluster API KubeadmConfigSpec, `v1beta1` and `v1beta2` (Cluster API 1.11 and later); checked against the KubeadmControlPlane and KubeadmConfigTemplate CRDs of both",
            differences: "one format: `files` (with `contentFrom.secret`) and `preKubeadmCommands` have the same shape in both API versions, so the rendered fragment goes into either",
        }
    }

    fn summary(&self) -> &'static str {
        "`files`, `preKubeadmCommands`, the Secret variant and cluster values for Cluster API"
    }
}
