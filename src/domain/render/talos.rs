//! Talos Linux: a machine config patch with the proxy in `machine.env` and
//! the trusted CA.
//!
//! From siderolabs/talos `website/content/v1.12/talos-guides/network/
//! corporate-proxies.md`: `machine.env` takes `http_proxy`, `https_proxy` and
//! `no_proxy` (lowercase), set on PID 1 and every Talos service (containerd,
//! kubelet, etcd); the CA of a TLS-inspecting proxy is appended to
//! `/etc/ssl/certs/ca-certificates` through `machine.files` (`op: append`,
//! `permissions`, `path`, `content`). Talos 1.10 added the
//! `TrustedRootsConfig` document (`apiVersion: v1alpha1`, `kind`, `name`,
//! `certificates`; `website/content/v1.10/reference/configuration/security/
//! trustedrootsconfig.md`, absent from the v1.9 reference), which this
//! renderer writes from 1.10 on as a second YAML document of the patch.
//! `machine.env` does not reach pods: the control plane static pods and
//! workloads need their own env (see `clusterproxy_pod_env`).

use serde_json::{json, Value};

use super::{yaml, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets};
use crate::domain::Finding;

/// Talos: the version the patch is for, as given (`1.10`, `v1.9.5`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Talos {
    /// The Talos version; an error on `talos_version` unless 1.x.
    pub version: String,
}

impl Renderer for Talos {
    /// The machine config patch (see [`patch`]).
    type Output = String;

    fn render(&self, input: Input) -> Rendering<String> {
        let Input {
            settings, secrets, ..
        } = input;
        let minor = minor("talos_version", &self.version).map_err(|f| vec![f])?;
        Ok(Rendered::new(patch(settings, minor, secrets)))
    }
}

/// The first Talos minor version with the `TrustedRootsConfig` document.
pub const TRUSTED_ROOTS_SINCE: u32 = 10;

/// The `name` of the `TrustedRootsConfig` document.
pub const TRUSTED_ROOTS_NAME: &str = "clusterproxy-proxy-ca";

/// The Talos version as a 1.x minor, from `1.10` or `v1.10.3`; an error on
/// `field` otherwise.
pub fn minor(field: &str, version: &str) -> Result<u32, Finding> {
    let trimmed = version.strip_prefix('v').unwrap_or(version);
    let mut parts = trimmed.split('.');
    let parsed = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("1"), Some(minor), patch, None)
            if patch.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())) =>
        {
            minor
                .parse::<u32>()
                .ok()
                .filter(|_| !minor.starts_with('+'))
        }
        _ => None,
    };
    parsed.ok_or_else(|| {
        Finding::error(
            field,
            None,
            "Invalid Talos version",
            format!("{version:?} is not a Talos 1.x version such as \"1.10\" or \"v1.9.5\"."),
        )
    })
}

/// The `machine.env` map.
pub fn env(settings: &ProxySettings, secrets: Secrets) -> Vec<(&'static str, String)> {
    settings
        .variables(secrets)
        .into_iter()
        .filter(|(name, _)| name.chars().all(|c| !c.is_ascii_uppercase()))
        .collect()
}

/// The patch for Talos 1.`minor`: the machine config document, and from
/// 1.10 with a trusted CA the `TrustedRootsConfig` document after `---`.
pub fn patch(settings: &ProxySettings, minor: u32, secrets: Secrets) -> String {
    let env: serde_json::Map<String, Value> = env(settings, secrets)
        .into_iter()
        .map(|(name, value)| (name.to_owned(), Value::String(value)))
        .collect();
    let mut machine = json!({"env": env});
    let mut extra = String::new();
    if let Some(ca) = &settings.trusted_ca {
        if minor >= TRUSTED_ROOTS_SINCE {
            extra = format!(
                "---\n{}",
                yaml::to_string(&json!({
                    "apiVersion": "v1alpha1",
                    "kind": "TrustedRootsConfig",
                    "name": TRUSTED_ROOTS_NAME,
                    "certificates": ca.to_pem(),
                }))
            );
        } else {
            machine["files"] = json!([{
                "content": ca.to_pem(),
                "permissions": 0o644,
                "path": "/etc/ssl/certs/ca-certificates",
                "op": "append",
            }]);
        }
    }
    yaml::to_string(&json!({"machine": machine})) + &extra
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::render::cloud_init::tests::with_ca;
    use crate::domain::render::tests::{golden, settings};
    use serde::Deserialize as _;

    fn documents(text: &str) -> Vec<Value> {
        serde_yaml_ng::Deserializer::from_str(text)
            .map(|d| Value::deserialize(d).unwrap())
            .collect()
    }

    #[test]
    fn versions() {
        assert_eq!(minor("v", "1.10").unwrap(), 10);
        assert_eq!(minor("v", "v1.9.5").unwrap(), 9);
        for bad in ["2.0", "1", "1.x", "1.10.", "v1.+3", "1.10.1.1", ""] {
            assert_eq!(
                minor("talos_version", bad).unwrap_err().field,
                "talos_version",
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
    }

    #[test]
    fn golden_files() {
        golden(
            "talos/patch.yaml",
            &patch(&settings(), 10, Secrets::Include),
        );
    }
}
