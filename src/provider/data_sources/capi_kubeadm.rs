//! `clusterproxy_capi_kubeadm`: the Cluster API kubeadm bootstrap pieces.

use crate::domain::render::capi::{cluster_values, secret_manifest, Content, Kubeadm};
use crate::domain::render::Secrets;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
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
            Attribute::with_default("base64_content", Type::Bool, Value::bool(false), "Write file contents base64-encoded (`encoding: base64`)."),
            Attribute::optional(
                "cluster_name",
                Type::String,
                "Cluster name. When set, the containerd drop-in comes from the Secret `<cluster_name>-systemd-proxy` (key `containerdProxy`, Giant Swarm style) through `contentFrom.secret`, and `secret_manifest` and `cluster_values_yaml` are rendered.",
            ),
            Attribute::with_default("namespace", Type::String, Value::string("default"), "Namespace of the Secret."),
            Attribute::computed(
                "files",
                Type::list(convert::string_object_type(&FILE_ATTRIBUTES)),
                "`files` entries for KubeadmControlPlane `spec.kubeadmConfigSpec` and KubeadmConfigTemplate `spec.template.spec`: `path`, `owner`, `permissions`, and `content` (with `encoding`) or `secret_name`/`secret_key`. Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed(
                "pre_kubeadm_commands",
                Type::list(Type::String),
                "`preKubeadmCommands`: `systemctl daemon-reload`, a restart of each unit but kubelet, and shell-safe `export` lines so kubeadm passes the variables into the static pods. Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed("yaml", Type::String, "`files` and `preKubeadmCommands` as a YAML fragment for `kubeadmConfigSpec`. Holds the credentials.").sensitive(),
            Attribute::computed("yaml_redacted", Type::String, "`yaml` with the proxy password replaced by `***`, for review."),
            Attribute::computed("secret_manifest", Type::String, "The Secret `<cluster_name>-systemd-proxy` holding the containerd drop-in (null without `cluster_name`). Holds the credentials.").sensitive(),
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

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let (proxy, units) = inputs::read_proxy_and_units(config, diags)?;
        let settings = &proxy.settings;
        let cluster_name = convert::string(config, "cluster_name");
        let base64 = convert::boolean(config, "base64_content");
        let build = |secrets| match &cluster_name {
            Some(name) => Kubeadm::from_secret(settings, name, secrets),
            None => Kubeadm::inline(settings, &units, base64, secrets),
        };
        let secret = build(Secrets::Include)
            .map_err(|findings| inputs::push_render_findings(&findings, &proxy, diags))
            .ok()?;
        let redacted = build(Secrets::Redact).ok()?;
        let namespace = convert::string(config, "namespace").unwrap_or_default();
        let mut state = config.clone();
        state.set_attr("files", files(&secret));
        state.set_attr(
            "pre_kubeadm_commands",
            convert::string_list(&secret.pre_kubeadm_commands),
        );
        state.set_attr("yaml", Value::string(secret.to_yaml()));
        state.set_attr("yaml_redacted", Value::string(redacted.to_yaml()));
        state.set_attr(
            "secret_manifest",
            Value::opt_string(
                cluster_name
                    .as_deref()
                    .map(|c| secret_manifest(settings, c, &namespace, Secrets::Include)),
            ),
        );
        state.set_attr(
            "cluster_values_yaml",
            Value::opt_string(
                cluster_name
                    .as_ref()
                    .map(|_| cluster_values(settings, Secrets::Include)),
            ),
        );
        Some(state)
    }
}
