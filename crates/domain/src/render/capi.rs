//! Cluster API kubeadm bootstrap: `files` entries and `preKubeadmCommands` for
//! KubeadmControlPlane and KubeadmConfigTemplate, the `contentFrom.secret`
//! variant with its Secret (Giant Swarm: `<cluster>-systemd-proxy`, key
//! `containerdProxy`), where every file comes from the Secret, the credentials
//! included, and the commands only source a file; and the
//! `<cluster>-cluster-values` `cluster.proxy` values.
//! CAPI's limits are enforced.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};

use super::trust::{self, OsFamily};
use super::{
    k8s, shell, systemd, yaml, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets,
};
use crate::proxy_url::REDACTED_PASSWORD;
use crate::{Field, Finding, Location};

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

/// Cluster API kubeadm: the units to give the proxy settings, the OS family,
/// and where the files' content lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capi {
    /// Full unit names (`containerd.service`), at least one.
    pub units: Vec<String>,
    /// The OS family of the nodes.
    pub os: OsFamily,
    /// Inline content base64-encoded.
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
}

/// The kubeadm pieces.
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

/// Where the Secret variant puts the environment file that the commands source.
pub const ENV_FILE_PATH: &str = "/etc/clusterproxy/proxy.env";
/// Key of the environment file in the Secret.
pub const ENV_KEY: &str = "proxyEnv";
/// Key of the CA bundle in the Secret.
pub const CA_KEY: &str = "trustedCa";

/// The Secret key of the drop-in for `unit`: `<name>Proxy`
/// (`containerdProxy` as Giant Swarm names it). Characters a Secret key
/// cannot hold (`@`, `:`, `\`) and `_` itself become `_xx` (hex), so that
/// two units never share a key. Kubernetes may still refuse the key (too
/// long, or starting with `..`; see [`k8s::data_key`]): the Secret variant
/// reports that as an error on the unit.
pub fn secret_key(unit: &str) -> String {
    let base = unit.strip_suffix(".service").unwrap_or(unit);
    let mut key = String::with_capacity(base.len() + 5);
    for b in base.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'.' {
            key.push(char::from(b));
        } else {
            key.push_str(&format!("_{b:02x}"));
        }
    }
    key + "Proxy"
}

/// An error on element `index` of [`Field::Units`] when Kubernetes would
/// refuse `key`, the Secret key of `unit`'s drop-in. Kubernetes holds Secret
/// keys to `IsConfigMapKey` (k8s.io/apimachinery `validation.go`:
/// `[-._a-zA-Z0-9]+`, at most 253 characters, not `.` or `..` and not
/// starting with `..`; see [`k8s::data_key`]); [`secret_key`] writes only
/// those characters, but escaping can take a long unit name over 253
/// characters, and a unit named `..foo` gives `..fooProxy`.
fn secret_key_error(index: usize, unit: &str, key: &str) -> Option<Finding> {
    let why = k8s::data_key(key).err()?;
    let shown = if key.len() > 64 {
        format!("{}...", &key[..64])
    } else {
        key.to_owned()
    };
    Some(Finding::error(
        Location::element(Field::Units, index),
        "Secret key not accepted by Kubernetes",
        format!("The drop-in of {unit:?} would be stored under the Secret key {shown:?} (`_`, `:`, `@` and `\\` are written as three characters each), and Kubernetes refuses it: {why}. Rename the unit or leave out `cluster_name` to write the files inline."),
    ))
}

/// The environment file the Secret variant's commands source: `export` lines.
pub fn env_file(settings: &ProxySettings, secrets: Secrets) -> String {
    let mut out = "# Proxy settings for kubeadm, managed by Terraform (clusterproxy).\n".to_owned();
    for line in shell::exports(&settings.variables(secrets)) {
        out.push_str(&line);
        out.push('\n');
    }
    out
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
        // The limits are checked on the pieces with the password shown as
        // `***`: no finding, nor whether one is made, may depend on it.
        let (files, commands) = Self::inline_pieces(settings, units, os, base64, Secrets::Redact);
        let checked = Self::checked(files, commands, Vec::new())?;
        Ok(match secrets {
            Secrets::Redact => checked,
            Secrets::Include => {
                let (files, pre_kubeadm_commands) =
                    Self::inline_pieces(settings, units, os, base64, Secrets::Include);
                Self {
                    files,
                    pre_kubeadm_commands,
                }
            }
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

    /// Every file from the Secret `secret` (see [`secret_name`]) through
    /// `contentFrom.secret`: a drop-in per unit, the environment file that the
    /// commands source, and the CA bundle for `os`. Nothing in the result
    /// holds a credential.
    fn from_secret(
        settings: &ProxySettings,
        secret: &str,
        units: &[String],
        os: OsFamily,
    ) -> Result<Self, Vec<Finding>> {
        let from = |path: String, permissions: &str, key: String| File {
            path,
            owner: "root:root".to_owned(),
            permissions: permissions.to_owned(),
            content: Content::Secret {
                name: secret.to_owned(),
                key,
            },
        };
        let mut findings = Vec::new();
        let mut files = Vec::with_capacity(units.len() + 2);
        for (index, unit) in units.iter().enumerate() {
            let key = secret_key(unit);
            findings.extend(secret_key_error(index, unit, &key));
            let dropin = systemd::dropin(settings, unit, Secrets::Redact);
            files.push(from(dropin.path, dropin.permissions, key));
        }
        files.push(from(
            ENV_FILE_PATH.to_owned(),
            systemd::permissions(settings),
            ENV_KEY.to_owned(),
        ));
        if let Some(ca) = &settings.trusted_ca {
            let ca = trust::ca_file(ca, os);
            files.push(from(ca.path.to_owned(), ca.permissions, CA_KEY.to_owned()));
        }
        let mut commands = apply(settings, units, os);
        commands.push(format!(". {}", shell::quote(ENV_FILE_PATH)));
        Self::checked(files, commands, findings)
    }

    /// The pieces, or `findings` with those of CAPI's limits when any.
    fn checked(
        files: Vec<File>,
        pre_kubeadm_commands: Vec<String>,
        mut findings: Vec<Finding>,
    ) -> Result<Self, Vec<Finding>> {
        if files.len() > MAX_FILES {
            findings.push(Finding::error(
                Field::Units,
                "Too many files",
                format!("CAPI accepts at most {MAX_FILES} files."),
            ));
        }
        for (index, file) in files.iter().enumerate() {
            if file.path.len() > MAX_PATH {
                findings.push(Finding::error(
                    Location::element(Field::Units, index),
                    "Path too long",
                    format!("{} is longer than {MAX_PATH} characters.", file.path),
                ));
            }
            if files[..index].iter().any(|f| f.path == file.path) {
                findings.push(Finding::error(
                    Location::element(Field::Units, index),
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
                        Location::element(Field::Units, index),
                        "File content too long for CAPI",
                        format!("The drop-in for {} is {} characters (the proxy password counted as `{REDACTED_PASSWORD}`); CAPI accepts {MAX_CONTENT}. Shorten the NO_PROXY list (e.g. aggregate CIDRs) or use the Secret variant.", file.path, content.len()),
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

/// `<cluster>-systemd-proxy`, with a revision (the profile's, see
/// [`ProxySettings::revision`]) `<cluster>-systemd-proxy-r<revision>`.
/// The name is the only part of the Secret that the `kubeadmConfigSpec`
/// holds: suffixing it with the revision makes every change of settings a
/// change of that spec, without putting anything derived from the password
/// in it. The name stays a DNS subdomain (a cluster name is a label).
pub fn secret_name(cluster: &str, revision: Option<i64>) -> String {
    format!("{cluster}{SECRET_SUFFIX}{}", template_suffix(revision))
}

/// What [`secret_name`] appends to the cluster name, before the revision.
const SECRET_SUFFIX: &str = "-systemd-proxy";

/// The cluster whose Secret [`secret_name`] named `name`, with or without a
/// revision (`prod-systemd-proxy`, `prod-systemd-proxy-r3`: `prod`).
pub fn cluster_of_secret(name: &str) -> Option<&str> {
    let unrevised = name
        .rsplit_once("-r")
        .filter(|(base, digits)| {
            base.ends_with(SECRET_SUFFIX)
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
        })
        .map_or(name, |(base, _)| base);
    unrevised.strip_suffix(SECRET_SUFFIX)
}

/// `-r<revision>`, or nothing without a revision: appended to the name of a
/// KubeadmConfigTemplate (and to the MachineDeployment's reference to it),
/// which Cluster API treats as immutable, so that a change of settings is a
/// new template and the MachineDeployment rolls its machines.
pub fn template_suffix(revision: Option<i64>) -> String {
    revision.map(|r| format!("-r{r}")).unwrap_or_default()
}

/// The Secret the Secret variant's files come from (YAML manifest): a
/// drop-in per unit, the environment file and the CA bundle.
pub fn secret_manifest(
    settings: &ProxySettings,
    name: &str,
    namespace: &str,
    units: &[String],
    secrets: Secrets,
) -> String {
    let mut data = serde_json::Map::new();
    for unit in units {
        let dropin = systemd::dropin(settings, unit, secrets);
        data.insert(secret_key(unit), json!(STANDARD.encode(dropin.content)));
    }
    data.insert(
        ENV_KEY.to_owned(),
        json!(STANDARD.encode(env_file(settings, secrets))),
    );
    if let Some(ca) = &settings.trusted_ca {
        data.insert(CA_KEY.to_owned(), json!(STANDARD.encode(ca.to_pem())));
    }
    let manifest = json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace},
        "type": "Opaque",
        "data": data,
    });
    yaml::to_string(&manifest)
}

/// The `cluster.proxy` values of `<cluster>-cluster-values` (YAML).
pub fn cluster_values(settings: &ProxySettings, secrets: Secrets) -> String {
    let url =
        |u: &Option<crate::proxy_url::ProxyUrl>| u.as_ref().map(|u| ProxySettings::url(u, secrets));
    let values = json!({"cluster": {"proxy": {
        "http": url(&settings.http_proxy),
        "https": url(&settings.https_proxy),
        "noProxy": settings.no_proxy_value(),
    }}});
    yaml::to_string(&values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::{golden, settings, NASTY_PASSWORD};
    use crate::render::trust::tests::{ca_and_leaf, run_isolated};
    use crate::trusted_ca::TrustedCa;

    fn units() -> Vec<String> {
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

    /// The commands pass `sh -n` and, run with `systemctl` stubbed, export
    /// exactly the intended values (read back with `env`).
    #[test]
    fn pre_kubeadm_commands_export_the_values_in_a_real_shell() {
        let s = settings();
        let kubeadm =
            Kubeadm::inline(&s, &units(), OsFamily::Debian, false, Secrets::Include).unwrap();
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

    /// The files of `kubeadm` with their content taken from the Secret
    /// `manifest` (as CAPI's contentFrom does): (path, content, mode).
    fn files_from_secret(kubeadm: &Kubeadm, manifest: &str) -> Vec<(String, String, String)> {
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

    /// The Secret variant: no credential in the kubeadm pieces in any form,
    /// every unit gets its drop-in, credentials files are 0600, and run in an
    /// isolated root with the files in place, the commands make the system
    /// trust the CA and give kubeadm exactly the variables.
    #[test]
    fn secret_variant_keeps_credentials_in_the_secret_and_works_on_a_node() {
        let (ca, leaf) = ca_and_leaf();
        let mut s = settings();
        let units = vec![
            "containerd.service".to_owned(),
            "kubelet.service".to_owned(),
            r"foo\x2dbar@a_b.service".to_owned(),
        ];
        golden(
            "capi/secret.yaml",
            &secret_manifest(
                &s,
                "prod-systemd-proxy",
                "org-acme",
                &units,
                Secrets::Include,
            ),
        );
        s.trusted_ca = Some(TrustedCa::parse(&ca).unwrap());
        let kubeadm =
            Kubeadm::from_secret(&s, "prod-systemd-proxy", &units, OsFamily::Debian).unwrap();
        let yaml = kubeadm.to_yaml();
        golden("capi/kubeadm-secret.yaml", &yaml);
        let encoded_password = NASTY_PASSWORD.replace('%', "%25");
        for form in [NASTY_PASSWORD, "p%2540ss", &encoded_password, "svc-proxy:"] {
            assert!(!yaml.contains(form), "{form} in\n{yaml}");
        }
        assert!(kubeadm
            .files
            .iter()
            .all(|f| matches!(f.content, Content::Secret { .. })));
        let manifest = secret_manifest(
            &s,
            "prod-systemd-proxy",
            "org-acme",
            &units,
            Secrets::Include,
        );
        let files = files_from_secret(&kubeadm, &manifest);
        for unit in &units {
            let path = format!("/etc/systemd/system/{unit}.d/http-proxy.conf");
            let (_, content, mode) = files.iter().find(|(p, ..)| *p == path).expect(&path);
            assert_eq!(
                *content,
                systemd::dropin(&s, unit, Secrets::Include).content
            );
            assert_eq!(mode, "0600");
        }
        let env_mode = &files.iter().find(|(p, ..)| p == ENV_FILE_PATH).unwrap().2;
        assert_eq!(env_mode, "0600");
        let script = format!("{}\nenv", kubeadm.pre_kubeadm_commands.join("\n"));
        let (before, after, log) = run_isolated(&files, &script, &leaf);
        assert!(!before && after, "{log}");
        for (name, value) in s.variables(Secrets::Include) {
            let line = format!("{name}={value}");
            assert!(log.lines().any(|l| l == line), "{line} missing:\n{log}");
        }
        assert!(
            log.contains("systemctl restart -- foo\\x2dbar@a_b.service"),
            "{log}"
        );
        assert!(!log.contains("systemctl restart -- kubelet"), "{log}");
    }

    /// The Secret variant with `revision`, rendered with or without the
    /// credentials.
    fn secret_variant(
        settings: &ProxySettings,
        revision: Option<i64>,
        secrets: Secrets,
    ) -> CapiConfig {
        let settings = &ProxySettings {
            revision,
            ..settings.clone()
        };
        let capi = Capi {
            units: units(),
            os: OsFamily::Debian,
            base64_content: false,
            cluster_name: Some("prod".to_owned()),
            namespace: "org-acme".to_owned(),
        };
        let cluster = crate::no_proxy::Cluster::default();
        capi.render(Input {
            settings,
            cluster: &cluster,
            secrets,
        })
        .unwrap()
        .output
    }

    /// A password-only rotation (which moves the profile's revision) changes
    /// the Secret variant's `kubeadmConfigSpec`, so Cluster API rolls the
    /// machines, and shows the change without the password; the same
    /// settings at the same revision change no byte; without a revision the
    /// names are those of earlier releases.
    #[test]
    fn a_rotation_changes_the_kubeadm_config_spec_through_the_revision() {
        let before = settings();
        let mut after = settings();
        let rotated = crate::proxy_url::ProxyCredentials::new("svc-proxy", "n3w-pass").unwrap();
        for url in [&mut after.http_proxy, &mut after.https_proxy] {
            *url = url.take().map(|u| u.with_credentials(rotated.clone()));
        }
        let old = secret_variant(&before, Some(1), Secrets::Include);
        let new = secret_variant(&after, Some(2), Secrets::Include);
        assert_ne!(old.kubeadm, new.kubeadm);
        assert_eq!(new.secret_name.as_deref(), Some("prod-systemd-proxy-r2"));
        assert_eq!(new.template_suffix, "-r2");
        let manifest: Value =
            serde_yaml_ng::from_str(new.secret_manifest.as_deref().unwrap()).unwrap();
        assert_eq!(manifest["metadata"]["name"], "prod-systemd-proxy-r2");
        let redacted = secret_variant(&after, Some(2), Secrets::Redact);
        assert_eq!(
            redacted.kubeadm, new.kubeadm,
            "the spec holds no credential"
        );
        let yaml = redacted.kubeadm.to_yaml();
        assert!(yaml.contains("name: prod-systemd-proxy-r2"), "{yaml}");
        assert!(!yaml.contains("n3w-pass"), "{yaml}");
        assert_eq!(secret_variant(&after, Some(2), Secrets::Include), new);
        assert_eq!(
            secret_variant(&before, Some(1), Secrets::Include).kubeadm,
            old.kubeadm
        );
        for revision in [None, Some(1), Some(42)] {
            let name = secret_name("prod-r1", revision);
            assert_eq!(cluster_of_secret(&name), Some("prod-r1"), "{name}");
        }
        assert_eq!(cluster_of_secret("prod-systemd-proxy-rx"), None);
        let unversioned = secret_variant(&before, None, Secrets::Include);
        assert_eq!(
            unversioned.secret_name.as_deref(),
            Some("prod-systemd-proxy")
        );
        assert_eq!(unversioned.template_suffix, "");
    }

    #[test]
    fn secret_keys_are_valid_and_distinct() {
        let keys: Vec<String> = [
            "containerd.service",
            "a_b.service",
            "a@b.service",
            r"a\x40b.service",
            "a_40b.service",
        ]
        .iter()
        .map(|u| secret_key(u))
        .collect();
        assert_eq!(keys[0], "containerdProxy");
        for key in &keys {
            assert!(
                key.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b)),
                "{key}"
            );
        }
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), keys.len(), "{keys:?}");
    }

    /// A unit whose Secret key Kubernetes would refuse (over 253
    /// characters once escaped, or starting with `..`) is an error on its
    /// `units` element in the Secret variant only; the longest key accepted
    /// passes.
    #[test]
    fn secret_keys_kubernetes_refuses_are_errors_on_their_unit() {
        let long = format!("{}.service", "_".repeat(110));
        assert_eq!(secret_key(&long).len(), 335);
        let longest = format!("{}.service", "a".repeat(248));
        assert_eq!(secret_key(&longest).len(), k8s::MAX_DATA_KEY);
        let units = [
            "containerd.service".to_owned(),
            long,
            "..foo.service".to_owned(),
            longest,
            ".foo.service".to_owned(),
        ];
        let errors =
            Kubeadm::from_secret(&settings(), "prod", &units, OsFamily::Debian).unwrap_err();
        let found: Vec<_> = errors
            .iter()
            .map(|f| (f.summary.as_str(), f.location))
            .collect();
        let at = |index| Some(Location::element(Field::Units, index));
        let summary = "Secret key not accepted by Kubernetes";
        assert_eq!(found, [(summary, at(1)), (summary, at(2))]);
        assert!(
            errors[0].detail.contains("253 characters"),
            "{}",
            errors[0].detail
        );
        assert!(errors[1].detail.contains("`..`"), "{}", errors[1].detail);
        Kubeadm::inline(
            &settings(),
            &units,
            OsFamily::Debian,
            false,
            Secrets::Include,
        )
        .unwrap();
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
    fn cluster_values() {
        let s = settings();
        let values = super::cluster_values(&s, Secrets::Include);
        golden("capi/cluster-values.yaml", &values);
        let parsed: Value = serde_yaml_ng::from_str(&values).unwrap();
        assert_eq!(parsed["cluster"]["proxy"]["noProxy"], s.no_proxy_value());
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
                && f.location == Some(Location::element(Field::Units, 0))));
        let dup = vec![
            "containerd.service".to_owned(),
            "containerd.service".to_owned(),
        ];
        let errors = Kubeadm::inline(&settings(), &dup, OsFamily::Debian, false, Secrets::Include)
            .unwrap_err();
        assert_eq!(errors[0].summary, "Duplicate file path");
    }
}
