//! Pod environment: the `env` list of a container spec, also usable as Helm
//! `env` values, and with a trusted CA the ConfigMap that carries the bundle,
//! the volume and mount that put it in the container, and the variables that
//! point the clients at it. With a [`CredentialsSecret`], the proxy URLs
//! (which carry the credentials) are read from that Secret through
//! `valueFrom.secretKeyRef`, and the Secret is rendered on its own.

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};

use super::{yaml, Held, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets};

/// Where the CA bundle is mounted in the containers.
pub const CA_MOUNT_PATH: &str = "/etc/clusterproxy/ca";
/// The key (and file name) of the bundle in the ConfigMap.
pub const CA_KEY: &str = "ca.crt";
/// Name of the volume that mounts the ConfigMap.
pub const CA_VOLUME: &str = "clusterproxy-trusted-ca";

/// The variables that point clients at the mounted bundle: OpenSSL-based
/// clients and Go (`SSL_CERT_FILE`; it replaces the system bundle),
/// requests (`REQUESTS_CA_BUNDLE`; it replaces certifi's) and Node
/// (`NODE_EXTRA_CA_CERTS`; added to Node's own roots).
pub const CA_VARIABLES: [&str; 3] = ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"];

/// Key of the HTTP proxy URL in the [`CredentialsSecret`]; named as the
/// variable, so that `envFrom.secretRef` sets it too.
pub const HTTP_PROXY_KEY: &str = "HTTP_PROXY";
/// Key of the HTTPS proxy URL in the [`CredentialsSecret`].
pub const HTTPS_PROXY_KEY: &str = "HTTPS_PROXY";

/// The Secret the proxy URLs are read from, so that what references it
/// holds no credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialsSecret {
    /// Secret name.
    pub name: String,
    /// Its namespace, when given.
    pub namespace: Option<String>,
}

/// The Secret, rendered: its manifest and its `data` as plain text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretOutput {
    /// The Secret manifest (`data` base64-encoded).
    pub manifest: String,
    /// Key -> value, not encoded (what `kubernetes_secret_v1.data_wo` takes).
    pub data: BTreeMap<String, String>,
}

impl CredentialsSecret {
    /// The key a proxy variable (either case) is read from; `None` for the
    /// variables that carry no credential.
    pub fn key_of(variable: &str) -> Option<&'static str> {
        match variable.to_ascii_uppercase().as_str() {
            "HTTP_PROXY" => Some(HTTP_PROXY_KEY),
            "HTTPS_PROXY" => Some(HTTPS_PROXY_KEY),
            _ => None,
        }
    }

    /// The Secret's content: each configured proxy URL under its key.
    pub fn data(settings: &ProxySettings, secrets: Secrets) -> BTreeMap<String, String> {
        [
            (HTTP_PROXY_KEY, &settings.http_proxy),
            (HTTPS_PROXY_KEY, &settings.https_proxy),
        ]
        .into_iter()
        .filter_map(|(key, url)| {
            url.as_ref()
                .map(|url| (key.to_owned(), ProxySettings::url(url, secrets)))
        })
        .collect()
    }

    /// The Secret (`v1`, `Opaque`) with [`CredentialsSecret::data`].
    pub fn render(&self, settings: &ProxySettings, secrets: Secrets) -> SecretOutput {
        let data = Self::data(settings, secrets);
        let mut metadata = json!({"name": self.name});
        if let Some(namespace) = &self.namespace {
            metadata["namespace"] = json!(namespace);
        }
        let encoded: BTreeMap<&String, String> =
            data.iter().map(|(k, v)| (k, STANDARD.encode(v))).collect();
        let manifest = yaml::to_string(&json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": metadata,
            "type": "Opaque",
            "data": encoded,
        }));
        SecretOutput { manifest, data }
    }
}

/// Pod env: the name (and namespace) of the CA ConfigMap, and the Secret
/// the proxy URLs come from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodEnv {
    /// Name of the ConfigMap holding the trusted CA.
    pub config_map_name: String,
    /// Its namespace, when given.
    pub namespace: Option<String>,
    /// The Secret the proxy URLs are read from, when given.
    pub credentials_secret: Option<CredentialsSecret>,
}

/// Where a variable's value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvValue {
    /// The value itself.
    Value(String),
    /// A key of a Secret (`valueFrom.secretKeyRef`).
    SecretKey {
        /// Secret name.
        secret: String,
        /// Key in it.
        key: &'static str,
    },
}

/// The env entries and, with a trusted CA, what carries it into the pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodEnvOutput {
    /// The env entries (see [`env()`]).
    pub env: Vec<(String, EnvValue)>,
    /// The same as a YAML document (see [`env_yaml`]).
    pub env_yaml: String,
    /// The CA ConfigMap (see [`ca_config_map`]).
    pub ca_config_map: Option<String>,
    /// The `volumes:` and `volumeMounts:` entries (see [`ca_volumes`]).
    pub ca_volumes: Option<(String, String)>,
    /// With a [`CredentialsSecret`], the Secret.
    pub credentials_secret: Option<SecretOutput>,
}

impl Renderer for PodEnv {
    type Output = PodEnvOutput;

    const MODULE: &'static str = "pod_env";

    fn sample() -> Self {
        PodEnv {
            config_map_name: "proxy-ca".to_owned(),
            namespace: None,
            credentials_secret: Some(crate::render::pod_env::CredentialsSecret {
                name: "proxy-credentials".to_owned(),
                namespace: None,
            }),
        }
    }

    fn render(&self, input: Input) -> Rendering<PodEnvOutput> {
        let Input {
            settings, secrets, ..
        } = input;
        let reference = self.credentials_secret.as_ref();
        Ok(Rendered::new(PodEnvOutput {
            env: env(settings, secrets, reference),
            env_yaml: env_yaml(settings, secrets, reference),
            ca_config_map: ca_config_map(
                settings,
                &self.config_map_name,
                self.namespace.as_deref(),
            ),
            ca_volumes: ca_volumes(settings, &self.config_map_name),
            credentials_secret: reference.map(|secret| secret.render(settings, secrets)),
        }))
    }

    /// Container `env` entries, which go into the workloads' own specs.
    fn held(&self, _: &PodEnvOutput) -> Held {
        Held::NoArtifact(
            "container `env` entries belong in each workload's spec: no artifact of the cluster's proxy settings",
        )
    }
}

/// The path of the bundle inside the containers.
pub fn ca_file_path() -> String {
    format!("{CA_MOUNT_PATH}/{CA_KEY}")
}

/// The env entries: the proxy variables in the fixed order, then with a
/// trusted CA the [`CA_VARIABLES`]. With `reference`, the proxy URLs come
/// from its keys; `NO_PROXY` and the CA variables stay values.
pub fn env(
    settings: &ProxySettings,
    secrets: Secrets,
    reference: Option<&CredentialsSecret>,
) -> Vec<(String, EnvValue)> {
    let mut out: Vec<(String, EnvValue)> = settings
        .variables(secrets)
        .into_iter()
        .map(|(name, value)| {
            let source = match (reference, CredentialsSecret::key_of(name)) {
                (Some(secret), Some(key)) => EnvValue::SecretKey {
                    secret: secret.name.clone(),
                    key,
                },
                _ => EnvValue::Value(value),
            };
            (name.to_owned(), source)
        })
        .collect();
    if settings.trusted_ca.is_some() {
        out.extend(CA_VARIABLES.map(|name| (name.to_owned(), EnvValue::Value(ca_file_path()))));
    }
    out
}

/// One env entry as Kubernetes writes it: `{"name", "value"}` or
/// `{"name", "valueFrom": {"secretKeyRef": {"name", "key"}}}`.
pub fn env_var_json(name: &str, value: &EnvValue) -> Value {
    match value {
        EnvValue::Value(value) => json!({"name": name, "value": value}),
        EnvValue::SecretKey { secret, key } => {
            json!({"name": name, "valueFrom": {"secretKeyRef": {"name": secret, "key": key}}})
        }
    }
}

/// The env list as a JSON value (see [`env_var_json`]).
pub fn env_json(
    settings: &ProxySettings,
    secrets: Secrets,
    reference: Option<&CredentialsSecret>,
) -> Value {
    Value::Array(
        env(settings, secrets, reference)
            .iter()
            .map(|(name, value)| env_var_json(name, value))
            .collect(),
    )
}

/// The env list as a YAML document (`env:` key), for Helm values and manifests.
pub fn env_yaml(
    settings: &ProxySettings,
    secrets: Secrets,
    reference: Option<&CredentialsSecret>,
) -> String {
    yaml::to_string(&json!({ "env": env_json(settings, secrets, reference) }))
}

/// The ConfigMap `name` (in `namespace`, when given) holding the bundle
/// under [`CA_KEY`]; `None` without a trusted CA.
pub fn ca_config_map(
    settings: &ProxySettings,
    name: &str,
    namespace: Option<&str>,
) -> Option<String> {
    let ca = settings.trusted_ca.as_ref()?;
    let mut metadata = json!({"name": name});
    if let Some(namespace) = namespace {
        metadata["namespace"] = json!(namespace);
    }
    Some(yaml::to_string(&json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata,
        "data": {CA_KEY: ca.to_pem()},
    })))
}

/// The pod `volumes:` entry for the ConfigMap `name` and the container
/// `volumeMounts:` entry (read-only at [`CA_MOUNT_PATH`]), as two YAML
/// documents; `None` without a trusted CA.
pub fn ca_volumes(settings: &ProxySettings, name: &str) -> Option<(String, String)> {
    settings.trusted_ca.as_ref()?;
    let volumes = json!({"volumes": [{"name": CA_VOLUME, "configMap": {"name": name}}]});
    let mounts = json!({"volumeMounts": [{"name": CA_VOLUME, "mountPath": CA_MOUNT_PATH, "readOnly": true}]});
    Some((yaml::to_string(&volumes), yaml::to_string(&mounts)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::render::tests::{golden, settings};
    use crate::trusted_ca::TrustedCa;

    /// The Secret reference (named, in a namespace) the tests use.
    pub(crate) fn reference() -> CredentialsSecret {
        CredentialsSecret {
            name: "proxy-credentials".into(),
            namespace: Some("platform".into()),
        }
    }

    #[test]
    fn yaml_parses_back_to_the_values() {
        let s = settings();
        let yaml = env_yaml(&s, Secrets::Include, None);
        golden("pod_env/env.yaml", &yaml);
        let parsed: Value = serde_yaml_ng::from_str(&yaml).unwrap();
        assert_eq!(parsed["env"], env_json(&s, Secrets::Include, None));
        for (entry, (name, value)) in
            parsed["env"]
                .as_array()
                .unwrap()
                .iter()
                .zip(env(&s, Secrets::Include, None))
        {
            assert_eq!(entry["name"], name.as_str());
            assert_eq!(
                EnvValue::Value(entry["value"].as_str().unwrap().to_owned()),
                value
            );
        }
        assert_eq!(ca_config_map(&s, "x", None), None);
        assert_eq!(ca_volumes(&s, "x"), None);
    }

    /// With a Secret reference: the credential-bearing variables read the
    /// Secret's keys, the others stay values, nothing holds a credential,
    /// and the Secret holds the URLs.
    #[test]
    fn secret_reference_leaves_no_credential_in_the_env() {
        let s = settings();
        let secret = reference();
        let yaml = env_yaml(&s, Secrets::Include, Some(&secret));
        golden("pod_env/env-secret-ref.yaml", &yaml);
        assert!(!yaml.contains("svc-proxy"), "{yaml}");
        assert_eq!(yaml, env_yaml(&s, Secrets::Redact, Some(&secret)));
        let parsed: Value = serde_yaml_ng::from_str(&yaml).unwrap();
        for entry in parsed["env"].as_array().unwrap() {
            let name = entry["name"].as_str().unwrap();
            match CredentialsSecret::key_of(name) {
                Some(key) => {
                    assert_eq!(
                        entry["valueFrom"]["secretKeyRef"],
                        json!({"name": "proxy-credentials", "key": key})
                    );
                    assert!(entry.get("value").is_none());
                }
                None => assert!(entry["value"].is_string(), "{name}"),
            }
        }
        let rendered = secret.render(&s, Secrets::Include);
        let manifest: Value = serde_yaml_ng::from_str(&rendered.manifest).unwrap();
        assert_eq!(
            manifest["metadata"],
            json!({"name": "proxy-credentials", "namespace": "platform"})
        );
        let proxies =
            [&s.http_proxy, &s.https_proxy].map(|u| u.as_ref().unwrap().to_secret_string());
        assert_eq!(
            rendered.data,
            BTreeMap::from([
                (HTTP_PROXY_KEY.to_owned(), proxies[0].clone()),
                (HTTPS_PROXY_KEY.to_owned(), proxies[1].clone())
            ])
        );
        for (key, value) in &rendered.data {
            assert_eq!(manifest["data"][key], STANDARD.encode(value));
            crate::render::k8s::data_key(key).unwrap();
        }
        let redacted = secret.render(&s, Secrets::Redact);
        golden(
            "pod_env/credentials-secret-redacted.yaml",
            &redacted.manifest,
        );
        assert!(
            redacted.data.values().all(|v| v.contains(":***@")),
            "{redacted:?}"
        );
        // Only the configured proxies get a key.
        let mut http_only = s.clone();
        http_only.https_proxy = None;
        assert_eq!(
            CredentialsSecret::data(&http_only, Secrets::Redact)
                .keys()
                .collect::<Vec<_>>(),
            [HTTP_PROXY_KEY]
        );
    }

    /// The Secret's `data` is the base64 of the plain data under keys
    /// Kubernetes takes, with and without a namespace; no env entry has both
    /// `value` and `valueFrom` (the API server refuses that). Against
    /// Kubernetes' core/v1 definitions: tests/oracles/upstream_schemas.rs
    /// (`secret_and_env_variants_against_kubernetes_core_v1`).
    #[test]
    fn secret_data_and_env_entries() {
        let mut s = settings();
        s.trusted_ca = Some(crate::render::openshift::tests::fixed_ca());
        let in_namespace = reference();
        let bare = CredentialsSecret {
            namespace: None,
            ..reference()
        };
        for secrets in [Secrets::Include, Secrets::Redact] {
            for secret in [&in_namespace, &bare] {
                let rendered = secret.render(&s, secrets);
                let manifest: Value = serde_yaml_ng::from_str(&rendered.manifest).unwrap();
                assert_eq!(
                    manifest["metadata"].get("namespace").is_some(),
                    secret.namespace.is_some()
                );
                let data = manifest["data"].as_object().unwrap();
                assert_eq!(data.len(), rendered.data.len());
                for (key, value) in &rendered.data {
                    crate::render::k8s::data_key(key).unwrap();
                    let encoded = data[key].as_str().unwrap();
                    assert_eq!(STANDARD.decode(encoded).unwrap(), value.as_bytes());
                }
            }
            for reference in [None, Some(&in_namespace)] {
                for entry in env_json(&s, secrets, reference).as_array().unwrap() {
                    assert!(
                        entry.get("value").is_none() || entry.get("valueFrom").is_none(),
                        "{entry}"
                    );
                }
            }
        }
    }

    /// With a CA: the ConfigMap holds the canonical bundle, the volume
    /// mounts it where the env variables point.
    #[test]
    fn ca_config_map_volume_mount_and_env_agree() {
        let mut s = settings();
        let pem = crate::trusted_ca::tests::bundle(true);
        s.trusted_ca = Some(TrustedCa::parse(&pem).unwrap());
        let manifest = ca_config_map(&s, "proxy-ca", Some("yes")).unwrap();
        let parsed: Value = serde_yaml_ng::from_str(&manifest).unwrap();
        assert_eq!(parsed["metadata"]["namespace"], "yes");
        assert!(manifest.contains("namespace: 'yes'") || manifest.contains("namespace: \"yes\""));
        assert_eq!(
            parsed["data"][CA_KEY],
            s.trusted_ca.as_ref().unwrap().to_pem()
        );
        let (volumes, mounts) = ca_volumes(&s, "proxy-ca").unwrap();
        golden(
            "pod_env/ca-volumes.yaml",
            &format!("{volumes}---\n{mounts}"),
        );
        let volumes: Value = serde_yaml_ng::from_str(&volumes).unwrap();
        let mounts: Value = serde_yaml_ng::from_str(&mounts).unwrap();
        assert_eq!(volumes["volumes"][0]["configMap"]["name"], "proxy-ca");
        assert_eq!(
            volumes["volumes"][0]["name"],
            mounts["volumeMounts"][0]["name"]
        );
        let mount = mounts["volumeMounts"][0]["mountPath"].as_str().unwrap();
        let env = env(&s, Secrets::Redact, Some(&reference()));
        for name in CA_VARIABLES {
            let value = &env.iter().find(|(n, _)| n == name).unwrap().1;
            assert_eq!(*value, EnvValue::Value(format!("{mount}/{CA_KEY}")));
        }
    }
}
