//! systemd drop-ins that set the proxy environment of a service, and the
//! `DefaultEnvironment=` variant for every service (system.conf.d).
//!
//! Values are written `Environment="NAME=value"` with `\` and `"` escaped by a
//! backslash and `%` doubled (systemd expands `%` specifiers; a percent-encoded
//! password would otherwise fail to load).

use super::trust::{self, CaFile, OsFamily};
use super::{shell, Input, ProxySettings, Rendered, Renderer, Rendering, Secrets};
use crate::proxy_url::REDACTED_PASSWORD;
use crate::{Field, Finding, Location};

/// The units proxied when none are named.
pub const DEFAULT_UNITS: [&str; 2] = ["containerd", "kubelet"];

/// File name of every drop-in.
pub const DROPIN_NAME: &str = "http-proxy.conf";

/// Path of the system-wide `DefaultEnvironment=` drop-in.
pub const DEFAULT_ENVIRONMENT_PATH: &str = "/etc/systemd/system.conf.d/http-proxy.conf";

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

/// Well-known units: a name one edit away from one of these is likely a typo.
pub const WELL_KNOWN_UNITS: [&str; 10] = [
    "containerd",
    "kubelet",
    "docker",
    "crio",
    "cri-docker",
    "podman",
    "k3s",
    "k3s-agent",
    "rke2-server",
    "rke2-agent",
];

/// systemd: the units to give the proxy settings, and the OS whose trust
/// store gets the CA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Systemd {
    /// Full unit names (`containerd.service`), at least one.
    pub units: Vec<String>,
    /// The OS family of the nodes.
    pub os: OsFamily,
}

/// The drop-ins and what applies them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemdFiles {
    /// One drop-in per unit.
    pub dropins: Vec<Dropin>,
    /// The `DefaultEnvironment=` drop-in (see [`default_environment`]).
    pub default_environment: String,
    /// The CA file, with a trusted CA.
    pub ca_files: Vec<CaFile>,
    /// The commands that apply them (see [`apply_commands`]).
    pub commands: Vec<String>,
}

impl Renderer for Systemd {
    type Output = SystemdFiles;

    /// The drop-ins, within systemd's limits (see [`check_dropins`]).
    fn render(&self, input: Input) -> Rendering<SystemdFiles> {
        let Input {
            settings, secrets, ..
        } = input;
        let trust_command = settings
            .trusted_ca
            .as_ref()
            .map(|_| self.os.trust_command());
        Rendered::checked(
            SystemdFiles {
                dropins: self
                    .units
                    .iter()
                    .map(|unit| dropin(settings, unit, secrets))
                    .collect(),
                default_environment: default_environment(settings, secrets),
                ca_files: settings
                    .trusted_ca
                    .iter()
                    .map(|ca| trust::ca_file(ca, self.os))
                    .collect(),
                commands: apply_commands(&self.units, trust_command),
            },
            check_dropins(settings, &self.units),
        )
    }
}

/// [`check_limits`] on the redacted drop-in of the first of `units` (every
/// drop-in has the same lines; no finding may depend on the password): what
/// every renderer that writes drop-ins checks.
pub fn check_dropins(settings: &ProxySettings, units: &[String]) -> Vec<Finding> {
    units
        .first()
        .map(|unit| check_limits(settings, &dropin(settings, unit, Secrets::Redact).content))
        .unwrap_or_default()
}

/// One drop-in file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropin {
    /// The unit it extends, with its suffix (`containerd.service`).
    pub unit: String,
    /// Absolute path of the file.
    pub path: String,
    /// Owner, `user:group`.
    pub owner: &'static str,
    /// Octal permissions: 0600 when it holds credentials, 0644 otherwise.
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

/// The full unit name: `containerd` becomes `containerd.service`; `.service`
/// names are kept. The name must follow systemd's unit name grammar
/// (`unit_name_is_valid()` in src/basic/unit-name.c: at most 255
/// characters, letters, digits and `:-_.\` before the suffix, `@` once to
/// separate a template from its instance); a template without an instance
/// cannot run, and a name starting with `-` is refused as well, which systemd
/// accepts but `systemctl` would take for an option. Units of other types
/// (sockets, timers...: no process of theirs reads a `[Service]`
/// environment) are refused. Errors are on element `index` of [`Field::Units`].
pub fn unit_name(index: usize, name: &str) -> Result<String, Finding> {
    let at = Location::element(Field::Units, index);
    let fail = |summary: &str, detail: String| Err(Finding::error(at, summary, detail));
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
    let prefix = name.strip_suffix(".service").unwrap_or(name);
    let full = format!("{prefix}.service");
    let grammar =
        "letters, digits and `:-_.\\` with at most one `@`, at most 255 characters with `.service`";
    if prefix.is_empty()
        || full.len() > 255
        || !prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '-' | '_' | '.' | '@' | '\\'))
    {
        return fail(
            "Invalid systemd unit name",
            format!("{name:?} is not a unit name ({grammar})."),
        );
    }
    if prefix.starts_with('-') {
        return fail(
            "Invalid systemd unit name",
            format!("{name:?} starts with `-`, which `systemctl` would read as an option."),
        );
    }
    match prefix.find('@') {
        Some(0) => fail(
            "Invalid systemd unit name",
            format!("{name:?} has no name before `@`."),
        ),
        Some(at) if prefix[at + 1..].contains('@') => fail(
            "Invalid systemd unit name",
            format!("{name:?} has more than one `@` ({grammar})."),
        ),
        Some(at) if at + 1 == prefix.len() => fail(
            "Template unit without an instance",
            format!(
                "{name:?} is a template; name an instance such as {:?}.",
                format!("{prefix}instance.service")
            ),
        ),
        _ => Ok(full),
    }
}

/// Optimal string alignment distance (edits: insert, delete, substitute,
/// swap two neighbours), for short names.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// A warning on element `index` of [`Field::Units`] when the full unit name
/// `unit` is one edit away from a well-known unit (`kublet`, `containred`)
/// without being one.
pub fn typo_warning(index: usize, unit: &str) -> Option<Finding> {
    let base = unit.strip_suffix(".service").unwrap_or(unit);
    if WELL_KNOWN_UNITS.contains(&base) {
        return None;
    }
    let known = WELL_KNOWN_UNITS
        .iter()
        .find(|known| edit_distance(base, known) == 1)?;
    Some(Finding::warning(
        Location::element(Field::Units, index),
        "Unit name looks like a typo",
        format!("{base:?} is one letter away from the well-known unit {known:?}; did you mean {known:?}? The drop-in is rendered for {unit:?} as written."),
    ))
}

/// The units a `units` list names, each once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Units {
    /// Full unit names (`containerd.service`), in the order first named.
    pub names: Vec<String>,
    /// For each of `names`, the element of [`Field::Units`] that first named it.
    pub elements: Vec<usize>,
}

impl Units {
    /// Resolves each of `names` with [`unit_name`] (blanks around a name
    /// ignored) and [`typo_warning`]. Names of one unit (`kubelet`,
    /// `kubelet.service`) are one unit, kept where first named, without a
    /// finding, as duplicate NO_PROXY entries are; the order is otherwise
    /// the configured one, so that the rendered files never change for a
    /// list without duplicates.
    pub fn resolve<'a>(names: impl IntoIterator<Item = &'a str>) -> (Self, Vec<Finding>) {
        let mut units = Self::default();
        let mut findings = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (index, name) in names.into_iter().enumerate() {
            match unit_name(index, name.trim()) {
                Ok(unit) if seen.contains(&unit) => {}
                Ok(unit) => {
                    findings.extend(typo_warning(index, &unit));
                    seen.insert(unit.clone());
                    units.names.push(unit);
                    units.elements.push(index);
                }
                Err(f) => findings.push(f),
            }
        }
        (units, findings)
    }

    /// `finding` about the unit at position `i` of `names`
    /// (`Location::element(Field::Units, i)`) moved to the element that
    /// named it; other findings unchanged.
    pub fn trace(&self, finding: &Finding) -> Finding {
        let mut traced = finding.clone();
        if let Some(Location {
            field: Field::Units,
            index: Some(index),
        }) = finding.location
        {
            if let Some(element) = self.elements.get(index) {
                traced.location = Some(Location::element(Field::Units, *element));
            }
        }
        traced
    }
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
    for (name, value) in settings.variables(Secrets::Redact) {
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
            format!("A line of the drop-in is {longest} bytes (the proxy password counted as `{REDACTED_PASSWORD}`); systemd refuses unit files with lines of {LONG_LINE_MAX} bytes or more (LONG_LINE_MAX), and the unit would not load. Shorten the NO_PROXY list."),
        ));
    } else if longest > LONG_LINE_WARNING {
        findings.push(Finding::warning(
            None,
            "Very long drop-in line",
            format!("A line of the drop-in is {longest} bytes (the proxy password counted as `{REDACTED_PASSWORD}`). systemd refuses lines of {LONG_LINE_MAX} bytes and Linux environment strings of {MAX_ARG_STRLEN} bytes; consider aggregating CIDRs or using domain suffixes."),
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
    use crate::render::tests::{golden, settings};
    use std::process::Command;

    #[test]
    fn escapes_what_systemd_unescapes() {
        assert_eq!(escape(r#"a%b"c\d $e"#), r#"a%%b\"c\\d $e"#);
    }

    #[test]
    fn unit_names() {
        assert_eq!(unit_name(0, "containerd").unwrap(), "containerd.service");
        assert_eq!(
            unit_name(0, "snap.lxd.daemon").unwrap(),
            "snap.lxd.daemon.service"
        );
        assert_eq!(
            unit_name(0, "teleport.service").unwrap(),
            "teleport.service"
        );
        let socket = unit_name(1, "docker.socket").unwrap_err();
        assert_eq!(
            (socket.summary.as_str(), socket.location),
            (
                "Not a service unit",
                Some(Location::element(Field::Units, 1))
            )
        );
        assert!(
            socket.detail.contains("\"docker.service\""),
            "{}",
            socket.detail
        );
        assert!(unit_name(0, &"a".repeat(247)).is_ok());
        assert!(unit_name(0, &"a".repeat(248)).is_err());
        assert_eq!(
            unit_name(2, "bad unit").unwrap_err().location,
            Some(Location::element(Field::Units, 2))
        );
        assert!(unit_name(0, "").is_err());
        assert_eq!(unit_name(0, r"foo\x2dbar").unwrap(), r"foo\x2dbar.service");
        assert_eq!(unit_name(0, "getty@tty1").unwrap(), "getty@tty1.service");
    }

    /// A leading `-` would be a `systemctl` option (`-H host` runs the
    /// command on another machine); templates, a bare `@` or two `@` are
    /// outside systemd's grammar.
    #[test]
    fn unit_names_that_systemctl_would_misread_are_refused() {
        for (name, summary) in [
            (
                "-Hroot@attacker.example:x.service",
                "Invalid systemd unit name",
            ),
            ("--help", "Invalid systemd unit name"),
            ("-", "Invalid systemd unit name"),
            ("getty@", "Template unit without an instance"),
            ("getty@.service", "Template unit without an instance"),
            ("@x", "Invalid systemd unit name"),
            ("a@b@c", "Invalid systemd unit name"),
            (".service", "Invalid systemd unit name"),
            ("a/b", "Invalid systemd unit name"),
            ("a'b", "Invalid systemd unit name"),
        ] {
            let error = unit_name(3, name).expect_err(name);
            assert_eq!(
                (error.summary.as_str(), error.location),
                (summary, Some(Location::element(Field::Units, 3))),
                "{name}"
            );
        }
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

    /// Names of one unit are one unit, kept where first named, without a
    /// finding; the order is otherwise the configured one (not sorted), and
    /// findings about a unit are traced to the element that named it.
    #[test]
    fn units_are_resolved_once_each_in_the_configured_order() {
        let names = [
            "kubelet",
            "containerd",
            " kubelet.service",
            "docker",
            "containerd.service",
            "kublet",
            "kublet.service",
        ];
        let (units, findings) = Units::resolve(names);
        assert_eq!(
            units.names,
            [
                "kubelet.service",
                "containerd.service",
                "docker.service",
                "kublet.service"
            ]
        );
        assert_eq!(units.elements, [0, 1, 3, 5]);
        let locations: Vec<_> = findings.iter().map(|f| f.location).collect();
        assert_eq!(locations, [Some(Location::element(Field::Units, 5))]);
        let about = |index| Finding::error(Location::element(Field::Units, index), "x", "");
        assert_eq!(
            units.trace(&about(2)).location,
            Some(Location::element(Field::Units, 3))
        );
        assert_eq!(units.trace(&about(9)), about(9), "no such unit");
        let (units, findings) = Units::resolve(["kubelet", "bad unit", "kubelet"]);
        assert_eq!(units.names, ["kubelet.service"]);
        assert_eq!(findings.len(), 1);
        assert!(findings[0].is_error());
    }

    #[test]
    fn names_one_edit_from_a_well_known_unit_get_a_warning() {
        for (name, known) in [
            ("kublet.service", "kubelet"),
            ("containred.service", "containerd"),
            ("dockerr.service", "docker"),
            ("cri0.service", "crio"),
        ] {
            let warning = typo_warning(1, name).expect(name);
            assert!(!warning.is_error());
            assert_eq!(warning.location, Some(Location::element(Field::Units, 1)));
            assert!(
                warning.detail.contains(&format!("did you mean {known:?}")),
                "{}",
                warning.detail
            );
        }
        for name in [
            "kubelet.service",
            "k3s-agent.service",
            "teleport.service",
            "crio.service",
            "kubeletx2.service",
        ] {
            assert_eq!(typo_warning(0, name), None, "{name}");
        }
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

    #[test]
    fn golden_files() {
        let s = settings();
        golden(
            "systemd/containerd.conf",
            &dropin(&s, "containerd.service", Secrets::Include).content,
        );
        assert_eq!(
            dropin(&s, "containerd.service", Secrets::Include).permissions,
            "0600"
        );
        let mut anonymous = s.clone();
        anonymous.http_proxy = anonymous.http_proxy.map(|u| u.with_credentials(None));
        anonymous.https_proxy = anonymous.https_proxy.map(|u| u.with_credentials(None));
        assert_eq!(
            dropin(&anonymous, "containerd.service", Secrets::Include).permissions,
            "0644"
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
