//! systemd drop-ins that set the proxy environment of a service, and the
//! `DefaultEnvironment=` variant for every service (system.conf.d).
//!
//! Values are written `Environment="NAME=value"` with `\` and `"` escaped by a
//! backslash and `%` doubled (systemd expands `%` specifiers; a percent-encoded
//! password would otherwise fail to load).

use super::{ProxySettings, Secrets};
use crate::domain::Finding;

/// The units proxied when none are named.
pub const DEFAULT_UNITS: [&str; 2] = ["containerd", "kubelet"];

/// File name of every drop-in.
pub const DROPIN_NAME: &str = "http-proxy.conf";

/// Path of the system-wide `DefaultEnvironment=` drop-in.
pub const DEFAULT_ENVIRONMENT_PATH: &str = "/etc/systemd/system.conf.d/http-proxy.conf";

/// One drop-in file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropin {
    /// The unit it extends, with its suffix (`containerd.service`).
    pub unit: String,
    /// Absolute path of the file.
    pub path: String,
    /// Owner, `user:group`.
    pub owner: &'static str,
    /// Octal permissions: 0640 (credentials may be inside).
    pub permissions: &'static str,
    /// File content.
    pub content: String,
}

/// Escapes a value for a double-quoted `Environment=` assignment.
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '"' => out.push_str("\\\""),
            '%' => out.push_str("%%"),
            c => out.push(c),
        }
    }
    out
}

/// The full unit name: `containerd` → `containerd.service`; names with a
/// unit suffix are kept. Invalid names are an error on `field[index]`.
pub fn unit_name(field: &str, index: usize, name: &str) -> Result<String, Finding> {
    let valid = !name.is_empty()
        && name.len() <= 255
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_' | '.' | '@' | '\\'));
    if !valid {
        return Err(Finding::error(
            field,
            Some(index),
            "Invalid systemd unit name",
            format!("{name:?} is not a unit name (letters, digits and `:-_.@\\` only)."),
        ));
    }
    let has_suffix = [
        ".service", ".socket", ".target", ".timer", ".mount", ".scope", ".slice",
    ]
    .iter()
    .any(|s| name.ends_with(s));
    Ok(if has_suffix {
        name.to_owned()
    } else {
        format!("{name}.service")
    })
}

fn assignments(settings: &ProxySettings, secrets: Secrets) -> Vec<String> {
    settings
        .variables(secrets)
        .into_iter()
        .map(|(name, value)| format!("\"{name}={}\"", escape(&value)))
        .collect()
}

/// The drop-in for `unit` (a full unit name).
pub fn dropin(settings: &ProxySettings, unit: &str, secrets: Secrets) -> Dropin {
    let mut content =
        format!("# Proxy settings for {unit}, managed by Terraform (clusterproxy).\n[Service]\n");
    for assignment in assignments(settings, secrets) {
        content.push_str("Environment=");
        content.push_str(&assignment);
        content.push('\n');
    }
    Dropin {
        unit: unit.to_owned(),
        path: format!("/etc/systemd/system/{unit}.d/{DROPIN_NAME}"),
        owner: "root:root",
        permissions: "0640",
        content,
    }
}

/// The `[Manager] DefaultEnvironment=` drop-in for every service.
pub fn default_environment(settings: &ProxySettings, secrets: Secrets) -> String {
    format!(
        "# Proxy settings for every service, managed by Terraform (clusterproxy).\n[Manager]\nDefaultEnvironment={}\n",
        assignments(settings, secrets).join(" ")
    )
}

/// The commands that apply the drop-ins: one daemon-reload, then a restart per unit.
pub fn apply_commands(units: &[String]) -> Vec<String> {
    std::iter::once("systemctl daemon-reload".to_owned())
        .chain(units.iter().map(|u| format!("systemctl restart {u}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::render::tests::{golden, settings};
    use std::process::Command;

    #[test]
    fn escapes_what_systemd_unescapes() {
        assert_eq!(escape(r#"a%b"c\d $e"#), r#"a%%b\"c\\d $e"#);
    }

    #[test]
    fn unit_names() {
        assert_eq!(
            unit_name("units", 0, "containerd").unwrap(),
            "containerd.service"
        );
        assert_eq!(
            unit_name("units", 0, "docker.socket").unwrap(),
            "docker.socket"
        );
        assert_eq!(
            unit_name("units", 2, "bad unit").unwrap_err().index,
            Some(2)
        );
        assert!(unit_name("units", 0, "").is_err());
    }

    #[test]
    fn golden_files() {
        let s = settings();
        golden(
            "systemd/containerd.conf",
            &dropin(&s, "containerd.service", Secrets::Include).content,
        );
        golden(
            "systemd/kubelet-redacted.conf",
            &dropin(&s, "kubelet.service", Secrets::Redact).content,
        );
        golden(
            "systemd/system.conf",
            &default_environment(&s, Secrets::Include),
        );
    }

    /// systemd itself decodes the drop-in to exactly the intended values.
    #[test]
    fn systemd_analyze_decodes_the_intended_values() {
        let dir = tempfile::tempdir().unwrap();
        let unit = "clusterproxy-test.service";
        std::fs::write(
            dir.path().join(unit),
            "[Unit]\nDescription=test\n[Service]\nType=oneshot\nExecStart=/bin/true\n",
        )
        .unwrap();
        let dropin_dir = dir.path().join(format!("{unit}.d"));
        std::fs::create_dir(&dropin_dir).unwrap();
        let s = settings();
        std::fs::write(
            dropin_dir.join(DROPIN_NAME),
            dropin(&s, unit, Secrets::Include).content,
        )
        .unwrap();
        let out = Command::new("systemd-analyze")
            .args(["verify", "--man=no"])
            .arg(dir.path().join(unit))
            .env("SYSTEMD_LOG_LEVEL", "debug")
            .env("SYSTEMD_UNIT_PATH", format!("{}:", dir.path().display()))
            .output()
            .expect("systemd-analyze is installed (scripts/install-test-tools)");
        let log = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        assert!(!log.contains("Failed to resolve specifiers"), "{log}");
        for (name, value) in s.variables(Secrets::Include) {
            let line = format!("Environment: {name}={value}");
            assert!(
                log.lines().any(|l| l.trim_end().ends_with(&line)),
                "systemd did not decode {name} to {value:?}:\n{log}"
            );
        }
    }
}
