//! `clusterproxy_kyverno_policy`: Kyverno policies that inject the proxy
//! environment (and the CA) into new pods: from Kyverno 1.17 a
//! `MutatingPolicy` and a `GeneratingPolicy`, before it a ClusterPolicy.

use crate::domain::redact::redact_userinfo;
use crate::domain::render::k8s;
use crate::domain::render::kyverno::{self, Kyverno};
use crate::domain::Finding;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::{NoNullElements, Schema};
use crate::framework::value::Value;
use crate::provider::attributes;
use crate::provider::convert::{self, SettingsAt};
use crate::provider::data_sources::pod_env::{CredentialsSecretInput, CredentialsSecretOutput};
use crate::provider::inputs;
use crate::provider::inputs::RendererInputs;
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct KyvernoPolicyDataSource;

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        pub kyverno_version: Maybe<String> [with_default(Value::string(kyverno::DEFAULT_VERSION), "Kyverno release of the cluster (`1.19`, `v1.16.3`...): decides the policy types. From 1.17, the CEL policies (`policies.kyverno.io/v1`, which Kyverno 1.19 recommends: it answers every ClusterPolicy with a deprecation warning): a `MutatingPolicy` in `policy_yaml` and, with `trusted_ca` or `credentials_secret_namespace`, a `GeneratingPolicy` in `generating_policy_yaml` (1.17 spells its functions `generator.Apply` and `resource.Get`, 1.18 and later `generator.apply` and `resource.get`). From 1.13 to 1.16, a `kyverno.io/v1` ClusterPolicy in `policy_yaml` that does both. Older releases are not supported (an error). Defaults to `1.19`, the newest release; set `1.16` to keep the ClusterPolicy.")],
        pub policy_name: Maybe<String> [with_default(Value::string("clusterproxy-proxy-env"), "`metadata.name` of the policies (a DNS-1123 label).")],
        pub excluded_namespaces: Vec<Maybe<String>> [with_default(attributes::string_list(&kyverno::DEFAULT_EXCLUDED), "Namespaces whose pods are left alone (and, with `trusted_ca`, get no CA ConfigMap). Defaults to `kube-system`, as Giant Swarm's kyverno-policies-connectivity does; an empty list excludes none.").validator(NoNullElements)],
        pub opt_out_annotation: Maybe<String> [with_default(Value::string(kyverno::DEFAULT_OPT_OUT), "Pods annotated with this key and the value `\"true\"` are left alone.")],
        pub config_map_name: Maybe<String> [with_default(Value::string("clusterproxy-trusted-ca"), "With `trusted_ca`: the ConfigMap the policy keeps in every namespace (a `generate` rule with `synchronize`), mounted at `/etc/clusterproxy/ca`. Setting it without a `trusted_ca` is an error.")],
        /// The Secret the proxy URLs are read from.
        pub secret: CredentialsSecretInput [embed],
    }
}

crate::model! {
    pub struct State {
        pub policy_yaml: String [computed("From Kyverno 1.17 (`kyverno_version`), the `MutatingPolicy` (`policies.kyverno.io/v1`): on pod CREATE, unless the namespace is excluded or the pod opted out (its `matchConditions`), a JSON Patch (`patchType: JSONPatch`) that sets in every container (`spec.containers`; init containers are left as they are) `HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY`, `no_proxy` (the merged list), replacing the container's own entries of these names, and with `trusted_ca` `SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`, `NODE_EXTRA_CA_CERTS`, the mount and the volume of the ConfigMap `generating_policy_yaml` keeps. Pods are mutated at admission, whatever created them (no autogen rules for their controllers). Before 1.17, the ClusterPolicy (`kyverno.io/v1`): a `mutate` rule on pod CREATE that adds `HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY`, `no_proxy` (the merged list) to every container (`spec.containers`; init containers are left as they are), and with `trusted_ca` the volume, the mount and `SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`, `NODE_EXTRA_CA_CERTS`, plus the `generate` rule for the ConfigMap. Each `generate` rule sets `generateExisting` (the per-rule field of Kyverno 1.13 and later, which replaces the deprecated policy-wide one), so namespaces that already exist get the ConfigMap and Secret too. Existing pods change only when recreated. Holds the credentials unless `credentials_secret` is set: the proxy variables are then `secretKeyRef`s of that Secret and the policy holds no credential; with `credentials_secret_namespace`, the Secret is cloned (synchronized) from there into every namespace but the excluded ones (a second `generate` rule of the ClusterPolicy, or the `GeneratingPolicy`), otherwise the Secret must already exist in each namespace whose pods the policy mutates. With the ClusterPolicy, a container that already sets one of these variables as a plain `value` would get both `value` and `valueFrom`, which the API server refuses: opt such pods out with the annotation. Kyverno's background controller writes the generated ConfigMaps and Secrets: the Kyverno chart's role for it allows that; an install without that role needs an aggregated ClusterRole labelled `rbac.kyverno.io/aggregate-to-background-controller: \"true\"`. Kyverno labels the cloned Secret `generate.kyverno.io/clone-source`: where Terraform manages that Secret, declare the label, or every plan removes it.").sensitive()],
        pub policy_yaml_redacted: String [computed("`policy_yaml` with the proxy password replaced by `***`.")],
        pub generating_policy_yaml: Option<String> [computed("From Kyverno 1.17 (`kyverno_version`), with `trusted_ca` or `credentials_secret_namespace`: the `GeneratingPolicy` (`policies.kyverno.io/v1`) that, on every namespace but the excluded ones (created, updated, and those that exist already: `generateExisting`), applies the CA ConfigMap (`config_map_name`) and clones the credentials Secret from `credentials_secret_namespace` into it, synchronized; null otherwise, and before 1.17, where the ClusterPolicy's `generate` rules do it. Holds no credential. Kyverno's background controller writes what it generates: the Kyverno chart's role for it allows ConfigMaps and Secrets; an install without that role needs an aggregated ClusterRole labelled `rbac.kyverno.io/aggregate-to-background-controller: \"true\"`.")],
        /// The Secret.
        pub secret: CredentialsSecretOutput [embed],
    }
}

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
        !p.is_empty() && p.len() <= 253 && p.split('.').all(|l| k8s::dns1123_label(l, 63).is_ok())
    });
    (!(name_ok && prefix_ok)).then(|| {
        Finding::error(
            None,
            "Invalid annotation key",
            format!("{:?} is not a Kubernetes annotation key: an optional DNS subdomain prefix and `/`, then 1 to 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit.", redact_userinfo(value)),
        )
    })
}

impl DataSource for KyvernoPolicyDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_kyverno_policy"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders Kyverno policies that inject the proxy environment into new pods, with namespace exclusions, an opt-out annotation and the proxy's CA: for Kyverno 1.17 and later (`kyverno_version`, default 1.19) a `MutatingPolicy` and a `GeneratingPolicy` (`policies.kyverno.io/v1`, checked against the CRDs of 1.17, 1.18 and 1.19), for 1.13 to 1.16 a ClusterPolicy (checked against the CRDs of 1.13 and 1.19). Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let Some(config) = Config::get_planned(config, diags) else {
            return;
        };
        config.proxy.validate_ca_only_inputs(
            &[(
                Config::config_map_name,
                config.config_map_name.known().is_some(),
            )],
            diags,
        );
        inputs::check_names(
            &[
                (Config::policy_name, &config.policy_name),
                (Config::config_map_name, &config.config_map_name),
            ],
            diags,
        );
        config.secret.validate(diags);
        if let Some(Err(finding)) = config.kyverno_version.known().map(|v| kyverno::minor(v)) {
            convert::push_findings(
                &[finding],
                &AttributePath::root(),
                SettingsAt::Renderer,
                diags,
            );
        }
        for (index, namespace) in config.excluded_namespaces.iter().enumerate() {
            let Some(namespace) = namespace.known() else {
                continue;
            };
            if let Err(finding) = k8s::dns1123_label(namespace, 63) {
                let path = AttributePath::attribute(Config::excluded_namespaces).index(index);
                convert::push_findings(&[finding], &path, SettingsAt::Renderer, diags);
            }
        }
        if let Some(finding) = config
            .opt_out_annotation
            .known()
            .and_then(|key| annotation_key(key))
        {
            let path = AttributePath::attribute(Config::opt_out_annotation);
            convert::push_findings(&[finding], &path, SettingsAt::Renderer, diags);
        }
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let proxy = config.proxy.resolve(diags)?;
        let known = |value: &Maybe<String>| value.known().cloned().unwrap_or_default();
        let kyverno = Kyverno {
            version: known(&config.kyverno_version),
            name: known(&config.policy_name),
            excluded_namespaces: config.excluded_namespaces.iter().map(known).collect(),
            opt_out_annotation: known(&config.opt_out_annotation),
            config_map_name: known(&config.config_map_name),
            credentials_secret: config.secret.reference(),
        };
        let (secret, redacted) = inputs::render_both(&kyverno, &proxy, diags)?;
        Some(model::computed(State {
            policy_yaml: secret.policy,
            policy_yaml_redacted: redacted.policy,
            generating_policy_yaml: secret.generating_policy,
            secret: CredentialsSecretOutput::new(
                secret.credentials_secret,
                redacted.credentials_secret,
            ),
        }))
    }
}

impl Platform for KyvernoPolicyDataSource {
    fn area(&self) -> Area {
        Area::Pods
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "every new pod",
            writes: "per `kyverno_version`: from 1.17 a `MutatingPolicy` (JSON Patch) and a `GeneratingPolicy` (checked against the CRDs of 1.17, 1.18 and 1.19), for 1.13 to 1.16 a ClusterPolicy (checked against the CRDs of 1.13 and 1.19), that inject the env and the CA",
            pitfalls: "`kube-system` excluded by default, an opt-out annotation; only new pods change",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: Some(Config::kyverno_version),
            consumers: "Kyverno 1.13 and later: `policies.kyverno.io/v1` `MutatingPolicy` and `GeneratingPolicy` from 1.17 (checked against the CRDs of 1.17, 1.18 and 1.19), `kyverno.io/v1` ClusterPolicy for 1.13 to 1.16 (checked against the CRDs of 1.13 and 1.19)",
            differences: "from 1.17 the CEL policies, 1.17 with `generator.Apply` and `resource.Get`, 1.18 and later with `generator.apply` and `resource.get`; 1.13 to 1.16 the ClusterPolicy, with `generateExisting` on each `generate` rule (the field 1.13 introduced, so Kyverno before 1.13 is not supported)",
        }
    }

    fn summary(&self) -> &'static str {
        "Kyverno policies (a MutatingPolicy and a GeneratingPolicy, or a ClusterPolicy before 1.17) that inject the proxy env (and the CA) into new pods, with namespace exclusions and an opt-out annotation"
    }
}
