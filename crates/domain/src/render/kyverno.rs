//! Kyverno: for Kyverno 1.17 and later, the CEL policies of
//! [`cel_policy`] (a `MutatingPolicy` and a `GeneratingPolicy`,
//! `policies.kyverno.io/v1`), which Kyverno 1.19 recommends: it answers
//! every `ClusterPolicy` with a deprecation warning (kyverno/kyverno commit
//! 6b9f0e619a). For 1.13 to 1.16, a `ClusterPolicy` (`kyverno.io/v1`) that
//! mutates new pods to carry the proxy environment, as Giant Swarm's
//! kyverno-policies-connectivity does: excluded namespaces (kube-system by default), an opt-out annotation,
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
//! Before 1.13 nothing is rendered: the version is an error.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use super::pod_env::{CredentialsSecret, SecretOutput};
use super::{
    minor_version, pod_env, yaml, Held, Input, ProxySettings, Rendered, Renderer, Rendering,
    Secrets,
};
use crate::redact::redact_userinfo;
use crate::{Finding, InputField};

pub mod cel_policy;
#[cfg(any(test, feature = "test-support"))]
pub mod evaluate;

/// Namespaces excluded when none are given.
pub const DEFAULT_EXCLUDED: [&str; 1] = ["kube-system"];
/// The annotation that opts a pod out when set to `"true"`.
pub const DEFAULT_OPT_OUT: &str = "clusterproxy.io/no-proxy-env";

/// `kyverno_version` when unset: the newest Kyverno release.
pub const DEFAULT_VERSION: &str = "1.19";
/// The oldest Kyverno minor supported: the first with the per-rule
/// `generateExisting`.
pub const OLDEST_SUPPORTED: u32 = 13;
/// The first Kyverno minor rendered with the CEL policies.
pub const CEL_POLICIES_SINCE: u32 = 17;

/// The option `kyverno_version`: the Kyverno release of the cluster.
pub const KYVERNO_VERSION: InputField = InputField::Option("kyverno_version");

/// The Kyverno version as a 1.x minor, from `1.19` or `v1.17.2`; an error on
/// [`KYVERNO_VERSION`] for another shape or a release older than
/// [`OLDEST_SUPPORTED`].
pub fn minor(version: &str) -> Result<u32, Finding> {
    let field = KYVERNO_VERSION;
    match minor_version(version, "1") {
        None => Err(Finding::error(
            field,
            "Invalid Kyverno version",
            format!(
                "{:?} is not a Kyverno 1.x version such as \"1.19\" or \"v1.17.2\".",
                redact_userinfo(version)
            ),
        )),
        Some(minor) if minor < OLDEST_SUPPORTED => Err(Finding::error(
            field,
            "Unsupported Kyverno version",
            format!(
                "Kyverno 1.{minor} is older than 1.{OLDEST_SUPPORTED}, the oldest release supported: the policy needs the per-rule `generateExisting` of 1.{OLDEST_SUPPORTED}. Upgrade Kyverno, or set a version of 1.{OLDEST_SUPPORTED} or later."
            ),
        )),
        Some(minor) => Ok(minor),
    }
}

/// Kyverno: the options of the policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kyverno {
    /// The Kyverno release (`1.19`, `v1.16.3`): from 1.17 the CEL policies,
    /// before it the ClusterPolicy.
    pub version: String,
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

impl Kyverno {
    /// The excluded namespaces as a set: sorted, once each, so that their
    /// order changes nothing.
    fn namespaces(&self) -> BTreeSet<&str> {
        self.excluded_namespaces
            .iter()
            .map(String::as_str)
            .collect()
    }

    /// What the mutation does, for the policy's description.
    fn description(&self, settings: &ProxySettings) -> String {
        format!(
            "Adds HTTP_PROXY, HTTPS_PROXY and NO_PROXY (both cases){} to every container of new pods, except in excluded namespaces and pods annotated {}: \"true\".",
            if settings.trusted_ca.is_some() { " and the proxy's CA" } else { "" },
            self.opt_out_annotation
        )
    }
}

/// The policies and, with a Secret reference, the Secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KyvernoOutput {
    /// The `MutatingPolicy` from Kyverno 1.17, the `ClusterPolicy` before.
    pub policy: String,
    /// From Kyverno 1.17, with a CA or the Secret's namespace: the
    /// `GeneratingPolicy` that keeps the ConfigMap and the Secret in every
    /// namespace (before 1.17 the ClusterPolicy's `generate` rules do).
    pub generating_policy: Option<String>,
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

    const MODULE: &'static str = "kyverno";

    const OPTIONS: &'static [InputField] = &[KYVERNO_VERSION];

    fn sample() -> Self {
        Kyverno {
            version: DEFAULT_VERSION.to_owned(),
            name: "proxy-env".to_owned(),
            excluded_namespaces: vec!["kube-system".to_owned()],
            opt_out_annotation: "proxy.example/opt-out".to_owned(),
            config_map_name: "proxy-ca".to_owned(),
            credentials_secret: Some(crate::render::pod_env::CredentialsSecret {
                name: "proxy-credentials".to_owned(),
                namespace: None,
            }),
        }
    }

    fn render(&self, input: Input) -> Rendering<KyvernoOutput> {
        let Input {
            settings, secrets, ..
        } = input;
        let minor = minor(&self.version).map_err(|finding| vec![finding])?;
        let (policy, generating_policy) = if minor >= CEL_POLICIES_SINCE {
            (
                cel_policy::mutating_policy(settings, self, secrets),
                cel_policy::generating_policy(settings, self, minor),
            )
        } else {
            (cluster_policy(settings, self, secrets), None)
        };
        Ok(Rendered::new(KyvernoOutput {
            policy,
            generating_policy,
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
    let namespaces = options.namespaces();
    let exclude_namespaces = |namespaces: &BTreeSet<&str>, kind_extra: Option<Value>| {
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
                "policies.kyverno.io/description": options.description(settings),
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
            version: DEFAULT_VERSION.into(),
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
        let rendered = render(&s, &with_ref, "1.16", Secrets::Include);
        assert_eq!(rendered.policy, text);
        assert_eq!(rendered.generating_policy, None);
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

    /// `options` rendered for Kyverno `version`.
    fn render(
        settings: &ProxySettings,
        options: &Kyverno,
        version: &str,
        secrets: Secrets,
    ) -> KyvernoOutput {
        let options = Kyverno {
            version: version.into(),
            ..options.clone()
        };
        options
            .render(Input {
                settings,
                cluster: &crate::render::Cluster::default(),
                secrets,
            })
            .unwrap()
            .output
    }

    fn parse(text: &str) -> Value {
        serde_yaml_ng::from_str(text).unwrap()
    }

    /// A pod with one container that sets its own `HTTP_PROXY`, a mount
    /// and a volume, and one that has none of them.
    fn pod(annotations: Value) -> Value {
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "app", "annotations": annotations},
            "spec": {
                "containers": [
                    {
                        "name": "app",
                        "image": "app:1",
                        "env": [{"name": "HTTP_PROXY", "value": "http://old:1"}, {"name": "LOG", "value": "debug"}],
                        "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                    },
                    {"name": "sidecar", "image": "sidecar:1"},
                ],
                "volumes": [{"name": "data", "emptyDir": {}}],
            },
        })
    }

    /// The version chooses the policy: the ClusterPolicy up to 1.16, the
    /// CEL policies from 1.17 (and for releases newer than this renderer
    /// knows); the default is the newest release.
    #[test]
    fn version_chooses_the_policy() {
        let mut s = settings();
        s.trusted_ca = Some(fixed_ca());
        for version in ["1.13", "v1.16.3", "1.16"] {
            let out = render(&s, &options(), version, Secrets::Redact);
            assert_eq!(
                out.policy,
                cluster_policy(&s, &options(), Secrets::Redact),
                "{version}"
            );
            assert_eq!(out.generating_policy, None, "{version}");
        }
        for version in ["1.17", "v1.18.2", "1.19", "1.19.0", "1.20"] {
            let out = render(&s, &options(), version, Secrets::Redact);
            assert_eq!(parse(&out.policy)["kind"], "MutatingPolicy", "{version}");
            let generating = parse(out.generating_policy.as_deref().unwrap());
            assert_eq!(generating["kind"], "GeneratingPolicy", "{version}");
            assert_eq!(
                generating["apiVersion"], "policies.kyverno.io/v1",
                "{version}"
            );
        }
        assert_eq!(options().version, "1.19");
    }

    /// A version that is not one, or older than 1.13, is an error on
    /// `kyverno_version`, naming what was given.
    #[test]
    fn bad_versions_are_errors_on_the_version() {
        for (version, summary) in [
            ("latest", "Invalid Kyverno version"),
            ("", "Invalid Kyverno version"),
            ("1", "Invalid Kyverno version"),
            ("2.0", "Invalid Kyverno version"),
            ("1.x", "Invalid Kyverno version"),
            ("1.19.0-rc.1", "Invalid Kyverno version"),
            ("1.12", "Unsupported Kyverno version"),
            ("v1.9.4", "Unsupported Kyverno version"),
        ] {
            let options = Kyverno {
                version: version.into(),
                ..options()
            };
            let findings = options
                .render(Input {
                    settings: &settings(),
                    cluster: &crate::render::Cluster::default(),
                    secrets: Secrets::Redact,
                })
                .unwrap_err();
            assert_eq!(findings.len(), 1, "{version}");
            assert_eq!(findings[0].summary, summary, "{version}");
            assert_eq!(
                findings[0].location,
                Some(KYVERNO_VERSION.into()),
                "{version}"
            );
        }
    }

    #[test]
    fn cel_policies_match_golden_files() {
        let mut s = settings();
        let plain = render(&s, &options(), "1.19", Secrets::Redact);
        golden("kyverno/mutating-policy.yaml", &plain.policy);
        assert_eq!(plain.generating_policy, None);
        s.trusted_ca = Some(fixed_ca());
        let with_ca = render(&s, &options(), "1.19", Secrets::Redact);
        golden("kyverno/mutating-policy-ca.yaml", &with_ca.policy);
        golden(
            "kyverno/generating-policy-ca.yaml",
            with_ca.generating_policy.as_deref().unwrap(),
        );
        let mut with_ref = options();
        with_ref.credentials_secret = Some(pod_env::tests::reference());
        let secret_ref = render(&s, &with_ref, "1.19", Secrets::Include);
        golden(
            "kyverno/mutating-policy-secret-ref.yaml",
            &secret_ref.policy,
        );
        let generating = secret_ref.generating_policy.unwrap();
        golden("kyverno/generating-policy-secret-ref.yaml", &generating);
        assert!(!format!("{}{generating}", secret_ref.policy).contains("svc-proxy"));
        // Kyverno 1.17 spells the generator and resource functions in capitals.
        let old = render(&s, &with_ref, "1.17", Secrets::Include);
        assert_eq!(old.policy, secret_ref.policy);
        golden(
            "kyverno/generating-policy-secret-ref-1.17.yaml",
            old.generating_policy.as_deref().unwrap(),
        );
    }

    /// The mutation, compiled and evaluated by a CEL implementation on
    /// sample pods, and its JSON Patch applied: the env (with the
    /// password, however hostile, as it was), the mount and the volume land,
    /// the container's own `HTTP_PROXY` gives way and its other entries,
    /// mounts and volumes stay; excluded namespaces and opted-out pods are
    /// untouched.
    #[test]
    fn mutation_evaluated_on_sample_pods() {
        let mut s = settings();
        s.trusted_ca = Some(fixed_ca());
        let policy = parse(&render(&s, &options(), "1.19", Secrets::Include).policy);
        for expression in evaluate::expressions(&policy) {
            evaluate::compile(&expression).unwrap();
        }
        let env = pod_env::env_json(&s, Secrets::Include, None);
        let mount = json!({"name": pod_env::CA_VOLUME, "mountPath": pod_env::CA_MOUNT_PATH, "readOnly": true});
        let not_opted_out = [json!({}), json!({DEFAULT_OPT_OUT: "false"}), json!(null)];
        for annotations in not_opted_out {
            let mut sample = pod(annotations.clone());
            if annotations.is_null() {
                sample["metadata"]
                    .as_object_mut()
                    .unwrap()
                    .remove("annotations");
            }
            let patched = evaluate::mutate(&policy, "default", &sample)
                .unwrap()
                .unwrap();
            let containers = &patched["spec"]["containers"];
            let mut app_env = vec![json!({"name": "LOG", "value": "debug"})];
            app_env.extend(env.as_array().unwrap().iter().cloned());
            assert_eq!(containers[0]["env"], json!(app_env), "{annotations}");
            assert_eq!(containers[1]["env"], env);
            assert_eq!(
                containers[0]["volumeMounts"],
                json!([{"name": "data", "mountPath": "/data"}, mount])
            );
            assert_eq!(containers[1]["volumeMounts"], json!([mount]));
            assert_eq!(
                patched["spec"]["volumes"],
                json!([{"name": "data", "emptyDir": {}}, {"name": pod_env::CA_VOLUME, "configMap": {"name": "clusterproxy-trusted-ca"}}])
            );
            assert_eq!(patched["metadata"], sample["metadata"]);
            // A second admission (a reinvocation) changes nothing more.
            let again = evaluate::mutate(&policy, "default", &patched)
                .unwrap()
                .unwrap();
            assert_eq!(again, patched);
        }
        for namespace in ["kube-system", "flux-system"] {
            assert_eq!(
                evaluate::mutate(&policy, namespace, &pod(json!({}))),
                Ok(None),
                "{namespace}"
            );
        }
        let opted_out = pod(json!({DEFAULT_OPT_OUT: "true"}));
        assert_eq!(evaluate::mutate(&policy, "default", &opted_out), Ok(None));
        // Nothing excluded: only the annotation keeps a pod out.
        let mut open = options();
        open.excluded_namespaces.clear();
        let policy = parse(&render(&s, &open, "1.19", Secrets::Include).policy);
        assert!(evaluate::mutate(&policy, "kube-system", &pod(json!({})))
            .unwrap()
            .is_some());
        assert_eq!(
            evaluate::mutate(&policy, "kube-system", &opted_out),
            Ok(None)
        );
        // With a Secret reference: the variables read it, no CA, no mount.
        let mut with_ref = options();
        with_ref.credentials_secret = Some(pod_env::tests::reference());
        let plain = settings();
        let policy = parse(&render(&plain, &with_ref, "1.17", Secrets::Include).policy);
        let patched = evaluate::mutate(&policy, "default", &pod(json!({})))
            .unwrap()
            .unwrap();
        assert_eq!(
            patched["spec"]["containers"][1]["env"],
            pod_env::env_json(
                &plain,
                Secrets::Include,
                with_ref.credentials_secret.as_ref()
            )
        );
        assert_eq!(patched["spec"]["containers"][1].get("volumeMounts"), None);
        assert_eq!(
            patched["spec"]["volumes"],
            json!([{"name": "data", "emptyDir": {}}])
        );
    }

    /// The generation, evaluated by a CEL implementation for each Kyverno
    /// release's function names: the CA ConfigMap and the cloned Secret go
    /// into a namespace, only the ConfigMap into the Secret's own, nothing
    /// into an excluded one; the 1.17 policy does not run on 1.18's names.
    #[test]
    fn generation_evaluated_on_sample_namespaces() {
        let mut s = settings();
        s.trusted_ca = Some(fixed_ca());
        let mut with_ref = options();
        with_ref.credentials_secret = Some(pod_env::tests::reference());
        let source = json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "proxy-credentials", "namespace": "platform"},
            "data": {"HTTP_PROXY": "aHR0cDovL3g6MQ=="},
        });
        let namespace = |name: &str| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        let config_map = json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "clusterproxy-trusted-ca"},
            "data": {pod_env::CA_KEY: fixed_ca().to_pem()},
        });
        for (version, minor) in [("1.17", 17), ("1.18", 18), ("1.19", 19)] {
            let text = render(&s, &with_ref, version, Secrets::Include)
                .generating_policy
                .unwrap();
            let policy = parse(&text);
            for expression in evaluate::expressions(&policy) {
                evaluate::compile(&expression).unwrap();
            }
            let cluster = std::slice::from_ref(&source);
            assert_eq!(
                evaluate::generate(&policy, minor, &namespace("team-a"), cluster),
                Ok(Some(vec![
                    ("team-a".to_owned(), config_map.clone()),
                    ("team-a".to_owned(), source.clone()),
                ])),
                "{version}"
            );
            assert_eq!(
                evaluate::generate(&policy, minor, &namespace("platform"), cluster),
                Ok(Some(vec![("platform".to_owned(), config_map.clone())])),
                "{version}"
            );
            assert_eq!(
                evaluate::generate(&policy, minor, &namespace("kube-system"), cluster),
                Ok(None),
                "{version}"
            );
            assert_eq!(
                policy["spec"]["evaluation"]["generateExisting"]["enabled"],
                true
            );
            assert_eq!(policy["spec"]["evaluation"]["synchronize"]["enabled"], true);
            let other = if minor == 17 { 18 } else { 17 };
            assert!(
                evaluate::generate(&policy, other, &namespace("team-a"), cluster).is_err(),
                "{version} on 1.{other}'s names"
            );
        }
        // Without the Secret's namespace, no clone; without a CA either, no policy.
        let mut in_place = with_ref.clone();
        in_place.credentials_secret.as_mut().unwrap().namespace = None;
        let text = render(&s, &in_place, "1.19", Secrets::Include)
            .generating_policy
            .unwrap();
        assert_eq!(
            evaluate::generate(&parse(&text), 19, &namespace("team-a"), &[]),
            Ok(Some(vec![("team-a".to_owned(), config_map.clone())]))
        );
        assert_eq!(
            render(&settings(), &in_place, "1.19", Secrets::Include).generating_policy,
            None
        );
    }

    /// A JSON value is a CEL literal; the members of a list or map that mix
    /// types are wrapped in `dyn()`, the others are not.
    #[test]
    fn literals_are_homogeneous_or_dyn() {
        use cel_policy::literal;
        assert_eq!(
            literal(&json!(["a", "b"])),
            (r#"["a", "b"]"#.into(), "list(string)".into())
        );
        assert_eq!(
            literal(&json!({"name": "x", "readOnly": true})),
            (
                r#"{"name": dyn("x"), "readOnly": dyn(true)}"#.into(),
                "map(string, dyn)".into()
            )
        );
        assert_eq!(
            literal(&json!([{"name": "a", "value": "b"}, {"name": "c", "valueFrom": {"k": "v"}}]))
                .1,
            "list(dyn)"
        );
        assert_eq!(literal(&json!([])), ("[]".into(), "list(dyn)".into()));
        let nasty = json!(crate::render::tests::NASTY_PASSWORD.to_owned() + "\n\u{1}\"é");
        let program = evaluate::compile(&literal(&nasty).0).unwrap();
        let value = program.execute(&::cel::Context::default()).unwrap();
        assert_eq!(value.json().unwrap(), nasty);
    }
}
