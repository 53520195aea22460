//! Talos Linux: a machine config patch with the proxy environment and the
//! trusted CA.
//!
//! From siderolabs/talos `website/content/v1.12/talos-guides/network/
//! corporate-proxies.md`: `machine.env` takes `http_proxy`, `https_proxy` and
//! `no_proxy` (lowercase), set on PID 1 and every Talos service (containerd,
//! kubelet, etcd). Talos 1.13 (tag v1.13.0, commit
//! b9e9c657963363da73b897c27ef3d407ba5e91c0) deprecates `machine.env`
//! ("Use 'EnvironmentConfig' instead", `pkg/machinery/config/types/v1alpha1/
//! v1alpha1_types.go`) and drops it from `website/content/v1.13/schemas/
//! config.schema.json`, whose `runtime.EnvironmentV1Alpha1` document takes
//! `apiVersion: v1alpha1`, `kind: EnvironmentConfig` and a `variables` map of
//! strings and nothing else; 1.12.x (up to v1.12.11) has no such document.
//! From 1.13 this renderer writes the variables there instead. The CA of a TLS-inspecting proxy is appended to
//! `/etc/ssl/certs/ca-certificates` through `machine.files` (`op: append`,
//! `permissions`, `path`, `content`). Talos 1.10 added the
//! `TrustedRootsConfig` document (`apiVersion: v1alpha1`, `kind`, `name`,
//! `certificates`; `website/content/v1.10/reference/configuration/security/
//! trustedrootsconfig.md`, absent from the v1.9 reference), which this
//! renderer writes from 1.10 on as a second YAML document of the patch.
//! `machine.env` does not reach pods: the control plane static pods and
//! workloads need their own env (see `clusterproxy_pod_env`).

use crate::redact::redact_userinfo;
use serde_json::{json, Value};

use super::{
    minor_version, yaml, Held, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets,
};
use crate::{Finding, InputField};

/// The option `talos_version`: the Talos version of the machines.
pub const TALOS_VERSION: InputField = InputField::Option("talos_version");

/// Talos: the version the patch is for, as given (`1.10`, `v1.9.5`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Talos {
    /// The Talos version; an error on `talos_version` unless 1.x.
    pub version: String,
}

impl Renderer for Talos {
    /// The machine config patch (see [`patch`]).
    type Output = String;

    const MODULE: &'static str = "talos";

    const OPTIONS: &'static [InputField] = &[TALOS_VERSION];

    fn sample() -> Self {
        Talos {
            version: "1.13".to_owned(),
        }
    }

    fn render(&self, input: Input) -> Rendering<String> {
        let Input {
            settings, secrets, ..
        } = input;
        let minor = minor(&self.version).map_err(|f| vec![f])?;
        Ok(Rendered::new(patch(settings, minor, secrets)))
    }

    /// A machine configuration patch.
    fn held(&self, _: &String) -> Held {
        Held::NoArtifact("a Talos machine configuration patch: no import kind reads Talos machine configurations")
    }
}

/// The first Talos minor version with the `TrustedRootsConfig` document.
pub const TRUSTED_ROOTS_SINCE: u32 = 10;

/// The first Talos minor version with the `EnvironmentConfig` document,
/// which replaces `machine.env`.
pub const ENVIRONMENT_CONFIG_SINCE: u32 = 13;

/// The `name` of the `TrustedRootsConfig` document.
pub const TRUSTED_ROOTS_NAME: &str = "clusterproxy-proxy-ca";

/// The Talos version as a 1.x minor, from `1.10` or `v1.10.3`; an error on
/// [`TALOS_VERSION`] otherwise.
pub fn minor(version: &str) -> Result<u32, Finding> {
    minor_version(version, "1").ok_or_else(|| {
        Finding::error(
            TALOS_VERSION,
            "Invalid Talos version",
            format!(
                "{:?} is not a Talos 1.x version such as \"1.10\" or \"v1.9.5\".",
                redact_userinfo(version)
            ),
        )
    })
}

/// The proxy variables (`machine.env` or `EnvironmentConfig.variables`).
pub fn env(settings: &ProxySettings, secrets: Secrets) -> Vec<(&'static str, String)> {
    settings
        .variables(secrets)
        .into_iter()
        .filter(|(name, _)| name.chars().all(|c| !c.is_ascii_uppercase()))
        .collect()
}

/// The patch for Talos 1.`minor`: the variables in the machine config
/// document's `machine.env` before 1.13, in an `EnvironmentConfig` document
/// from 1.13; with a trusted CA, a `machine.files` append before 1.10 and a
/// `TrustedRootsConfig` document from 1.10. Documents are joined by `---`.
pub fn patch(settings: &ProxySettings, minor: u32, secrets: Secrets) -> String {
    let env: serde_json::Map<String, Value> = env(settings, secrets)
        .into_iter()
        .map(|(name, value)| (name.to_owned(), Value::String(value)))
        .collect();
    let mut documents = Vec::new();
    if minor >= ENVIRONMENT_CONFIG_SINCE {
        documents.push(json!({
            "apiVersion": "v1alpha1",
            "kind": "EnvironmentConfig",
            "variables": env,
        }));
    } else {
        let mut machine = json!({"env": env});
        if let Some(ca) = settings
            .trusted_ca
            .as_ref()
            .filter(|_| minor < TRUSTED_ROOTS_SINCE)
        {
            machine["files"] = json!([{
                "content": ca.to_pem(),
                "permissions": 0o644,
                "path": "/etc/ssl/certs/ca-certificates",
                "op": "append",
            }]);
        }
        documents.push(json!({"machine": machine}));
    }
    if let Some(ca) = settings
        .trusted_ca
        .as_ref()
        .filter(|_| minor >= TRUSTED_ROOTS_SINCE)
    {
        documents.push(json!({
            "apiVersion": "v1alpha1",
            "kind": "TrustedRootsConfig",
            "name": TRUSTED_ROOTS_NAME,
            "certificates": ca.to_pem(),
        }));
    }
    documents
        .iter()
        .map(yaml::to_string)
        .collect::<Vec<_>>()
        .join("---\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::cloud_init::tests::with_ca;
    use crate::render::openshift::tests::fixed_ca;
    use crate::render::tests::{golden, settings};
    use serde::Deserialize as _;

    fn documents(text: &str) -> Vec<Value> {
        serde_yaml_ng::Deserializer::from_str(text)
            .map(|d| Value::deserialize(d).unwrap())
            .collect()
    }

    #[test]
    fn versions() {
        assert_eq!(minor("1.10").unwrap(), 10);
        assert_eq!(minor("v1.9.5").unwrap(), 9);
        for bad in ["2.0", "1", "1.x", "1.10.", "v1.+3", "1.10.1.1", ""] {
            assert_eq!(
                minor(bad).unwrap_err().location,
                Some(TALOS_VERSION.into()),
                "{bad}"
            );
        }
    }

    /// Parsed back, the patch holds the env and the CA where the Talos
    /// version expects it: `machine.files` append before 1.10, a
    /// `TrustedRootsConfig` document from 1.10.
    #[test]
    fn parses_back_per_version() {
        let s = with_ca();
        let pem = s.trusted_ca.as_ref().unwrap().to_pem();
        let old = documents(&patch(&s, 9, Secrets::Include));
        assert_eq!(old.len(), 1);
        let env = &old[0]["machine"]["env"];
        assert_eq!(env.as_object().unwrap().len(), 3);
        assert_eq!(env["no_proxy"], s.no_proxy_value().as_str());
        assert!(env["http_proxy"].as_str().unwrap().contains("p%2540ss"));
        let file = &old[0]["machine"]["files"][0];
        assert_eq!(
            (
                file["path"].as_str(),
                file["op"].as_str(),
                file["permissions"].as_u64()
            ),
            (
                Some("/etc/ssl/certs/ca-certificates"),
                Some("append"),
                Some(0o644)
            )
        );
        assert_eq!(file["content"], pem.as_str());
        let new = documents(&patch(&s, 10, Secrets::Include));
        assert_eq!(new.len(), 2);
        assert!(new[0]["machine"].get("files").is_none());
        assert_eq!(new[1]["kind"], "TrustedRootsConfig");
        assert_eq!(new[1]["certificates"], pem.as_str());
        let redacted = patch(&s, 10, Secrets::Redact);
        assert!(!redacted.contains("p%2540ss"));
        let current = documents(&patch(&s, 13, Secrets::Include));
        assert_eq!(current.len(), 2);
        assert_eq!(
            (&current[0]["apiVersion"], &current[0]["kind"]),
            (&json!("v1alpha1"), &json!("EnvironmentConfig"))
        );
        assert_eq!(current[0].as_object().unwrap().len(), 3);
        assert_eq!(&current[0]["variables"], env);
        assert_eq!(current[1]["kind"], "TrustedRootsConfig");
        assert!(!patch(&s, 13, Secrets::Redact).contains("p%2540ss"));
    }

    /// Without a CA, 1.12 still writes `machine.env` and 1.13 only the
    /// `EnvironmentConfig` document: no `machine` key, which the 1.13 schema
    /// would take only without `env`.
    #[test]
    fn environment_config_from_1_13() {
        let s = settings();
        let old = documents(&patch(&s, 12, Secrets::Include));
        assert_eq!(old.len(), 1);
        assert!(old[0]["machine"]["env"].is_object());
        let new = documents(&patch(&s, ENVIRONMENT_CONFIG_SINCE, Secrets::Include));
        assert_eq!(new.len(), 1);
        assert!(new[0].get("machine").is_none());
        assert_eq!(new[0]["variables"], old[0]["machine"]["env"]);
    }

    /// One golden file per supported version that renders differently.
    #[test]
    fn golden_files() {
        let mut s = settings();
        s.trusted_ca = Some(fixed_ca());
        for (version, minor) in [("1.9", 9), ("1.10", 10), ("1.13", 13)] {
            golden(
                &format!("talos/patch-{version}.yaml"),
                &patch(&s, minor, Secrets::Include),
            );
        }
        golden(
            "talos/patch.yaml",
            &patch(&settings(), 10, Secrets::Include),
        );
    }
}
