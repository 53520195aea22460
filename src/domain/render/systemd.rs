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

/// The full unit name: `containerd` → `containerd.service`; `.service` names
/// are kept. Invalid names, and units of other types (sockets, timers...: no
/// process of theirs reads a `[Service]` environment), are an error on
/// `field[index]`.
pub fn unit_name(field: &str, index: usize, name: &str) -> Result<String, Finding> {
    let fail =
        |summary: &str, detail: String| Err(Finding::error(field, Some(index), summary, detail));
    let full = if name.ends_with(".service") {
        name.to_owned()
    } else {
        format!("{name}.service")
    };
    let valid = !name.is_empty()
        && full.len() <= 255
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_' | '.' | '@' | '\\'));
    if !valid {
        return fail(
            "Invalid systemd unit name",
            format!("{name:?} is not a unit name (letters, digits and `:-_.@\\` only, at most 255 characters with `.service`)."),
        );
    }
    let other_type = [
        ".socket",
        ".target",
        ".timer",
        ".mount",
        ".automount",
        ".swap",
        ".path",
        ".scope",
        ".slice",
        ".device",
    ]
    .iter()
    .find(|suffix| name.ends_with(*suffix));
    if let Some(suffix) = other_type {
        return fail(
            "Not a service unit",
            format!("{name:?} is a {} unit; the proxy environment goes to the service that runs the process (e.g. {:?}).", &suffix[1..], format!("{}.service", &name[..name.len() - suffix.len()])),
        );
    }
    Ok(full)
}

/// One quoted assignment, `"NAME=value"` with the value escaped, as
/// `Environment=` and `DefaultEnvironment=` take it.
pub fn assignment(name: &str, value: &str) -> String {
    format!("\"{name}={}\"", escape(value))
}

fn assignments(settings: &ProxySettings, secrets: Secrets) -> Vec<String> {
    settings
        .variables(secrets)
        .into_iter()
        .map(|(name, value)| assignment(name, &value))
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
///
/// systemd expands `%` specifiers in `DefaultEnvironment=` since version 249
/// (before, the manager took the words verbatim), so `%` is doubled here as in
/// the unit drop-ins: right for systemd 249 and later. On older systemd (e.g.
/// RHEL 8's 239) a value with `%` would keep `%%`; use the unit drop-ins there.
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
            unit_name("units", 0, "snap.lxd.daemon").unwrap(),
            "snap.lxd.daemon.service"
        );
        assert_eq!(
            unit_name("units", 0, "teleport.service").unwrap(),
            "teleport.service"
        );
        let socket = unit_name("units", 1, "docker.socket").unwrap_err();
        assert_eq!(
            (socket.summary.as_str(), socket.index),
            ("Not a service unit", Some(1))
        );
        assert!(
            socket.detail.contains("\"docker.service\""),
            "{}",
            socket.detail
        );
        assert!(unit_name("units", 0, &"a".repeat(247)).is_ok());
        assert!(unit_name("units", 0, &"a".repeat(248)).is_err());
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

    /// Values with every character that needs care in a systemd value.
    const RAW_VALUES: [&str; 6] = [
        r#"a"b"#,
        r"c\d e",
        "$HOME 100% 'x'",
        "p%40ss %n %%",
        r#"\"quoted\" \\n"#,
        "trailing\\",
    ];

    /// `SYSTEMD_LOG_LEVEL=debug systemd-analyze verify` of a test unit with
    /// `dropin` beside it: the decoded `Environment:` pairs, and the whole log.
    fn analyze(dropin: &str) -> (Vec<(String, String)>, String) {
        let dir = tempfile::tempdir().unwrap();
        let unit = "clusterproxy-test.service";
        std::fs::write(
            dir.path().join(unit),
            "[Unit]\nDescription=test\n[Service]\nType=oneshot\nExecStart=/bin/true\n",
        )
        .unwrap();
        let dropin_dir = dir.path().join(format!("{unit}.d"));
        std::fs::create_dir(&dropin_dir).unwrap();
        std::fs::write(dropin_dir.join(DROPIN_NAME), dropin).unwrap();
        let out = Command::new("systemd-analyze")
            .args(["verify", "--man=no"])
            .arg(dir.path().join(unit))
            .env("SYSTEMD_LOG_LEVEL", "debug")
            .env("SYSTEMD_UNIT_PATH", format!("{}:", dir.path().display()))
            .output()
            .expect("systemd-analyze is installed (scripts/install-test-tools)");
        let log = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        let pairs = log
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("Environment: "))
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        (pairs, log)
    }

    fn owned(pairs: &[(&str, String)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect()
    }

    /// systemd itself decodes the drop-in to exactly the intended values.
    #[test]
    fn systemd_analyze_decodes_the_intended_values() {
        let s = settings();
        let (pairs, log) =
            analyze(&dropin(&s, "clusterproxy-test.service", Secrets::Include).content);
        assert!(!log.contains("Failed to resolve specifiers"), "{log}");
        assert_eq!(pairs, owned(&s.variables(Secrets::Include)), "{log}");
    }

    /// Raw values with `"`, `\`, spaces, `$`, `'` and `%` (not only
    /// percent-encoded URLs) come back unchanged from systemd.
    #[test]
    fn systemd_analyze_decodes_raw_values() {
        let names: Vec<String> = (0..RAW_VALUES.len()).map(|i| format!("V{i}")).collect();
        let content = names
            .iter()
            .zip(RAW_VALUES)
            .map(|(n, v)| format!("Environment={}\n", assignment(n, v)))
            .collect::<String>();
        let (pairs, log) = analyze(&format!("[Service]\n{content}"));
        let want: Vec<(String, String)> = names
            .into_iter()
            .zip(RAW_VALUES.map(str::to_owned))
            .collect();
        assert_eq!(pairs, want, "{log}");
    }

    /// The manager's own parser (`systemd --test --user`, which reads
    /// `$XDG_CONFIG_HOME/systemd/user.conf` with the code that reads
    /// system.conf.d) decodes `DefaultEnvironment=`. Each name gets a `0`
    /// prefix, which makes the assignment invalid, so that systemd logs the
    /// decoded `0NAME=value` it ignores; the escaping of the values is untouched.
    fn manager_decode(content: &str) -> (Vec<(String, String)>, String) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("systemd")).unwrap();
        std::fs::write(dir.path().join("systemd/user.conf"), content).unwrap();
        for path in [dir.path().to_owned(), dir.path().join("systemd")] {
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
        }
        let systemd = ["/lib/systemd/systemd", "/usr/lib/systemd/systemd"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .expect("systemd is installed (scripts/install-test-tools)");
        let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
        // systemd refuses test mode as root: drop to nobody when needed.
        let mut command = if root {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", systemd]);
            c
        } else {
            Command::new(systemd)
        };
        let out = command
            .args(["--test", "--user", "--no-pager"])
            .env("XDG_CONFIG_HOME", dir.path())
            .env("SYSTEMD_LOG_TARGET", "console")
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr).into_owned();
        let pairs = log
            .lines()
            .filter_map(|l| l.split_once("Invalid environment assignment, ignoring: 0"))
            .filter_map(|(_, kv)| kv.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        (pairs, log)
    }

    #[test]
    fn systemd_manager_decodes_default_environment() {
        let s = settings();
        let content = default_environment(&s, Secrets::Include);
        let probe = s
            .variables(Secrets::Include)
            .iter()
            .fold(content.clone(), |c, (name, _)| {
                c.replace(&format!("\"{name}="), &format!("\"0{name}="))
            });
        let (pairs, log) = manager_decode(&probe);
        assert!(!log.contains("Failed to resolve specifiers"), "{log}");
        assert_eq!(pairs, owned(&s.variables(Secrets::Include)), "{log}");

        let raw: Vec<String> = RAW_VALUES
            .iter()
            .enumerate()
            .map(|(i, v)| assignment(&format!("0V{i}"), v))
            .collect();
        let (pairs, log) = manager_decode(&format!(
            "[Manager]\nDefaultEnvironment={}\n",
            raw.join(" ")
        ));
        let want: Vec<(String, String)> = RAW_VALUES
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("V{i}"), (*v).to_owned()))
            .collect();
        assert_eq!(pairs, want, "{log}");
    }
}
