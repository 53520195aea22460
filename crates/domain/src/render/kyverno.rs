//! Kyverno: a `ClusterPolicy` (`kyverno.io/v1`) that mutates new pods to
//! carry the proxy environment, as Giant Swarm's kyverno-policies-connectivity
//! does: excluded namespaces (kube-system by default), an opt-out annotation,
//! and with a trusted CA a `generate` rule that keeps a ConfigMap with the
//! bundle in every namespace, plus the volume, mounts and CA variables.
//! With a [`CredentialsSecret`], the proxy URLs are read from that Secret
//! (`secretKeyRef`), so that the policy holds no credential; a Secret is
//! read from the pod's own namespace, so with the Secret's namespace a
//! second `generate` rule clones it (`generate.clone`, synchronized) into
//! every other namespace the policy does not exclude.
//!
//! Fields follow Kyverno 1.13's ClusterPolicy CRD (`spec.rules[].match.any[]
//! .resources.{kinds,operations}`, `exclude.any[].resources.{namespaces,
//! annotations}`, `mutate.patchStrategicMerge`, `generate.{apiVersion,kind,
//! name,namespace,synchronize,data,clone,generateExisting}`); the tests
//! check them against the models generated from that CRD (PyPI
//! `cloudcoil.models.kyverno` 1.13.4.0), and tests/oracles/upstream_schemas.rs
//! against the CRDs of 1.13 and 1.19. Each generate rule carries
//! `generate.generateExisting`, added in 1.13 (kyverno/kyverno#10441), which
//! deprecates the policy-wide `spec.generateExisting` ("use generateExisting
//! under the generate rule instead", api/kyverno/v1/spec_types.go); 1.13 and
//! every later release read the per-rule field, so one format serves them.

use serde_json::{json, Value};

use super::pod_env::{CredentialsSecret, SecretOutput};
use super::{pod_env, yaml, Held, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets};

/// Namespaces excluded when none are given.
pub const DEFAULT_EXCLUDED: [&str; 1] = ["kube-system"];
/// The annotation that opts a pod out when set to `"true"`.
pub const DEFAULT_OPT_OUT: &str = "clusterproxy.io/no-proxy-env";

/// Kyverno: the options of the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kyverno {
    /// `metadata.name` of the ClusterPolicy.
    pub name: String,
    /// Namespaces whose pods are left alone.
    pub excluded_namespaces: Vec<String>,
    /// Annotation key that opts a pod out with the value `"true"`.
    pub opt_out_annotation: String,
    /// Name of the CA ConfigMap kept in every namespace.
    pub config_map_name: String,
    /// The Secret the proxy URLs are read from: with its namespace, cloned
    /// from there into every namespace; without, it must already be in
    /// each namespace whose pods the policy mutates.
    pub credentials_secret: Option<CredentialsSecret>,
}

/// The policy and, with a Secret reference, the Secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KyvernoOutput {
    /// The ClusterPolicy manifest.
    pub policy: String,
    /// The Secret (see [`CredentialsSecret::render`]).
    pub credentials_secret: Option<SecretOutput>,
}

/// The container patch: the env entries (merged by name) and, with a CA, the mount.
fn container_patch(settings: &ProxySettings, options: &Kyverno, secrets: Secrets) -> Value {
    let mut container = json!({
        "(name)": "*",
        "env": pod_env::env_json(settings, secrets, options.credentials_secret.as_ref()),
    });
    if settings.trusted_ca.is_some() {
        container["volumeMounts"] = json!([{
            "name": pod_env::CA_VOLUME,
            "mountPath": pod_env::CA_MOUNT_PATH,
            "readOnly": true,
        }]);
    }
    container
}

impl Renderer for Kyverno {
    type Output = KyvernoOutput;

    fn render(&self, input: Input) -> Rendering<KyvernoOutput> {
        let Input {
            settings, secrets, ..
        } = input;
        Ok(Rendered::new(KyvernoOutput {
            policy: cluster_policy(settings, self, secrets),
            credentials_secret: self
                .credentials_secret
                .as_ref()
                .map(|secret| secret.render(settings, secrets)),
        }))
    }

    /// A policy that injects the settings into pods as they are created.
    fn held(&self, _: &KyvernoOutput) -> Held {
        Held::NoArtifact(
            "a Kyverno ClusterPolicy that injects the settings into pods: no import kind reads policies",
        )
    }
}

/// The ClusterPolicy manifest.
fn cluster_policy(settings: &ProxySettings, options: &Kyverno, secrets: Secrets) -> String {
    let container = container_patch(settings, options, secrets);
    let mut pod_spec = json!({
        "containers": [container],
    });
    if settings.trusted_ca.is_some() {
        pod_spec["volumes"] = json!([{
            "name": pod_env::CA_VOLUME,
            "configMap": {"name": options.config_map_name},
        }]);
    }
    // A set: sorted, once each, so that their order changes nothing.
    let namespaces: std::collections::BTreeSet<&str> = options
        .excluded_namespaces
        .iter()
        .map(String::as_str)
        .collect();
    let exclude_namespaces = |namespaces: &std::collections::BTreeSet<&str>,
                              kind_extra: Option<Value>| {
        let mut any = Vec::new();
        if !namespaces.is_empty() {
            any.push(json!({"resources": {"namespaces": namespaces}}));
        }
        if let Some(extra) = kind_extra {
            any.push(extra);
        }
        json!({ "any": any })
    };
    let exclude = |kind_extra| exclude_namespaces(&namespaces, kind_extra);
    let mut mutate = json!({
        "name": "inject-proxy-env",
        "match": {"any": [{"resources": {"kinds": ["Pod"], "operations": ["CREATE"]}}]},
        "exclude": exclude(Some(json!({"resources": {"annotations": {options.opt_out_annotation.as_str(): "true"}}}))),
        "mutate": {"patchStrategicMerge": {"spec": pod_spec}},
    });
    let mut rules = Vec::new();
    if let Some(ca) = &settings.trusted_ca {
        let mut rule = json!({
            "name": "trusted-ca-config-map",
            "match": {"any": [{"resources": {"kinds": ["Namespace"]}}]},
            "generate": {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "name": options.config_map_name,
                "namespace": "{{request.object.metadata.name}}",
                "synchronize": true,
                "generateExisting": true,
                "data": {"data": {pod_env::CA_KEY: ca.to_pem()}},
            },
        });
        if !options.excluded_namespaces.is_empty() {
            rule["exclude"] = exclude(None);
        }
        rules.push(rule);
    }
    if let Some(CredentialsSecret {
        name,
        namespace: Some(source),
    }) = &options.credentials_secret
    {
        // The source namespace has the Secret already: cloning onto itself
        // is left out.
        let mut targets = namespaces.clone();
        targets.insert(source);
        rules.push(json!({
            "name": "proxy-credentials-secret",
            "match": {"any": [{"resources": {"kinds": ["Namespace"]}}]},
            "exclude": exclude_namespaces(&targets, None),
            "generate": {
                "apiVersion": "v1",
                "kind": "Secret",
                "name": name,
                "namespace": "{{request.object.metadata.name}}",
                "synchronize": true,
                "generateExisting": true,
                "clone": {"namespace": source, "name": name},
            },
        }));
    }
    if options.excluded_namespaces.is_empty() {
        // Only the opt-out annotation remains.
        let annotation = mutate["exclude"]["any"][0].clone();
        mutate["exclude"] = json!({"any": [annotation]});
    }
    rules.push(mutate);
    let spec = json!({ "rules": rules });
    yaml::to_string(&json!({
        "apiVersion": "kyverno.io/v1",
        "kind": "ClusterPolicy",
        "metadata": {
            "name": options.name,
            "annotations": {
                "policies.kyverno.io/title": "Proxy environment",
                "policies.kyverno.io/description": format!(
                    "Adds HTTP_PROXY, HTTPS_PROXY and NO_PROXY (both cases){} to every container of new pods, except in excluded namespaces and pods annotated {}: \"true\".",
                    if settings.trusted_ca.is_some() { " and the proxy's CA" } else { "" },
                    options.opt_out_annotation
                ),
            },
        },
        "spec": spec,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::openshift::tests::fixed_ca;
    use crate::render::tests::{golden, settings};
    use crate::trusted_ca::{tests::bundle, TrustedCa};

    fn options() -> Kyverno {
        Kyverno {
            name: "clusterproxy-env".into(),
            excluded_namespaces: vec!["kube-system".into(), "flux-system".into()],
            opt_out_annotation: DEFAULT_OPT_OUT.into(),
            config_map_name: "clusterproxy-trusted-ca".into(),
            credentials_secret: None,
        }
    }

    #[test]
    fn policy_matches_golden_files() {
        let mut s = settings();
        let plain = cluster_policy(&s, &options(), Secrets::Redact);
        golden("kyverno/cluster-policy.yaml", &plain);
        s.trusted_ca = Some(fixed_ca());
        let with_ca = cluster_policy(&s, &options(), Secrets::Redact);
        golden("kyverno/cluster-policy-ca.yaml", &with_ca);
    }

    #[test]
    fn policy_content() {
        let mut s = settings();
        s.trusted_ca = Some(TrustedCa::parse(&bundle(true)).unwrap());
        let text = cluster_policy(&s, &options(), Secrets::Include);
        let doc: Value = serde_yaml_ng::from_str(&text).unwrap();
        let rules = doc["spec"]["rules"].as_array().unwrap();
        assert_eq!(
            rules[0]["generate"]["data"]["data"][pod_env::CA_KEY],
            s.trusted_ca.as_ref().unwrap().to_pem()
        );
        let mutate = &rules[1];
        assert_eq!(
            mutate["exclude"]["any"][0]["resources"]["namespaces"],
            json!(["flux-system", "kube-system"])
        );
        assert_eq!(
            mutate["exclude"]["any"][1]["resources"]["annotations"][DEFAULT_OPT_OUT],
            "true"
        );
        let container = &mutate["mutate"]["patchStrategicMerge"]["spec"]["containers"][0];
        assert_eq!(
            container["env"],
            pod_env::env_json(&s, Secrets::Include, None)
        );
        assert_eq!(
            container["volumeMounts"][0]["mountPath"],
            pod_env::CA_MOUNT_PATH
        );
        // Kyverno substitutes `{{...}}`: only our one variable may appear,
        // even when the credentials are made of Kyverno expressions.
        assert_eq!(text.matches("{{").count(), 1);
        let credentials = crate::proxy_url::ProxyCredentials::new(
            "{{request.object.metadata.name}}",
            "{{ serviceAccountName }}",
        )
        .unwrap();
        s.http_proxy = s
            .http_proxy
            .map(|u| u.with_credentials(credentials.clone()));
        s.https_proxy = s.https_proxy.map(|u| u.with_credentials(credentials));
        for secrets in [Secrets::Include, Secrets::Redact] {
            let text = cluster_policy(&s, &options(), secrets);
            assert_eq!(text.matches('{').count(), 2, "{text}");
        }
    }

    /// With a Secret reference: no credential in the policy (which still
    /// validates against the CRD), the env reads the Secret, and a clone
    /// rule copies it from its namespace into every namespace but the
    /// excluded ones and its own; without the namespace, no clone rule.
    #[test]
    fn secret_reference_policy() {
        let mut s = settings();
        s.trusted_ca = Some(fixed_ca());
        let mut with_ref = options();
        with_ref.credentials_secret = Some(pod_env::tests::reference());
        let text = cluster_policy(&s, &with_ref, Secrets::Include);
        golden("kyverno/cluster-policy-secret-ref.yaml", &text);
        assert_eq!(text, cluster_policy(&s, &with_ref, Secrets::Redact));
        assert!(!text.contains("svc-proxy"), "{text}");
        let doc: Value = serde_yaml_ng::from_str(&text).unwrap();
        let rules = doc["spec"]["rules"].as_array().unwrap();
        // Each generate rule applies to the namespaces that exist already,
        // with Kyverno 1.13's per-rule field, not the deprecated policy-wide one.
        assert_eq!(doc["spec"].get("generateExisting"), None);
        for rule in &rules[..2] {
            assert_eq!(rule["generate"]["generateExisting"], true, "{rule}");
        }
        assert_eq!(rules[2].get("generate"), None);
        let clone = &rules[1];
        assert_eq!(
            clone["generate"]["clone"],
            json!({"namespace": "platform", "name": "proxy-credentials"})
        );
        assert_eq!(clone["generate"]["name"], "proxy-credentials");
        assert_eq!(
            clone["exclude"]["any"][0]["resources"]["namespaces"],
            json!(["flux-system", "kube-system", "platform"])
        );
        let container = &rules[2]["mutate"]["patchStrategicMerge"]["spec"]["containers"][0];
        assert_eq!(
            container["env"],
            pod_env::env_json(&s, Secrets::Include, with_ref.credentials_secret.as_ref())
        );
        // Without the namespace: no clone rule; without a CA, no generate at all.
        let mut in_place = with_ref.clone();
        in_place.credentials_secret.as_mut().unwrap().namespace = None;
        let plain = settings();
        let no_clone = cluster_policy(&plain, &in_place, Secrets::Include);
        assert!(
            !no_clone.contains("clone") && !no_clone.contains("generate"),
            "{no_clone}"
        );
        assert!(!no_clone.contains("svc-proxy"));
        // Nothing excluded: the clone rule still skips the source namespace.
        let mut nothing_excluded = with_ref.clone();
        nothing_excluded.excluded_namespaces.clear();
        let open = cluster_policy(&plain, &nothing_excluded, Secrets::Include);
        let doc: Value = serde_yaml_ng::from_str(&open).unwrap();
        assert_eq!(
            doc["spec"]["rules"][0]["exclude"]["any"],
            json!([{"resources": {"namespaces": ["platform"]}}])
        );
        let rendered = with_ref
            .render(Input {
                settings: &s,
                cluster: &crate::render::Cluster::default(),
                secrets: Secrets::Include,
            })
            .unwrap()
            .output;
        assert_eq!(rendered.policy, text);
        assert_eq!(
            rendered.credentials_secret,
            Some(pod_env::tests::reference().render(&s, Secrets::Include))
        );
    }

    /// The excluded namespaces are a set: their order and repetitions do not
    /// change the policy.
    #[test]
    fn excluded_namespaces_are_a_set() {
        let policy = |namespaces: &[&str]| {
            let mut options = options();
            options.excluded_namespaces = namespaces.iter().map(|n| (*n).to_owned()).collect();
            cluster_policy(&settings(), &options, Secrets::Redact)
        };
        let sorted = policy(&["flux-system", "kube-system"]);
        assert_eq!(
            policy(&["kube-system", "flux-system", "kube-system"]),
            sorted
        );
        assert_eq!(sorted.matches("- kube-system").count(), 1, "{sorted}");
    }
}
