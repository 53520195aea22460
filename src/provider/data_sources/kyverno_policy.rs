//! `clusterproxy_kyverno_policy`: a Kyverno ClusterPolicy that injects the
//! proxy environment (and the CA) into new pods.

use crate::domain::render::k8s;
use crate::domain::render::kyverno::{self, Kyverno};
use crate::domain::Finding;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::schema::{Attribute, NoNullElements, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct KyvernoPolicy;

/// Checks an annotation key: an optional DNS-1123 subdomain prefix and `/`,
/// then a name of 1 to 63 letters, digits, `-`, `_` or `.` starting and
/// ending with a letter or digit (k8s.io/apimachinery `IsQualifiedName`).
fn annotation_key(value: &str) -> Option<Finding> {
    let (prefix, name) = value
        .rsplit_once('/')
        .map_or((None, value), |(p, n)| (Some(p), n));
    let name_ok = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && name.as_bytes()[name.len() - 1].is_ascii_alphanumeric();
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|l| k8s::dns1123_label("", l, 63).is_ok())
    });
    (!(name_ok && prefix_ok)).then(|| {
        Finding::error(
            "opt_out_annotation",
            None,
            "Invalid annotation key",
            format!("{value:?} is not a Kubernetes annotation key: an optional DNS subdomain prefix and `/`, then 1 to 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit."),
        )
    })
}

impl DataSource for KyvernoPolicy {
    fn type_name(&self) -> &'static str {
        "clusterproxy_kyverno_policy"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::with_default("policy_name", Type::String, Value::string("clusterproxy-proxy-env"), "`metadata.name` of the ClusterPolicy (a DNS-1123 label)."),
            Attribute::with_default("excluded_namespaces", Type::list(Type::String), convert::string_list(&kyverno::DEFAULT_EXCLUDED), "Namespaces whose pods are left alone (and, with `trusted_ca`, get no CA ConfigMap). Defaults to `kube-system`, as Giant Swarm's kyverno-policies-connectivity does; an empty list excludes none.").validator(NoNullElements),
            Attribute::with_default("opt_out_annotation", Type::String, Value::string(kyverno::DEFAULT_OPT_OUT), "Pods annotated with this key and the value `\"true\"` are left alone."),
            Attribute::with_default("config_map_name", Type::String, Value::string("clusterproxy-trusted-ca"), "With `trusted_ca`: the ConfigMap the policy keeps in every namespace (a `generate` rule with `synchronize`), mounted at `/etc/clusterproxy/ca`."),
            Attribute::computed("policy_yaml", Type::String, "The ClusterPolicy (`kyverno.io/v1`): a `mutate` rule on pod CREATE that adds `HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY`, `no_proxy` (the merged list) to every container (`spec.containers`; init containers are left as they are), and with `trusted_ca` the volume, the mount and `SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`, `NODE_EXTRA_CA_CERTS`, plus the `generate` rule for the ConfigMap. Existing pods change only when recreated. Holds the credentials.").sensitive(),
            Attribute::computed("policy_yaml_redacted", Type::String, "`policy_yaml` with the proxy password replaced by `***`."),
        ]);
        Schema::new(
            "Renders a Kyverno ClusterPolicy that injects the proxy environment into new pods, with namespace exclusions, an opt-out annotation and the proxy's CA. Checked against Kyverno 1.13's ClusterPolicy schema. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let mut findings: Vec<Finding> = ["policy_name", "config_map_name"]
            .iter()
            .filter_map(|field| {
                k8s::dns1123_label(field, &convert::string(config, field)?, 63).err()
            })
            .collect();
        for (index, namespace) in convert::strings(config, "excluded_namespaces")
            .iter()
            .enumerate()
        {
            if let Err(mut f) = k8s::dns1123_label("excluded_namespaces", namespace, 63) {
                f.index = Some(index);
                findings.push(f);
            }
        }
        if let Some(key) = convert::string(config, "opt_out_annotation") {
            findings.extend(annotation_key(&key));
        }
        convert::push_findings(&findings, &AttributePath::root(), diags);
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let kyverno = Kyverno {
            name: convert::string(config, "policy_name").unwrap_or_default(),
            excluded_namespaces: convert::strings(config, "excluded_namespaces"),
            opt_out_annotation: convert::string(config, "opt_out_annotation").unwrap_or_default(),
            config_map_name: convert::string(config, "config_map_name").unwrap_or_default(),
        };
        let (secret, redacted) = inputs::render_both(&kyverno, &proxy, diags)?;
        let mut state = config.clone();
        state.set_attr("policy_yaml", Value::string(secret));
        state.set_attr("policy_yaml_redacted", Value::string(redacted));
        Some(state)
    }
}
