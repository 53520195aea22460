//! The `clusterproxy_systemd_dropin` renderer: a drop-in per unit, the
//! `DefaultEnvironment=` drop-in for every service, the CA file and the
//! commands that apply them, in the formats of [`super::systemd`].

use super::systemd::{self, Dropin};
use super::trust::{self, CaFile, OsFamily};
use super::{Input, Rendered, Renderer, Rendering};

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
}
