//! Cluster API kubeadm bootstrap: `files` entries and `preKubeadmCommands` for
//! KubeadmControlPlane and KubeadmConfigTemplate, the `contentFrom.secret`
//! variant with its Secret (Giant Swarm: `<cluster>-systemd-proxy`, key
//! `containerdProxy`) and the `<cluster>-cluster-values` `cluster.proxy` values.
//! CAPI's limits are enforced.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};

use super::{shell, systemd, ProxySettings, Secrets};
use crate::domain::Finding;

/// Longest `content` CAPI accepts.
pub const MAX_CONTENT: usize = 10240;
/// Longest `path` CAPI accepts.
pub const MAX_PATH: usize = 512;
/// Most `files` entries CAPI accepts.
pub const MAX_FILES: usize = 200;
/// Longest preKubeadmCommands item.
pub const MAX_COMMAND: usize = 10240;

/// Key of the drop-in in the Giant Swarm Secret.
pub const SECRET_KEY: &str = "containerdProxy";

/// Where a file's content comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Inline, optionally base64-encoded.
    Inline {
        /// The text (base64 when `base64` is set).
        content: String,
        /// Whether `encoding: base64` is set.
        base64: bool,
    },
    /// A key of a Secret.
    Secret {
        /// Secret name.
        name: String,
        /// Key inside it.
        key: String,
    },
}

/// One `files` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// Absolute path on the node.
    pub path: String,
    /// Owner `user:group`.
    pub owner: String,
    /// Octal permissions.
    pub permissions: String,
    /// The content.
    pub content: Content,
}

impl File {
    /// The entry as CAPI's YAML/JSON object.
    pub fn to_json(&self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("path".into(), json!(self.path));
        object.insert("owner".into(), json!(self.owner));
        object.insert("permissions".into(), json!(self.permissions));
        match &self.content {
            Content::Inline { content, base64 } => {
                if *base64 {
                    object.insert("encoding".into(), json!("base64"));
                }
                object.insert("content".into(), json!(content));
            }
            Content::Secret { name, key } => {
                object.insert(
                    "contentFrom".into(),
                    json!({"secret": {"name": name, "key": key}}),
                );
            }
        }
        Value::Object(object)
    }
}

/// The kubeadm pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kubeadm {
    /// `files` entries, one drop-in per unit.
    pub files: Vec<File>,
    /// `preKubeadmCommands`: daemon-reload, restart of the units other than
    /// kubelet (kubeadm starts it), and `export` lines so kubeadm passes the
    /// variables into the static pods.
    pub pre_kubeadm_commands: Vec<String>,
}

impl Kubeadm {
    /// Inline drop-ins for `units` (full unit names).
    pub fn inline(
        settings: &ProxySettings,
        units: &[String],
        base64: bool,
        secrets: Secrets,
    ) -> Result<Self, Vec<Finding>> {
        let files = units
            .iter()
            .map(|unit| {
                let dropin = systemd::dropin(settings, unit, secrets);
                File {
                    path: dropin.path,
                    owner: dropin.owner.to_owned(),
                    permissions: dropin.permissions.to_owned(),
                    content: Content::Inline {
                        content: if base64 {
                            STANDARD.encode(&dropin.content)
                        } else {
                            dropin.content
                        },
                        base64,
                    },
                }
            })
            .collect();
        Self::checked(files, commands(settings, units, secrets))
    }

    /// The containerd drop-in from a Secret (`<cluster>-systemd-proxy`).
    pub fn from_secret(
        settings: &ProxySettings,
        cluster: &str,
        secrets: Secrets,
    ) -> Result<Self, Vec<Finding>> {
        let unit = "containerd.service".to_owned();
        let dropin = systemd::dropin(settings, &unit, Secrets::Redact);
        let file = File {
            path: dropin.path,
            owner: dropin.owner.to_owned(),
            permissions: dropin.permissions.to_owned(),
            content: Content::Secret {
                name: secret_name(cluster),
                key: SECRET_KEY.to_owned(),
            },
        };
        Self::checked(vec![file], commands(settings, &[unit], secrets))
    }

    fn checked(files: Vec<File>, pre_kubeadm_commands: Vec<String>) -> Result<Self, Vec<Finding>> {
        let mut findings = Vec::new();
        if files.len() > MAX_FILES {
            findings.push(Finding::error(
                "units",
                None,
                "Too many files",
                format!("CAPI accepts at most {MAX_FILES} files."),
            ));
        }
        for (index, file) in files.iter().enumerate() {
            if file.path.len() > MAX_PATH {
                findings.push(Finding::error(
                    "units",
                    Some(index),
                    "Path too long",
                    format!("{} is longer than {MAX_PATH} characters.", file.path),
                ));
            }
            if files[..index].iter().any(|f| f.path == file.path) {
                findings.push(Finding::error(
                    "units",
                    Some(index),
                    "Duplicate file path",
                    format!(
                        "{} is written twice; CAPI rejects duplicate paths.",
                        file.path
                    ),
                ));
            }
            if let Content::Inline { content, .. } = &file.content {
                if content.len() > MAX_CONTENT {
                    findings.push(Finding::error(
                        "units",
                        Some(index),
                        "File content too long for CAPI",
                        format!("The drop-in for {} is {} characters; CAPI accepts {MAX_CONTENT}. Shorten the NO_PROXY list (e.g. aggregate CIDRs) or use the Secret variant.", file.path, content.len()),
                    ));
                }
            }
        }
        if pre_kubeadm_commands.iter().any(|c| c.len() > MAX_COMMAND) {
            findings.push(Finding::error(
                "",
                None,
                "Command too long for CAPI",
                format!("A preKubeadmCommands item exceeds {MAX_COMMAND} characters."),
            ));
        }
        if findings.is_empty() {
            Ok(Self {
                files,
                pre_kubeadm_commands,
            })
        } else {
            Err(findings)
        }
    }

    /// The fragment to put under `kubeadmConfigSpec` (YAML).
    pub fn to_yaml(&self) -> String {
        let files: Vec<Value> = self.files.iter().map(File::to_json).collect();
        serde_yaml_ng::to_string(
            &json!({"files": files, "preKubeadmCommands": self.pre_kubeadm_commands}),
        )
        .unwrap_or_default()
    }
}

fn commands(settings: &ProxySettings, units: &[String], secrets: Secrets) -> Vec<String> {
    let restart: Vec<String> = units
        .iter()
        .filter(|u| u.as_str() != "kubelet.service")
        .cloned()
        .collect();
    let mut out = systemd::apply_commands(&restart);
    out.extend(shell::exports(&settings.variables(secrets)));
    out
}

/// `<cluster>-systemd-proxy`.
pub fn secret_name(cluster: &str) -> String {
    format!("{cluster}-systemd-proxy")
}

/// The Secret holding the containerd drop-in (YAML manifest).
pub fn secret_manifest(
    settings: &ProxySettings,
    cluster: &str,
    namespace: &str,
    secrets: Secrets,
) -> String {
    let dropin = systemd::dropin(settings, "containerd.service", secrets);
    let manifest = json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": secret_name(cluster), "namespace": namespace},
        "type": "Opaque",
        "data": {SECRET_KEY: STANDARD.encode(dropin.content)},
    });
    serde_yaml_ng::to_string(&manifest).unwrap_or_default()
}

/// The `cluster.proxy` values of `<cluster>-cluster-values` (YAML).
pub fn cluster_values(settings: &ProxySettings, secrets: Secrets) -> String {
    let url = |u: &Option<crate::domain::proxy_url::ProxyUrl>| {
        u.as_ref().map(|u| ProxySettings::url(u, secrets))
    };
    let values = json!({"cluster": {"proxy": {
        "http": url(&settings.http_proxy),
        "https": url(&settings.https_proxy),
        "noProxy": settings.no_proxy_value(),
    }}});
    serde_yaml_ng::to_string(&values).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::render::tests::{golden, settings};

    fn units() -> Vec<String> {
        vec!["containerd.service".into(), "kubelet.service".into()]
    }

    #[test]
    fn yaml_parses_back_and_matches_golden() {
        let s = settings();
        let kubeadm = Kubeadm::inline(&s, &units(), false, Secrets::Include).unwrap();
        let yaml = kubeadm.to_yaml();
        golden("capi/kubeadm.yaml", &yaml);
        let parsed: Value = serde_yaml_ng::from_str(&yaml).unwrap();
        assert_eq!(
            parsed["files"][0]["path"],
            "/etc/systemd/system/containerd.service.d/http-proxy.conf"
        );
        assert_eq!(
            parsed["files"][1]["content"],
            systemd::dropin(&s, "kubelet.service", Secrets::Include).content
        );
        assert_eq!(parsed["preKubeadmCommands"][0], "systemctl daemon-reload");
        assert_eq!(
            parsed["preKubeadmCommands"][1],
            "systemctl restart containerd.service"
        );
        let encoded = Kubeadm::inline(&s, &units(), true, Secrets::Include).unwrap();
        let Content::Inline {
            content,
            base64: true,
        } = &encoded.files[0].content
        else {
            panic!("not base64")
        };
        assert_eq!(
            STANDARD.decode(content).unwrap(),
            systemd::dropin(&s, "containerd.service", Secrets::Include)
                .content
                .as_bytes()
        );
    }

    /// The commands pass `sh -n` and, run with `systemctl` stubbed, export
    /// exactly the intended values (read back with `env`).
    #[test]
    fn pre_kubeadm_commands_export_the_values_in_a_real_shell() {
        let s = settings();
        for kubeadm in [
            Kubeadm::inline(&s, &units(), false, Secrets::Include).unwrap(),
            Kubeadm::from_secret(&s, "prod", Secrets::Include).unwrap(),
        ] {
            let script = kubeadm.pre_kubeadm_commands.join("\n");
            let check = std::process::Command::new("sh")
                .args(["-n", "-c", &script])
                .status()
                .unwrap();
            assert!(check.success(), "sh -n rejects:\n{script}");
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("systemctl() {{ :; }}\n{script}\nenv"))
                .env_clear()
                .output()
                .unwrap();
            assert!(out.status.success(), "{script}");
            let env = String::from_utf8(out.stdout).unwrap();
            for (name, value) in s.variables(Secrets::Include) {
                let line = format!("{name}={value}");
                assert!(env.lines().any(|l| l == line), "{line} missing:\n{env}");
            }
        }
    }

    #[test]
    fn secret_variant_and_cluster_values() {
        let s = settings();
        let kubeadm = Kubeadm::from_secret(&s, "prod", Secrets::Include).unwrap();
        assert_eq!(
            kubeadm.files[0].to_json()["contentFrom"]["secret"],
            json!({"name": "prod-systemd-proxy", "key": "containerdProxy"})
        );
        let manifest = secret_manifest(&s, "prod", "org-acme", Secrets::Include);
        golden("capi/secret.yaml", &manifest);
        let parsed: Value = serde_yaml_ng::from_str(&manifest).unwrap();
        let data = STANDARD
            .decode(parsed["data"]["containerdProxy"].as_str().unwrap())
            .unwrap();
        assert_eq!(
            data,
            systemd::dropin(&s, "containerd.service", Secrets::Include)
                .content
                .as_bytes()
        );
        let values = cluster_values(&s, Secrets::Include);
        golden("capi/cluster-values.yaml", &values);
        let parsed: Value = serde_yaml_ng::from_str(&values).unwrap();
        assert_eq!(parsed["cluster"]["proxy"]["noProxy"], s.no_proxy_value());
    }

    #[test]
    fn enforces_capi_limits() {
        let mut s = settings();
        s.no_proxy = (0..800).map(|i| format!("host-{i}.corp.example")).collect();
        let errors = Kubeadm::inline(&s, &units(), false, Secrets::Include).unwrap_err();
        assert!(errors
            .iter()
            .any(|f| f.summary == "File content too long for CAPI" && f.index == Some(0)));
        let dup = vec![
            "containerd.service".to_owned(),
            "containerd.service".to_owned(),
        ];
        let errors = Kubeadm::inline(&settings(), &dup, false, Secrets::Include).unwrap_err();
        assert_eq!(errors[0].summary, "Duplicate file path");
    }
}
