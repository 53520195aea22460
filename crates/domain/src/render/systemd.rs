//! systemd's side of a node, shared by the renderers that configure a node's
//! services (`systemd_dropin`, `capi`, `cloud_init`, `ignition`, `rke2`): the
//! unit drop-in and the `DefaultEnvironment=` drop-in (system.conf.d), the
//! permissions of a file holding the settings, systemd's and the kernel's
//! limits, and the commands that apply the drop-ins. Unit names are in
//! [`mod@unit`].
//!
//! Values are written `Environment="NAME=value"` with `\` and `"` escaped by a
//! backslash and `%` doubled (systemd expands `%` specifiers; a percent-encoded
//! password would otherwise fail to load).

pub mod unit;

use super::{shell, ProxySettings, Secrets, PASSWORD_COUNTED};
use crate::warning::Warning;
use crate::Finding;

/// File name of every drop-in.
pub const DROPIN_NAME: &str = "http-proxy.conf";

/// systemd's longest unit file line (`LONG_LINE_MAX`, 1 MiB, in
/// src/basic/fileio.h; the unit file parser reads lines with that limit and
/// refuses the file past it).
pub const LONG_LINE_MAX: usize = 1024 * 1024;

/// A line this long gets a warning: far below [`LONG_LINE_MAX`], and a sign
/// that the NO_PROXY list grows towards the limits.
pub const LONG_LINE_WARNING: usize = 64 * 1024;

/// The longest single environment string the Linux kernel passes to a new
/// program (`MAX_ARG_STRLEN`, 32 pages of 4 KiB, include/uapi/linux/binfmts.h):
/// execve fails with E2BIG past it, so the service would not start.
pub const MAX_ARG_STRLEN: usize = 32 * 4096;

/// [`check_limits`] on the drop-in of the first of `units` with the longest
/// password (every drop-in has the same lines; no finding may depend on the
/// password, and none may count less than the real drop-in): what every
/// renderer that writes drop-ins checks.
pub fn check_dropins(settings: &ProxySettings, units: &[String]) -> Vec<Finding> {
    units
        .first()
        .map(|unit| check_limits(settings, &dropin(settings, unit, Secrets::Longest).content))
        .unwrap_or_default()
}

/// A unit's drop-in, as every renderer that writes one on a node takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropin {
    /// The unit it extends, with its suffix (`containerd.service`).
    pub unit: String,
    /// `/etc/systemd/system/<unit>.d/http-proxy.conf`.
    pub path: String,
    /// Owner as `user:group`: `root:root`.
    pub owner: &'static str,
    /// Octal permissions: 0600 when it holds credentials, 0644 otherwise.
    pub permissions: &'static str,
    /// A `[Service]` section with an `Environment=` line per variable.
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

/// Octal permissions of a file that holds the settings: 0600 when the proxy
/// URLs carry credentials (as Giant Swarm's charts write them), 0644 otherwise.
pub fn permissions(settings: &ProxySettings) -> &'static str {
    let credentials = [&settings.http_proxy, &settings.https_proxy]
        .into_iter()
        .flatten()
        .any(|url| url.credentials().is_some());
    if credentials {
        "0600"
    } else {
        "0644"
    }
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
        permissions: permissions(settings),
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

/// The limits the settings meet in systemd and the kernel: an error when a
/// variable is longer than [`MAX_ARG_STRLEN`] (the service could not start)
/// or a line of `content` reaches [`LONG_LINE_MAX`] (systemd refuses the
/// file), a warning when a line passes [`LONG_LINE_WARNING`]. The findings
/// concern the rendered output as a whole (no location).
pub fn check_limits(settings: &ProxySettings, content: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (name, value) in settings.variables(Secrets::Longest) {
        let length = name.len() + 1 + value.len();
        if length >= MAX_ARG_STRLEN {
            findings.push(Finding::error(
                None,
                "Environment variable too long",
                format!("{name} would be {length} bytes; Linux refuses to start a program with an environment string of {MAX_ARG_STRLEN} bytes or more (MAX_ARG_STRLEN). Shorten the NO_PROXY list (aggregate CIDRs, use domain suffixes)."),
            ));
        }
    }
    let longest = content.lines().map(str::len).max().unwrap_or(0);
    if longest >= LONG_LINE_MAX {
        findings.push(Finding::error(
            None,
            "Line too long for systemd",
            format!("A line of the drop-in is {longest} bytes ({PASSWORD_COUNTED}); systemd refuses unit files with lines of {LONG_LINE_MAX} bytes or more (LONG_LINE_MAX), and the unit would not load. Shorten the NO_PROXY list."),
        ));
    } else if longest > LONG_LINE_WARNING {
        findings.push(Finding::warning(
            Warning::LongDropinLine,
            None,
            "Very long drop-in line",
            format!("A line of the drop-in is {longest} bytes ({PASSWORD_COUNTED}). systemd refuses lines of {LONG_LINE_MAX} bytes and Linux environment strings of {MAX_ARG_STRLEN} bytes; consider aggregating CIDRs or using domain suffixes."),
        ));
    }
    findings
}

/// The commands that apply the drop-ins: the trust store update when a CA
/// file is written (`trust_command`), one daemon-reload, then a restart per
/// unit, `--` before the name and the name shell-quoted, so that no name is
/// read as an option and systemd escapes (`\x2d`) reach systemctl intact.
pub fn apply_commands(units: &[String], trust_command: Option<&str>) -> Vec<String> {
    trust_command
        .map(str::to_owned)
        .into_iter()
        .chain(std::iter::once("systemctl daemon-reload".to_owned()))
        .chain(
            units
                .iter()
                .map(|u| format!("systemctl restart -- {}", shell::quote(u))),
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::settings;
    use std::process::Command;

    #[test]
    fn escapes_what_systemd_unescapes() {
        assert_eq!(escape(r#"a%b"c\d $e"#), r#"a%%b\"c\\d $e"#);
    }

    /// The commands reach a real `systemctl` argv through `sh` as intended:
    /// `--` first, the escape `\x2d` and `@` intact.
    #[test]
    fn commands_pass_unit_names_intact_through_sh() {
        let units = vec![
            r"foo\x2dbar.service".to_owned(),
            "getty@tty1.service".to_owned(),
            "containerd.service".to_owned(),
        ];
        let commands = apply_commands(&units, Some("update-ca-certificates"));
        assert_eq!(commands[0], "update-ca-certificates");
        assert_eq!(commands[1], "systemctl daemon-reload");
        let bin = tempfile::tempdir().unwrap();
        for tool in ["systemctl", "update-ca-certificates"] {
            let path = bin.path().join(tool);
            std::fs::write(
                &path,
                format!("#!/bin/sh\nprintf '{tool}'\nprintf ' <%s>' \"$@\"\necho\n"),
            )
            .unwrap();
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
        }
        let out = Command::new("sh")
            .args(["-c", &commands.join("\n")])
            .env("PATH", format!("{}:/usr/bin:/bin", bin.path().display()))
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "update-ca-certificates <>\nsystemctl <daemon-reload>\nsystemctl <restart> <--> <foo\\x2dbar.service>\nsystemctl <restart> <--> <getty@tty1.service>\nsystemctl <restart> <--> <containerd.service>\n"
        );
    }

    /// systemd itself refuses a drop-in whose line reaches LONG_LINE_MAX and
    /// loads one just below; our check draws the line at the same place.
    #[test]
    fn line_limit_matches_systemd() {
        let mut s = settings();
        s.http_proxy = None;
        s.https_proxy = None;
        let line = |length: usize| {
            format!(
                "[Service]\nEnvironment=\"A={}\"\n",
                "a".repeat(length - "Environment=\"A=\"".len())
            )
        };
        let (pairs, log) = analyze(&line(LONG_LINE_MAX - 1));
        assert_eq!(pairs.len(), 1, "{log}");
        assert!(check_limits(&s, &line(LONG_LINE_MAX - 1))
            .iter()
            .all(|f| !f.is_error()));
        let (pairs, _) = analyze(&line(LONG_LINE_MAX));
        assert!(pairs.is_empty());
        let findings = check_limits(&s, &line(LONG_LINE_MAX));
        assert_eq!(findings[0].summary, "Line too long for systemd");
        let warned = check_limits(&s, &line(LONG_LINE_WARNING + 1));
        assert_eq!(
            (warned[0].summary.as_str(), warned[0].is_error()),
            ("Very long drop-in line", false)
        );
        assert!(check_limits(&s, &line(LONG_LINE_WARNING)).is_empty());
        s.no_proxy = vec!["a".repeat(MAX_ARG_STRLEN)];
        assert!(check_limits(&s, "")
            .iter()
            .any(|f| f.summary == "Environment variable too long"));
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
