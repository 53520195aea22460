//! systemd unit names as the `units` input takes them: systemd's grammar for
//! service units, a warning for a name one edit away from a well-known unit,
//! and the list resolved to each unit once.

use crate::redact::quoted;
use crate::redact::redact_userinfo;
use crate::spelling::edit_distance;
use crate::warning::Warning;
use crate::{Finding, InputField, Location};

/// The units proxied when none are named.
pub const DEFAULT_UNITS: [&str; 2] = ["containerd", "kubelet"];

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

/// The full unit name: `containerd` becomes `containerd.service`; `.service`
/// names are kept. The name must follow systemd's unit name grammar
/// (`unit_name_is_valid()` in src/basic/unit-name.c: at most 255
/// characters, letters, digits and `:-_.\` before the suffix, `@` once to
/// separate a template from its instance); a template without an instance
/// cannot run, and a name starting with `-` is refused as well, which systemd
/// accepts but `systemctl` would take for an option. Units of other types
/// (sockets, timers...: no process of theirs reads a `[Service]`
/// environment) are refused. Errors are on element `index` of [`InputField::Units`].
pub fn unit_name(index: usize, name: &str) -> Result<String, Finding> {
    let at = Location::element(InputField::Units, index);
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
            format!("{:?} is a {} unit; the proxy environment goes to the service that runs the process (e.g. {:?}).", redact_userinfo(name), &suffix[1..], format!("{}.service", &name[..name.len() - suffix.len()])),
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
            format!(
                "{:?} is not a unit name ({grammar}).",
                redact_userinfo(name)
            ),
        );
    }
    if prefix.starts_with('-') {
        return fail(
            "Invalid systemd unit name",
            format!(
                "{name} starts with `-`, which `systemctl` would read as an option.",
                name = quoted(name)
            ),
        );
    }
    match prefix.find('@') {
        Some(0) => fail(
            "Invalid systemd unit name",
            format!("{name} has no name before `@`.", name = quoted(name)),
        ),
        Some(at) if prefix[at + 1..].contains('@') => fail(
            "Invalid systemd unit name",
            format!(
                "{:?} has more than one `@` ({grammar}).",
                redact_userinfo(name)
            ),
        ),
        Some(at) if at + 1 == prefix.len() => fail(
            "Template unit without an instance",
            format!(
                "{name} is a template; name an instance such as {:?}.",
                format!("{prefix}instance.service"),
                name = quoted(name)
            ),
        ),
        _ => Ok(full),
    }
}

/// A warning on element `index` of [`InputField::Units`] when the full unit name
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
        Warning::UnitNameTypo,
        Location::element(InputField::Units, index),
        "Unit name looks like a typo",
        format!("{base} is one letter away from the well-known unit {known:?}; did you mean {known:?}? The drop-in is rendered for {unit} as written.", base = quoted(base), unit = quoted(unit)),
    ))
}

/// The units a `units` list names, each once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Units {
    /// Full unit names (`containerd.service`), in the order first named.
    pub names: Vec<String>,
    /// For each of `names`, the element of [`InputField::Units`] that first named it.
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
    /// (`Location::element(InputField::Units, i)`) moved to the element that
    /// named it; other findings unchanged.
    pub fn trace(&self, finding: &Finding) -> Finding {
        let mut traced = finding.clone();
        if let Some(Location {
            field: InputField::Units,
            index: Some(index),
        }) = finding.location
        {
            if let Some(element) = self.elements.get(index) {
                traced.location = Some(Location::element(InputField::Units, *element));
            }
        }
        traced
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                Some(Location::element(InputField::Units, 1))
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
            Some(Location::element(InputField::Units, 2))
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
                (summary, Some(Location::element(InputField::Units, 3))),
                "{name}"
            );
        }
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
        assert_eq!(locations, [Some(Location::element(InputField::Units, 5))]);
        let about = |index| Finding::error(Location::element(InputField::Units, index), "x", "");
        assert_eq!(
            units.trace(&about(2)).location,
            Some(Location::element(InputField::Units, 3))
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
            assert_eq!(
                warning.location,
                Some(Location::element(InputField::Units, 1))
            );
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
}
