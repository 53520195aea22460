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

use super::{shell, HeldFile, ProxySettings, Secrets, PASSWORD_COUNTED};
use crate::warning::Warning;
use crate::Finding;

/// File name of every drop-in.
pub const DROPIN_NAME: &str = "http-proxy.conf";

/// containerd's and the kubelet's units: those a typical node configuration
/// gives the proxy (the node renderers' [`Renderer::sample`](super::Renderer::sample)).
pub fn typical_units() -> Vec<String> {
    vec![
        "containerd.service".to_owned(),
        "kubelet.service".to_owned(),
    ]
}

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

/// The proxy drop-ins among the files a node configuration writes, as
/// the node holds them: each file of `files` (objects with a `path`)
/// that is a unit's [`DROPIN_NAME`], with the text `content` reads from it.
pub fn held_dropins<'a>(
    files: impl IntoIterator<Item = &'a serde_json::Value>,
    content: impl Fn(&serde_json::Value) -> Option<&str>,
) -> Vec<HeldFile> {
    files
        .into_iter()
        .filter(|file| {
            file.get("path")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|path| path.ends_with(&format!(".d/{DROPIN_NAME}")))
        })
        .filter_map(|file| {
            let text = content(file)?.to_owned();
            Some(HeldFile::new(DROPIN_NAME, "systemd", text, false))
        })
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

    #[test]
    fn escapes_what_systemd_unescapes() {
        assert_eq!(escape(r#"a%b"c\d $e"#), r#"a%%b\"c\\d $e"#);
    }

    /// The trust command, daemon-reload, then a restart per unit with `--`
    /// and the name single-quoted (sh passes them to systemctl intact:
    /// tests/oracles/render_tools.rs).
    #[test]
    fn commands_quote_unit_names() {
        let units = vec![
            r"foo\x2dbar.service".to_owned(),
            "getty@tty1.service".to_owned(),
        ];
        assert_eq!(
            apply_commands(&units, Some("update-ca-certificates")),
            [
                "update-ca-certificates",
                "systemctl daemon-reload",
                r"systemctl restart -- 'foo\x2dbar.service'",
                "systemctl restart -- 'getty@tty1.service'",
            ]
        );
        assert_eq!(apply_commands(&[], None), ["systemctl daemon-reload"]);
    }

    /// A line of LONG_LINE_MAX is an error, one below is not; a long line
    /// warns; an over-long variable is an error. (systemd itself draws the
    /// line at the same place: tests/oracles/render_tools.rs.)
    #[test]
    fn line_limits() {
        let mut s = settings();
        s.http_proxy = None;
        s.https_proxy = None;
        let line = |length: usize| {
            format!(
                "[Service]\nEnvironment=\"A={}\"\n",
                "a".repeat(length - "Environment=\"A=\"".len())
            )
        };
        assert!(check_limits(&s, &line(LONG_LINE_MAX - 1))
            .iter()
            .all(|f| !f.is_error()));
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
}
