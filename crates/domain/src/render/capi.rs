//! Cluster API kubeadm bootstrap: `files` entries and `preKubeadmCommands` for
//! KubeadmControlPlane and KubeadmConfigTemplate, inline or, with a cluster
//! name, from a Secret (see [`secret_manifest`]). CAPI's limits are enforced.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};

use super::trust::{self, OsFamily};
use super::{
    shell, systemd, yaml, Held, HeldFile, Input, ProxySettings, Rendered, Renderer, Rendering,
    Secrets, PASSWORD_COUNTED,
};
use crate::{Finding, InputField, Location};

mod secret;
pub use secret::{
    cluster_of_secret, cluster_values, env_file, secret_key, secret_manifest, secret_name, CA_KEY,
    ENV_FILE_PATH, ENV_KEY,
};

/// Longest `content` CAPI accepts.
pub const MAX_CONTENT: usize = 10240;
/// Longest `path` CAPI accepts.
pub const MAX_PATH: usize = 512;
/// Most `files` entries CAPI accepts.
pub const MAX_FILES: usize = 200;
/// Longest preKubeadmCommands item.
pub const MAX_COMMAND: usize = 10240;

/// The Cluster API version of the kubeadm objects the pieces go into. The
/// pieces (`files`, with `contentFrom.secret`, and `preKubeadmCommands`)
/// have the same shape in both, and both CRDs of Cluster API 1.14 take them;
/// what differs is the `apiVersion` of the objects that hold them.
/// v1beta2 is the storage version from Cluster API 1.11 on, and v1beta1,
/// the only one before, is served but `deprecated: true` since (the
/// KubeadmConfig CRD, bootstrap/kubeadm/config/crd/bases, at cluster-api
/// v1.11.0 and v1.14.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiVersion {
    /// `v1beta2`: Cluster API 1.11 and later.
    V1beta2,
    /// `v1beta1`: Cluster API before 1.11 (still served by 1.11 to 1.15).
    V1beta1,
}

impl ApiVersion {
    /// The names, the default first.
    pub const NAMES: [&'static str; 2] = ["v1beta2", "v1beta1"];

    /// The version of `name` (one of [`Self::NAMES`]).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "v1beta2" => Some(Self::V1beta2),
            "v1beta1" => Some(Self::V1beta1),
            _ => None,
        }
    }

    /// The version's name (`v1beta2`).
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The `apiVersion` of a KubeadmConfigTemplate or KubeadmConfig.
    pub fn bootstrap(self) -> String {
        format!("bootstrap.cluster.x-k8s.io/{}", self.name())
    }

    /// The `apiVersion` of a KubeadmControlPlane.
    pub fn control_plane(self) -> String {
        format!("controlplane.cluster.x-k8s.io/{}", self.name())
    }
}

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
        /// The Secret, in the namespace of the KubeadmConfig that reads it.
        name: String,
        /// The key of the Secret's `data` that holds the content.
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
    /// Written as `content` (inline) or `contentFrom` (a Secret key).
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

/// Cluster API kubeadm: the units to give the proxy settings, the OS family,
/// and where the files' content lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capi {
    /// Full unit names (`containerd.service`), at least one.
    pub units: Vec<String>,
    /// The OS family of the nodes: where the CA file goes and which command
    /// updates the trust store.
    pub os: OsFamily,
    /// Inline content written base64-encoded (`encoding: base64`).
    pub base64_content: bool,
    /// With a cluster name, the files come from its Secret
    /// (`<cluster>-systemd-proxy`); without, they are inline.
    pub cluster_name: Option<String>,
    /// The namespace of that Secret.
    pub namespace: String,
}

/// The kubeadm pieces and, in the Secret variant, what they read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapiConfig {
    /// The `kubeadmConfigSpec` pieces.
    pub kubeadm: Kubeadm,
    /// The Secret the files come from (see [`secret_manifest`]), with a cluster name.
    pub secret_manifest: Option<String>,
    /// The `cluster.proxy` values (see [`cluster_values`]), with a cluster name.
    pub cluster_values: Option<String>,
    /// The name of that Secret, with a cluster name.
    pub secret_name: Option<String>,
    /// What to append to a KubeadmConfigTemplate's name (see [`template_suffix`]).
    pub template_suffix: String,
}

impl Renderer for Capi {
    type Output = CapiConfig;

    const MODULE: &'static str = "capi";

    fn sample() -> Self {
        Capi {
            units: crate::render::systemd::typical_units(),
            os: crate::render::trust::OsFamily::Debian,
            base64_content: false,
            cluster_name: None,
            namespace: "default".to_owned(),
        }
    }

    /// The pieces within systemd's and CAPI's limits.
    fn render(&self, input: Input) -> Rendering<CapiConfig> {
        let Input {
            settings, secrets, ..
        } = input;
        let mut findings = systemd::check_dropins(settings, &self.units);
        if findings.iter().any(Finding::is_error) {
            return Err(findings);
        }
        let secret = self
            .cluster_name
            .as_deref()
            .map(|cluster| secret_name(cluster, settings.revision));
        let kubeadm = match &secret {
            Some(name) => Kubeadm::from_secret(settings, name, &self.units, self.os),
            None => Kubeadm::inline(settings, &self.units, self.os, self.base64_content, secrets),
        };
        let kubeadm = kubeadm.map_err(|errors| {
            findings.extend(errors);
            findings.clone()
        })?;
        let config = CapiConfig {
            kubeadm,
            secret_manifest: secret
                .as_deref()
                .map(|name| secret_manifest(settings, name, &self.namespace, &self.units, secrets)),
            cluster_values: secret.as_ref().map(|_| cluster_values(settings, secrets)),
            secret_name: secret,
            template_suffix: template_suffix(settings.revision),
        };
        Ok(Rendered {
            output: config,
            warnings: findings,
        })
    }

    /// A KubeadmControlPlane with the kubeadm pieces (the CA among its
    /// files is a file of its own, not a proxy setting) and, with a
    /// cluster name, the `cluster.proxy` values.
    fn held(&self, output: &CapiConfig) -> Held {
        let spec: serde_json::Value =
            serde_yaml_ng::from_str(&output.kubeadm.to_yaml()).unwrap_or_default();
        let kcp = json!({
            "apiVersion": "controlplane.cluster.x-k8s.io/v1beta1",
            "kind": "KubeadmControlPlane",
            "metadata": {"name": "control-plane"},
            "spec": {"kubeadmConfigSpec": spec},
        });
        let mut files = vec![HeldFile::new(
            "control-plane.yaml",
            "capi",
            yaml::to_string(&kcp),
            false,
        )];
        if let Some(values) = &output.cluster_values {
            files.push(HeldFile::new(
                "cluster-values.yaml",
                "giantswarm",
                values.clone(),
                false,
            ));
        }
        Held::Files(files)
    }
}

/// What goes under `kubeadmConfigSpec` of a KubeadmControlPlane or a
/// KubeadmConfigTemplate (see [`Kubeadm::to_yaml`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kubeadm {
    /// `files` entries: one drop-in per unit, the CA bundle when there is
    /// one, and in the Secret variant the environment file.
    pub files: Vec<File>,
    /// `preKubeadmCommands`: the trust store update (with a CA), daemon-reload,
    /// restart of the units other than kubelet (kubeadm starts it), then the
    /// variables for kubeadm, which passes them into the static pods:
    /// `export` lines, or in the Secret variant `.` of the environment file.
    pub pre_kubeadm_commands: Vec<String>,
}

impl Kubeadm {
    /// Inline drop-ins for `units` (full unit names), the CA bundle for `os`.
    fn inline(
        settings: &ProxySettings,
        units: &[String],
        os: OsFamily,
        base64: bool,
        secrets: Secrets,
    ) -> Result<Self, Vec<Finding>> {
        // The limits are checked on the pieces with the longest password:
        // no finding, nor whether one is made, may depend on it, and none
        // may count less than the real pieces.
        let (files, commands) = Self::inline_pieces(settings, units, os, base64, Secrets::Longest);
        Self::checked(files, commands, Vec::new())?;
        let (files, pre_kubeadm_commands) =
            Self::inline_pieces(settings, units, os, base64, secrets);
        Ok(Self {
            files,
            pre_kubeadm_commands,
        })
    }

    /// The files and commands of the inline variant.
    fn inline_pieces(
        settings: &ProxySettings,
        units: &[String],
        os: OsFamily,
        base64: bool,
        secrets: Secrets,
    ) -> (Vec<File>, Vec<String>) {
        let inline = |content: String| Content::Inline {
            content: if base64 {
                STANDARD.encode(&content)
            } else {
                content
            },
            base64,
        };
        let mut files: Vec<File> = units
            .iter()
            .map(|unit| {
                let dropin = systemd::dropin(settings, unit, secrets);
                File {
                    path: dropin.path,
                    owner: dropin.owner.to_owned(),
                    permissions: dropin.permissions.to_owned(),
                    content: inline(dropin.content),
                }
            })
            .collect();
        if let Some(ca) = &settings.trusted_ca {
            let ca = trust::ca_file(ca, os);
            files.push(File {
                path: ca.path.to_owned(),
                owner: ca.owner.to_owned(),
                permissions: ca.permissions.to_owned(),
                content: inline(ca.content),
            });
        }
        let mut commands = apply(settings, units, os);
        commands.extend(shell::exports(&settings.variables(secrets)));
        (files, commands)
    }

    /// The pieces, or `findings` with those of CAPI's limits when any.
    fn checked(
        files: Vec<File>,
        pre_kubeadm_commands: Vec<String>,
        mut findings: Vec<Finding>,
    ) -> Result<Self, Vec<Finding>> {
        if files.len() > MAX_FILES {
            findings.push(Finding::error(
                InputField::Units,
                "Too many files",
                format!("CAPI accepts at most {MAX_FILES} files."),
            ));
        }
        for (index, file) in files.iter().enumerate() {
            if file.path.len() > MAX_PATH {
                findings.push(Finding::error(
                    Location::element(InputField::Units, index),
                    "Path too long",
                    format!("{} is longer than {MAX_PATH} characters.", file.path),
                ));
            }
            if files[..index].iter().any(|f| f.path == file.path) {
                findings.push(Finding::error(
                    Location::element(InputField::Units, index),
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
                        Location::element(InputField::Units, index),
                        "File content too long for CAPI",
                        format!("The drop-in for {} is {} characters ({PASSWORD_COUNTED}); CAPI accepts {MAX_CONTENT}. Shorten the NO_PROXY list (e.g. aggregate CIDRs) or use the Secret variant.", file.path, content.len()),
                    ));
                }
            }
        }
        if pre_kubeadm_commands.iter().any(|c| c.len() > MAX_COMMAND) {
            findings.push(Finding::error(
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
        yaml::to_string(&json!({"files": files, "preKubeadmCommands": self.pre_kubeadm_commands}))
    }
}

/// The trust store update (with a CA), daemon-reload and the restarts of the
/// units but kubelet.
fn apply(settings: &ProxySettings, units: &[String], os: OsFamily) -> Vec<String> {
    let restart: Vec<String> = units
        .iter()
        .filter(|u| u.as_str() != "kubelet.service")
        .cloned()
        .collect();
    let trust = settings.trusted_ca.as_ref().map(|_| os.trust_command());
    systemd::apply_commands(&restart, trust)
}

/// `-r<revision>`, or nothing without a revision: appended to the name of a
/// KubeadmConfigTemplate (and to the MachineDeployment's reference to it),
/// which Cluster API treats as immutable, so that a change of settings is a
/// new template and the MachineDeployment rolls its machines.
pub fn template_suffix(revision: Option<i64>) -> String {
    revision.map(|r| format!("-r{r}")).unwrap_or_default()
}

/// Helpers for the tests here and in the crates above (feature
/// `test-support`).
#[cfg(any(test, feature = "test-support"))]
pub mod testing {
    use super::*;

    /// The files of `kubeadm` with their content taken from the Secret
    /// `manifest` (as CAPI's contentFrom does): (path, content, mode).
    pub fn files_from_secret(kubeadm: &Kubeadm, manifest: &str) -> Vec<(String, String, String)> {
        let secret: Value = serde_yaml_ng::from_str(manifest).unwrap();
        kubeadm
            .files
            .iter()
            .map(|file| {
                let Content::Secret { name, key } = &file.content else {
                    panic!("{} is inline", file.path)
                };
                assert_eq!(secret["metadata"]["name"], json!(name));
                let data = secret["data"][key]
                    .as_str()
                    .unwrap_or_else(|| panic!("no key {key}"));
                let content = String::from_utf8(STANDARD.decode(data).unwrap()).unwrap();
                (file.path.clone(), content, file.permissions.clone())
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::{golden, settings};
    use crate::render::trust::testing::ca_and_leaf;
    use crate::trusted_ca::TrustedCa;

    pub(super) fn units() -> Vec<String> {
        vec!["containerd.service".into(), "kubelet.service".into()]
    }

    #[test]
    fn yaml_parses_back_and_matches_golden() {
        let s = settings();
        let kubeadm =
            Kubeadm::inline(&s, &units(), OsFamily::Debian, false, Secrets::Include).unwrap();
        let yaml = kubeadm.to_yaml();
        golden("capi/kubeadm.yaml", &yaml);
        let parsed: Value = serde_yaml_ng::from_str(&yaml).unwrap();
        assert_eq!(
            parsed["files"][0]["path"],
            "/etc/systemd/system/containerd.service.d/http-proxy.conf"
        );
        assert_eq!(parsed["files"][0]["permissions"], "0600");
        assert_eq!(
            parsed["files"][1]["content"],
            systemd::dropin(&s, "kubelet.service", Secrets::Include).content
        );
        assert_eq!(parsed["preKubeadmCommands"][0], "systemctl daemon-reload");
        assert_eq!(
            parsed["preKubeadmCommands"][1],
            "systemctl restart -- 'containerd.service'"
        );
        let encoded =
            Kubeadm::inline(&s, &units(), OsFamily::Debian, true, Secrets::Include).unwrap();
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

    /// Each version names itself and the API groups of the kubeadm kinds;
    /// v1beta2 is the default (first).
    #[test]
    fn api_versions_name_their_groups() {
        for name in ApiVersion::NAMES {
            assert_eq!(
                ApiVersion::from_name(name).map(ApiVersion::name),
                Some(name)
            );
        }
        assert_eq!(
            ApiVersion::from_name(ApiVersion::NAMES[0]),
            Some(ApiVersion::V1beta2)
        );
        assert_eq!(ApiVersion::from_name("v1alpha4"), None);
        assert_eq!(
            ApiVersion::V1beta2.bootstrap(),
            "bootstrap.cluster.x-k8s.io/v1beta2"
        );
        assert_eq!(
            ApiVersion::V1beta1.control_plane(),
            "controlplane.cluster.x-k8s.io/v1beta1"
        );
    }

    #[test]
    fn inline_variant_writes_the_ca_before_the_restarts() {
        let (ca, _) = ca_and_leaf();
        let mut s = settings();
        s.trusted_ca = Some(TrustedCa::parse(&ca).unwrap());
        for (os, command) in [
            (OsFamily::Debian, "update-ca-certificates"),
            (OsFamily::Rhel, "update-ca-trust extract"),
            (OsFamily::Flatcar, "update-ca-certificates"),
            (OsFamily::Photon, "rehash_ca_certificates.sh"),
        ] {
            let kubeadm = Kubeadm::inline(&s, &units(), os, false, Secrets::Include).unwrap();
            assert_eq!(kubeadm.pre_kubeadm_commands[0], command);
            let file = kubeadm.files.last().unwrap();
            assert_eq!(
                (file.path.as_str(), file.permissions.as_str()),
                (os.ca_path(), "0644")
            );
        }
    }

    #[test]
    fn enforces_capi_limits() {
        let mut s = settings();
        s.no_proxy = (0..800).map(|i| format!("host-{i}.corp.example")).collect();
        let errors =
            Kubeadm::inline(&s, &units(), OsFamily::Debian, false, Secrets::Include).unwrap_err();
        assert!(errors
            .iter()
            .any(|f| f.summary == "File content too long for CAPI"
                && f.location == Some(Location::element(InputField::Units, 0))));
        let dup = vec![
            "containerd.service".to_owned(),
            "containerd.service".to_owned(),
        ];
        let errors = Kubeadm::inline(&settings(), &dup, OsFamily::Debian, false, Secrets::Include)
            .unwrap_err();
        assert_eq!(errors[0].summary, "Duplicate file path");
    }
}
