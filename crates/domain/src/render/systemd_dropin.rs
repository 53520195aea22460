//! The `clusterproxy_systemd_dropin` renderer: a drop-in per unit, the
//! `DefaultEnvironment=` drop-in for every service, the CA file and the
//! commands that apply them, in the formats of [`super::systemd`].

use super::systemd::{self, Dropin};
use super::trust::{self, CaFile, OsFamily};
use super::{Held, HeldFile, Input, Rendered, Renderer, Rendering};

/// The units to give the proxy settings, and the OS whose trust store gets
/// the CA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Systemd {
    /// Full unit names (`containerd.service`), at least one.
    pub units: Vec<String>,
    /// The OS family of the nodes: where the CA file goes and which command
    /// updates the trust store.
    pub os: OsFamily,
}

/// The drop-ins and what applies them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemdFiles {
    /// One drop-in per unit.
    pub dropins: Vec<Dropin>,
    /// The `DefaultEnvironment=` drop-in (see [`systemd::default_environment`]).
    pub default_environment: String,
    /// The CA file, with a trusted CA.
    pub ca_files: Vec<CaFile>,
    /// The commands that apply them (see [`systemd::apply_commands`]).
    pub commands: Vec<String>,
}

impl Renderer for Systemd {
    type Output = SystemdFiles;

    const MODULE: &'static str = "systemd_dropin";

    fn sample() -> Self {
        Systemd {
            units: crate::render::systemd::typical_units(),
            os: crate::render::trust::OsFamily::Debian,
        }
    }

    /// The drop-ins, within systemd's limits (see [`systemd::check_dropins`]).
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
                    .map(|unit| systemd::dropin(settings, unit, secrets))
                    .collect(),
                default_environment: systemd::default_environment(settings, secrets),
                ca_files: settings
                    .trusted_ca
                    .iter()
                    .map(|ca| trust::ca_file(ca, self.os))
                    .collect(),
                commands: systemd::apply_commands(&self.units, trust_command),
            },
            systemd::check_dropins(settings, &self.units),
        )
    }

    /// The drop-ins, as the node holds them; the CA is a file of its own.
    fn held(&self, output: &SystemdFiles) -> Held {
        Held::Files(
            output
                .dropins
                .iter()
                .map(|dropin| {
                    HeldFile::new(
                        systemd::DROPIN_NAME,
                        "systemd",
                        dropin.content.clone(),
                        false,
                    )
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::Cluster;
    use crate::render::tests::{golden, settings};
    use crate::render::{ProxySettings, Secrets};

    fn render(units: &[&str], secrets: Secrets) -> SystemdFiles {
        render_with(&settings(), units, secrets)
    }

    fn render_with(settings: &ProxySettings, units: &[&str], secrets: Secrets) -> SystemdFiles {
        let systemd = Systemd {
            units: units.iter().map(|u| (*u).to_owned()).collect(),
            os: OsFamily::Debian,
        };
        systemd
            .render(Input {
                settings,
                cluster: &Cluster::default(),
                secrets,
            })
            .unwrap()
            .output
    }

    /// The drop-ins and the `DefaultEnvironment=` drop-in, with and without
    /// the credentials; a drop-in that holds them is readable by root only.
    #[test]
    fn golden_files() {
        let with = render(&["containerd.service"], Secrets::Include);
        golden("systemd_dropin/containerd.conf", &with.dropins[0].content);
        assert_eq!(with.dropins[0].permissions, "0600");
        golden("systemd_dropin/system.conf", &with.default_environment);
        let redacted = render(&["kubelet.service"], Secrets::Redact);
        golden(
            "systemd_dropin/kubelet-redacted.conf",
            &redacted.dropins[0].content,
        );
        let mut anonymous = settings();
        anonymous.http_proxy = anonymous.http_proxy.map(|u| u.with_credentials(None));
        anonymous.https_proxy = anonymous.https_proxy.map(|u| u.with_credentials(None));
        let without = render_with(&anonymous, &["containerd.service"], Secrets::Include);
        assert_eq!(without.dropins[0].permissions, "0644");
    }
}
