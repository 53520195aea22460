//! `clusterproxy_capi_kubeadm`: the Cluster API kubeadm bootstrap pieces.

use crate::domain::render::capi::{Capi, Content, Kubeadm};
use crate::domain::render::k8s;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct CapiKubeadm;

const FILE_ATTRIBUTES: [&str; 7] = [
    "path",
    "owner",
    "permissions",
    "encoding",
    "content",
    "secret_name",
    "secret_key",
];

fn files(kubeadm: &Kubeadm) -> Value {
    convert::objects(kubeadm.files.iter().map(|f| {
        let (encoding, content, secret_name, secret_key) = match &f.content {
            Content::Inline { content, base64 } => (
                base64.then(|| "base64".to_owned()),
                Some(content.clone()),
                None,
                None,
            ),
            Content::Secret { name, key } => (None, None, Some(name.clone()), Some(key.clone())),
        };
        vec![
            ("path", Value::string(&f.path)),
            ("owner", Value::string(&f.owner)),
            ("permissions", Value::string(&f.permissions)),
            ("encoding", Value::opt_string(encoding)),
            ("content", Value::opt_string(content)),
            ("secret_name", Value::opt_string(secret_name)),
            ("secret_key", Value::opt_string(secret_key)),
        ]
    }))
}

impl DataSource for CapiKubeadm {
    fn type_name(&self) -> &'static str {
        "clusterproxy_capi_kubeadm"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            inputs::units_attribute(),
            inputs::os_family_attribute(),
            Attribute::with_default("base64_content", Type::Bool, Value::bool(false), "Write inline file contents base64-encoded (`encoding: base64`); an error with `cluster_name`, where no file is inline."),
            Attribute::optional(
                "cluster_name",
                Type::String,
                "Cluster name (a DNS-1123 label: it is a label value in Cluster API). When set, every file comes from the Secret `<cluster_name>-systemd-proxy` through `contentFrom.secret`: the drop-in of each unit (key `<unit>Proxy`, e.g. `containerdProxy` as Giant Swarm names it), the environment file `/etc/clusterproxy/proxy.env` (key `proxyEnv`) that `pre_kubeadm_commands` source for kubeadm, and with `trusted_ca` the CA bundle (key `trustedCa`); `files`, `pre_kubeadm_commands` and `yaml` then hold no credential. `secret_manifest` and `cluster_values_yaml` are rendered.",
            ),
            Attribute::with_default("namespace", Type::String, Value::string("default"), "Namespace of the Secret (a DNS-1123 label)."),
            Attribute::computed(
                "files",
                Type::list(convert::string_object_type(&FILE_ATTRIBUTES)),
                "`files` entries for KubeadmControlPlane `spec.kubeadmConfigSpec` and KubeadmConfigTemplate `spec.template.spec`: `path`, `owner`, `permissions` (`0600` for files with credentials, `0644` otherwise), and `content` (with `encoding`) or `secret_name`/`secret_key`. With `trusted_ca`, the CA bundle for `os_family` comes last. Holds the credentials without `cluster_name`.",
            )
            .sensitive(),
            Attribute::computed(
                "pre_kubeadm_commands",
                Type::list(Type::String),
                "`preKubeadmCommands`: with `trusted_ca` the trust store update of `os_family`, `systemctl daemon-reload`, `systemctl restart -- '<unit>'` for each unit but kubelet, then the variables for kubeadm (which passes them into the static pods): shell-safe `export` lines, or with `cluster_name` `. '/etc/clusterproxy/proxy.env'`. Holds the credentials without `cluster_name`.",
            )
            .sensitive(),
            Attribute::computed("yaml", Type::String, "`files` and `preKubeadmCommands` as a YAML fragment for `kubeadmConfigSpec`. Holds the credentials.").sensitive(),
            Attribute::computed("yaml_redacted", Type::String, "`yaml` with the proxy password replaced by `***`, for review."),
            Attribute::computed("secret_manifest", Type::String, "The Secret `<cluster_name>-systemd-proxy` holding the drop-ins, the environment file and the CA bundle (null without `cluster_name`). Holds the credentials.").sensitive(),
            Attribute::computed(
                "cluster_values_yaml",
                Type::String,
                "`cluster.proxy` (`http`, `https`, `noProxy`) for the `<cluster_name>-cluster-values` Secret (null without `cluster_name`). Holds the credentials.",
            )
            .sensitive(),
        ]);
        Schema::new(
            "Renders the Cluster API kubeadm bootstrap pieces that put nodes behind the proxy: systemd drop-in `files`, `preKubeadmCommands`, the Secret variant, and enforces CAPI's limits (content <= 10240 characters, path <= 512, at most 200 files, no duplicate paths). Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        inputs::validate_ca_only_inputs(config, &["os_family"], diags);
        let names = [("cluster_name", 63), ("namespace", 63)];
        let findings: Vec<_> = names
            .iter()
            .filter_map(|(field, max)| {
                let value = convert::string(config, field)?;
                k8s::dns1123_label(field, &value, *max).err()
            })
            .collect();
        convert::push_findings(&findings, &AttributePath::root(), diags);
        if convert::boolean(config, "base64_content")
            && config
                .get_attr("cluster_name")
                .is_some_and(|c| !c.is_null())
        {
            diags.push(
                Diagnostic::error(
                    "base64_content with cluster_name",
                    "With `cluster_name` every file comes from the Secret and none is inline; remove `base64_content`.",
                )
                .at(AttributePath::attribute("base64_content")),
            );
        }
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let (proxy, units) = inputs::read_proxy_and_units(config, diags)?;
        let renderer = Capi {
            units,
            os: inputs::read_os_family(config),
            base64_content: convert::boolean(config, "base64_content"),
            cluster_name: convert::string(config, "cluster_name"),
            namespace: convert::string(config, "namespace").unwrap_or_default(),
        };
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        let mut state = config.clone();
        state.set_attr("files", files(&secret.kubeadm));
        state.set_attr(
            "pre_kubeadm_commands",
            convert::string_list(&secret.kubeadm.pre_kubeadm_commands),
        );
        state.set_attr("yaml", Value::string(secret.kubeadm.to_yaml()));
        state.set_attr("yaml_redacted", Value::string(redacted.kubeadm.to_yaml()));
        state.set_attr("secret_manifest", Value::opt_string(secret.secret_manifest));
        state.set_attr(
            "cluster_values_yaml",
            Value::opt_string(secret.cluster_values),
        );
        Some(state)
    }
}
