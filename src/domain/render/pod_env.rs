//! Pod environment: the `env` list of a container spec, also usable as Helm
//! `env` values, and with a trusted CA the ConfigMap that carries the bundle,
//! the volume and mount that put it in the container, and the variables that
//! point the clients at it.

use serde_json::{json, Value};

use super::{yaml, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets};

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

/// Pod env: the name (and namespace) of the CA ConfigMap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodEnv {
    /// Name of the ConfigMap holding the trusted CA.
    pub config_map_name: String,
    /// Its namespace, when given.
    pub namespace: Option<String>,
}

/// The env entries and, with a trusted CA, what carries it into the pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodEnvOutput {
    /// The env entries (see [`env`]).
    pub env: Vec<(String, String)>,
    /// The same as a YAML document (see [`env_yaml`]).
    pub env_yaml: String,
    /// The CA ConfigMap (see [`ca_config_map`]).
    pub ca_config_map: Option<String>,
    /// The `volumes:` and `volumeMounts:` entries (see [`ca_volumes`]).
    pub ca_volumes: Option<(String, String)>,
}

impl Renderer for PodEnv {
    type Output = PodEnvOutput;

    fn render(&self, input: Input) -> Rendering<PodEnvOutput> {
        let Input {
            settings, secrets, ..
        } = input;
        Ok(Rendered::new(PodEnvOutput {
            env: env(settings, secrets),
            env_yaml: env_yaml(settings, secrets),
            ca_config_map: ca_config_map(
                settings,
                &self.config_map_name,
                self.namespace.as_deref(),
            ),
            ca_volumes: ca_volumes(settings, &self.config_map_name),
        }))
    }
}

/// The path of the bundle inside the containers.
pub fn ca_file_path() -> String {
    format!("{CA_MOUNT_PATH}/{CA_KEY}")
}

/// The env entries (`name`, `value`): the proxy variables in the fixed
/// order, then with a trusted CA the [`CA_VARIABLES`].
pub fn env(settings: &ProxySettings, secrets: Secrets) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = settings
        .variables(secrets)
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
    if settings.trusted_ca.is_some() {
        out.extend(CA_VARIABLES.map(|name| (name.to_owned(), ca_file_path())));
    }
    out
}

/// The env list as a JSON value: `[{"name": ..., "value": ...}, ...]`.
pub fn env_json(settings: &ProxySettings, secrets: Secrets) -> Value {
    Value::Array(
        env(settings, secrets)
            .into_iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect(),
    )
}

/// The env list as a YAML document (`env:` key), for Helm values and manifests.
pub fn env_yaml(settings: &ProxySettings, secrets: Secrets) -> String {
    yaml::to_string(&json!({ "env": env_json(settings, secrets) }))
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
    use crate::domain::render::tests::{golden, settings};
    use crate::domain::trusted_ca::TrustedCa;

    /// The `name`/`value` pairs of a parsed env list.
    pub(crate) fn pairs(list: &Value) -> Vec<(String, String)> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_owned(),
                    e["value"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn yaml_parses_back_to_the_values() {
        let s = settings();
        let yaml = env_yaml(&s, Secrets::Include);
        golden("pod_env/env.yaml", &yaml);
        let parsed: Value = serde_yaml_ng::from_str(&yaml).unwrap();
        assert_eq!(pairs(&parsed["env"]), env(&s, Secrets::Include));
        assert_eq!(ca_config_map(&s, "x", None), None);
        assert_eq!(ca_volumes(&s, "x"), None);
    }

    /// With a CA: the ConfigMap holds the canonical bundle, the volume
    /// mounts it where the env variables point.
    #[test]
    fn ca_config_map_volume_mount_and_env_agree() {
        let mut s = settings();
        let pem = crate::domain::trusted_ca::tests::bundle(true);
        s.trusted_ca = Some(TrustedCa::parse("trusted_ca", &pem).unwrap());
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
        let env = env(&s, Secrets::Redact);
        for name in CA_VARIABLES {
            let value = &env.iter().find(|(n, _)| n == name).unwrap().1;
            assert_eq!(*value, format!("{mount}/{CA_KEY}"));
        }
    }
}
