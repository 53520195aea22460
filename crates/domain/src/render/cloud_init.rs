//! cloud-init user data: the systemd drop-ins and the trusted CA as
//! `write_files`, the trust store update, a daemon-reload and the restarts as
//! `runcmd`.
//!
//! Module semantics from canonical/cloud-init (doc/module-docs and
//! cloudinit/config/schemas/schema-cloud-config-v1.json): `write_files`
//! entries take `path`, `content`, `owner` (`user:group`) and `permissions`
//! (an octal string); `write_files` runs in the init stage, `runcmd` items
//! (strings run by `sh`) in the final stage, so the files exist before the
//! commands run. The document starts with the `#cloud-config` header that
//! marks user data as cloud-config.

use crate::warning::Warning;
use serde_json::{json, Value};

use super::trust::{self, OsFamily};
use super::{
    systemd, yaml, Held, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets,
    PASSWORD_COUNTED,
};
use crate::no_proxy::Cloud;
use crate::{Finding, InputField};

/// The header line cloud-init requires on cloud-config user data.
pub const HEADER: &str = "#cloud-config\n";

/// EC2's limit on user data: 16 KB in raw form, before base64 encoding
/// (AWS EC2 User Guide, "Run commands when you launch an EC2 instance with
/// user data input").
pub const EC2_USER_DATA_LIMIT: usize = 16 * 1024;

/// The platform rule on size: on `cloud = "aws"`, user data over
/// [`EC2_USER_DATA_LIMIT`] is refused by EC2 unless compressed (cloud-init
/// reads gzip-compressed user data). A warning on `cloud`. `user_data` is
/// the document with the longest password ([`Secrets::Longest`]): the
/// warning must not depend on the password, nor count less than it.
pub fn check_size(user_data: &str, cloud: Option<Cloud>) -> Option<Finding> {
    (cloud == Some(Cloud::Aws) && user_data.len() > EC2_USER_DATA_LIMIT).then(|| {
        Finding::warning(
            Warning::UserDataTooLarge,
            InputField::Cloud,
            "User data larger than EC2 accepts",
            format!("The user data is {} bytes ({PASSWORD_COUNTED}); EC2 takes at most {EC2_USER_DATA_LIMIT} bytes before base64 encoding. Compress it (cloud-init reads gzip user data; e.g. `gzip = true` in a `cloudinit_config`), or shorten the NO_PROXY list or the units.", user_data.len()),
        )
    })
}

/// The files a node needs: with a trusted CA its bundle for `os`, then one
/// drop-in per unit, as (path, owner, permissions, content).
pub fn files(
    settings: &ProxySettings,
    units: &[String],
    os: OsFamily,
    secrets: Secrets,
) -> Vec<(String, &'static str, &'static str, String)> {
    let ca = settings.trusted_ca.iter().map(|ca| {
        let file = trust::ca_file(ca, os);
        (
            file.path.to_owned(),
            file.owner,
            file.permissions,
            file.content,
        )
    });
    let dropins = units.iter().map(|unit| {
        let d = systemd::dropin(settings, unit, secrets);
        (d.path, d.owner, d.permissions, d.content)
    });
    ca.chain(dropins).collect()
}

/// The commands, in order: the trust store update of `os` when a CA is
/// written, `systemctl daemon-reload`, a restart per unit.
pub fn commands(settings: &ProxySettings, units: &[String], os: OsFamily) -> Vec<String> {
    let trust_command = settings.trusted_ca.as_ref().map(|_| os.trust_command());
    systemd::apply_commands(units, trust_command)
}

/// cloud-init: the units to give the proxy settings and the OS family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CloudInit {
    /// Full unit names (`containerd.service`), at least one.
    pub units: Vec<String>,
    /// The OS family of the nodes.
    pub os: OsFamily,
}

/// The user data and its commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserData {
    /// The cloud-config document (see [`user_data`]).
    pub user_data: String,
    /// Its `runcmd` (see [`commands`]).
    pub runcmd: Vec<String>,
}

impl Renderer for CloudInit {
    type Output = UserData;

    const MODULE: &'static str = "cloud_init";

    fn sample() -> Self {
        CloudInit {
            units: crate::render::systemd::typical_units(),
            os: crate::render::trust::OsFamily::Debian,
        }
    }

    /// The document, within systemd's limits and, on a cloud that caps user
    /// data (the cluster's `cloud`), with a warning above the cap.
    fn render(&self, input: Input) -> Rendering<UserData> {
        let (settings, cluster, secrets) = (input.settings, input.cluster, input.secrets);
        let mut findings = systemd::check_dropins(settings, &self.units);
        if findings.iter().any(Finding::is_error) {
            return Err(findings);
        }
        let document = user_data(settings, &self.units, self.os, secrets);
        findings.extend(check_size(
            &user_data(settings, &self.units, self.os, Secrets::Longest),
            cluster.cloud,
        ));
        Rendered::checked(
            UserData {
                user_data: document,
                runcmd: commands(settings, &self.units, self.os),
            },
            findings,
        )
    }

    /// The drop-ins the user data writes, as the node holds them.
    fn held(&self, output: &UserData) -> Held {
        let document: Value = serde_yaml_ng::from_str(&output.user_data).unwrap_or_default();
        let files = document.get("write_files").and_then(Value::as_array);
        Held::Files(systemd::held_dropins(files.into_iter().flatten(), |file| {
            file.get("content").and_then(Value::as_str)
        }))
    }
}

/// The cloud-config document (with its `#cloud-config` header).
pub fn user_data(
    settings: &ProxySettings,
    units: &[String],
    os: OsFamily,
    secrets: Secrets,
) -> String {
    let write_files: Vec<Value> = files(settings, units, os, secrets)
        .into_iter()
        .map(|(path, owner, permissions, content)| {
            json!({"path": path, "owner": owner, "permissions": permissions, "content": content})
        })
        .collect();
    let document = json!({
        "write_files": write_files,
        "runcmd": commands(settings, units, os),
    });
    format!("{HEADER}{}", yaml::to_string(&document))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::render::tests::{golden, settings, NASTY_PASSWORD};
    use crate::trusted_ca::TrustedCa;

    fn units() -> Vec<String> {
        vec![
            "containerd.service".to_owned(),
            "kubelet.service".to_owned(),
        ]
    }

    /// The test settings with a freshly generated CA as `trusted_ca`.
    pub(crate) fn with_ca() -> ProxySettings {
        let mut s = settings();
        let (ca, _) = trust::testing::ca_and_leaf();
        s.trusted_ca = Some(TrustedCa::parse(&ca).unwrap());
        s
    }

    /// Parsed back (PyYAML-compatible serde_yaml_ng reader), the files hold
    /// exactly the drop-ins and CA file the systemd renderer writes, and the
    /// commands exactly its commands.
    #[test]
    fn parses_back_to_the_systemd_files_and_commands() {
        let s = with_ca();
        let text = user_data(&s, &units(), OsFamily::Debian, Secrets::Include);
        assert!(text.starts_with(HEADER));
        let parsed: Value = serde_yaml_ng::from_str(&text).unwrap();
        let files = parsed["write_files"].as_array().unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(files[0]["path"], OsFamily::Debian.ca_path());
        assert_eq!(
            files[0]["content"],
            s.trusted_ca.as_ref().unwrap().to_pem().as_str()
        );
        let dropin = systemd::dropin(&s, "kubelet.service", Secrets::Include);
        assert_eq!(files[2]["path"], dropin.path.as_str());
        assert_eq!(files[2]["content"], dropin.content.as_str());
        assert_eq!(files[2]["permissions"], "0600");
        assert!(files[2]["content"].as_str().unwrap().contains("p%%2540ss"));
        assert_eq!(
            parsed["runcmd"],
            json!([
                "update-ca-certificates",
                "systemctl daemon-reload",
                "systemctl restart -- 'containerd.service'",
                "systemctl restart -- 'kubelet.service'"
            ])
        );
        let redacted = user_data(&s, &units(), OsFamily::Debian, Secrets::Redact);
        assert!(!redacted.contains("p%%2540ss") && !redacted.contains(NASTY_PASSWORD));
    }

    #[test]
    fn ec2_size_limit_warns_on_aws_only() {
        let big = "x".repeat(EC2_USER_DATA_LIMIT + 1);
        let warning = check_size(&big, Some(Cloud::Aws)).unwrap();
        assert!(!warning.is_error() && warning.location == Some(InputField::Cloud.into()));
        assert_eq!(check_size(&big, Some(Cloud::Azure)), None);
        assert_eq!(check_size(&big[1..], Some(Cloud::Aws)), None);
    }

    #[test]
    fn golden_files() {
        golden(
            "cloud_init/user-data.yaml",
            &user_data(&settings(), &units(), OsFamily::Debian, Secrets::Include),
        );
    }
}
