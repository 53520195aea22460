//! Inputs shared by several data sources: the cluster's NO_PROXY inputs and
//! the proxy settings (directly or as a `clusterproxy_profile`'s `settings`).

use std::collections::BTreeSet;

use crate::domain::no_proxy::{self, Cloud, Cluster, Dialect, MergeOptions, Merged, Origins};
use crate::domain::profile::{Profile, ProfileInput};
use crate::domain::render::trust::{self, OsFamily};
use crate::domain::render::{k8s, systemd::unit, Input, ProxySettings, Renderer, Secrets};
use crate::domain::{Finding, InputField, Location};
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::model::Maybe;
use crate::framework::proto::{too_large, MAX_VALUE_SIZE};
use crate::framework::schema::OneOf;
use crate::framework::value::Value;
pub use crate::provider::attributes::{
    Clients, ClusterConfig, ClusterInputs, RendererInputs, Settings, UnitsInput,
};

use crate::provider::convert::{self, SettingsAt};

impl ClusterInputs {
    /// The domain cluster with these inputs and the `installation` entries.
    pub fn cluster(&self, installation: Vec<String>) -> Cluster {
        Cluster {
            installation,
            pod_cidrs: self.pod_cidrs.clone(),
            service_cidrs: self.service_cidrs.clone(),
            node_cidrs: self.node_cidrs.clone(),
            cluster_domain: self.cluster_domain.clone(),
            apiserver_host: self.apiserver_host.clone(),
            apiserver_ip: self.apiserver_ip.clone(),
            control_plane_endpoint: self.control_plane_endpoint.clone(),
            cloud: self.cloud.as_deref().and_then(Cloud::from_name),
            extra: self.extra.clone(),
        }
    }
}

impl ClusterConfig {
    /// The domain cluster (the installation list moved, not copied).
    pub fn cluster(self) -> Cluster {
        self.cluster.cluster(self.installation)
    }
}

/// Merges the cluster's sources; findings become diagnostics on their
/// attributes (the installation list under `profile` with
/// [`SettingsAt::RendererProfile`]).
pub fn merge_cluster(
    cluster: &Cluster,
    options: &MergeOptions,
    settings: SettingsAt,
    diags: &mut Diagnostics,
) -> Option<Merged> {
    match cluster
        .sources()
        .and_then(|sources| no_proxy::merge(&sources, options))
    {
        Ok(merged) => {
            convert::push_findings(&merged.warnings, &AttributePath::root(), settings, diags);
            Some(merged)
        }
        Err(findings) => {
            convert::push_findings(&findings, &AttributePath::root(), settings, diags);
            None
        }
    }
}

impl Settings {
    /// The settings as the domain's profile input.
    pub fn input(&self) -> ProfileInput {
        ProfileInput {
            http_proxy: self.http_proxy.clone(),
            https_proxy: self.https_proxy.clone(),
            username: self.username.clone(),
            password: self.password.clone(),
            no_proxy: self.no_proxy.clone(),
            trusted_ca: self.trusted_ca.known().cloned(),
        }
    }
}

impl Clients {
    /// The merge options for these clients.
    pub fn merge_options(&self, aggregate_cidrs: bool) -> MergeOptions {
        MergeOptions {
            targets: match &self.clients {
                Some(_) => self.named(),
                None => Dialect::defaults().iter().copied().collect(),
            },
            aggregate_cidrs,
        }
    }

    /// The clients named in the configuration: none when `clients` is not set.
    pub fn named(&self) -> BTreeSet<Dialect> {
        self.clients
            .iter()
            .flatten()
            .filter_map(|name| Dialect::from_name(name))
            .collect()
    }
}

/// Proxy settings read from a configuration, ready for the renderers.
#[derive(Debug, Clone)]
pub struct ProxyInputs {
    /// Proxy URLs (credentials applied), merged NO_PROXY and trusted CA.
    pub settings: ProxySettings,
    /// The cluster inputs.
    pub cluster: Cluster,
    /// The input behind each entry of `settings.no_proxy`.
    pub origins: Origins,
    /// Where the proxy settings came from.
    pub settings_at: SettingsAt,
    /// The units of the node renderers (none for the others), to trace
    /// findings about a unit to the `units` element that named it.
    pub units: unit::Units,
}

impl ProxyInputs {
    /// Adds a renderer's findings: one about an entry of the merged list
    /// points at the input that holds the entry (`extra[2]`,
    /// `profile.no_proxy[0]`...), or at no attribute when it comes from no
    /// input (a platform default); one about a unit points at the `units`
    /// element that first named it; see [`convert::path`] for the others.
    pub fn push_findings(&self, findings: &[Finding], diags: &mut Diagnostics) {
        let traced: Vec<Finding> = findings
            .iter()
            .map(|finding| match finding.location {
                Some(Location {
                    field: InputField::Merged,
                    index: Some(index),
                }) => Finding {
                    location: self.origins.get(index).or(finding.location),
                    ..finding.clone()
                },
                _ => self.units.trace(finding),
            })
            .collect();
        convert::push_findings(&traced, &AttributePath::root(), self.settings_at, diags);
    }
}

impl RendererInputs {
    /// Reads and validates the proxy settings and merges the NO_PROXY.
    pub fn resolve(&self, diags: &mut Diagnostics) -> Option<ProxyInputs> {
        let settings_at = if self.profile.is_null() {
            SettingsAt::Renderer
        } else {
            SettingsAt::RendererProfile
        };
        let from_profile = self.profile.known();
        if from_profile.is_some_and(|s| s.password_required && s.password.is_none()) {
            diags.push(
                Diagnostic::error(
                    "Proxy password not given",
                    "The profile's proxy takes a password, which its settings never carry (the profile keeps it in one sensitive attribute, or with `password_wo` not at all), and rendering them would write proxy URLs without credentials. Merge it in: `profile = merge(clusterproxy_profile.x.settings, { password = var.proxy_password })`. With `password_wo`, give it from an ephemeral value to the render function: `provider::clusterproxy::render(\"<platform>\", merge(clusterproxy_profile.x.settings, { password = <ephemeral value> }), {...})`.",
                )
                .at(AttributePath::attribute(Self::profile)),
            );
            return None;
        }
        let (input, installation) = match from_profile {
            Some(settings) => (
                ProfileInput {
                    no_proxy: Vec::new(),
                    ..settings.input()
                },
                settings.no_proxy.clone(),
            ),
            None => (
                ProfileInput {
                    http_proxy: self.http_proxy.clone(),
                    https_proxy: self.https_proxy.clone(),
                    username: self.username.clone(),
                    password: self.password.clone(),
                    no_proxy: Vec::new(),
                    trusted_ca: self.trusted_ca.known().cloned(),
                },
                self.installation.clone(),
            ),
        };
        if input
            .username
            .as_deref()
            .is_some_and(|u| !u.trim().is_empty())
            && input.password.is_none()
        {
            let (at, fix) = match from_profile {
                Some(_) => (Self::profile, "give the password in `profile` (`merge(clusterproxy_profile.x.settings, { password = ... })`, or set `password`/`password_wo` on the profile)"),
                None => (Self::username, "set `password`, or give `profile` with the password merged in"),
            };
            diags.push(
                Diagnostic::error(
                    "User name without password",
                    format!("A user name without a password would render proxy URLs `http://user@host` that authenticate no one. To render the credentials, {fix}. For outputs that need no credentials (Secret references: `cluster_name` of `clusterproxy_capi_kubeadm`, `credentials_secret`), remove `username`, or use `provider::clusterproxy::render_redacted` with the profile's settings."),
                )
                .at(AttributePath::attribute(at)),
            );
            return None;
        }
        let profile = Profile::new(&input)
            .map_err(|findings| {
                convert::push_findings(&findings, &AttributePath::root(), settings_at, diags)
            })
            .ok();
        let mut cluster = self.cluster.cluster(installation);
        let options = self.clients.merge_options(false);
        let merged = merge_cluster(&cluster, &options, settings_at, diags)?;
        // Merged, the installation list is no longer read (the renderers
        // take the merged list; findings are traced through the origins):
        // freed before rendering, a large list is not held twice.
        cluster.installation = Vec::new();
        let profile = profile?;
        Some(ProxyInputs {
            settings: ProxySettings {
                http_proxy: profile.http_proxy,
                https_proxy: profile.https_proxy,
                no_proxy: merged.list,
                trusted_ca: profile.trusted_ca,
                revision: from_profile.and_then(|s| s.revision),
            },
            cluster,
            origins: merged.origins,
            settings_at,
            units: unit::Units::default(),
        })
    }

    /// Plan-time check of inputs that only shape the `trusted_ca` outputs:
    /// each of `inputs` (name, and whether it is certainly set: known and
    /// not null) set while the configuration certainly has no CA (neither
    /// `trusted_ca` nor the profile's, both known) is an error on it (see
    /// `reject_without`).
    pub fn validate_ca_only_inputs(&self, inputs: &[(&str, bool)], diags: &mut Diagnostics) {
        let no_ca = match &self.profile {
            Maybe::Unknown => false,
            Maybe::Known(settings) => settings.trusted_ca.is_null(),
            Maybe::Null => self.trusted_ca.is_null(),
        };
        let needed = Needed {
            name: RendererInputs::trusted_ca,
            absent: no_ca,
            remedy: "set `trusted_ca` (or a profile with one)",
        };
        reject_without(&needed, inputs, diags);
    }

    /// Kubernetes names that only shape what is rendered for the CA bundle:
    /// each must be a DNS-1123 label, and one set without `trusted_ca` is an
    /// error.
    pub fn check_ca_names(&self, names: &[(&str, &Maybe<String>)], diags: &mut Diagnostics) {
        let set: Vec<(&str, bool)> = names
            .iter()
            .map(|(name, value)| (*name, value.known().is_some()))
            .collect();
        self.validate_ca_only_inputs(&set, diags);
        check_names(names, diags);
    }
}

/// An input other inputs only matter with, for [`reject_without`].
#[derive(Debug, Clone, Copy)]
pub struct Needed<'a> {
    /// Its attribute name.
    pub name: &'a str,
    /// Whether the configuration certainly leaves it unset (null, not unknown).
    pub absent: bool,
    /// How to supply it, completing "…; {remedy} or remove `x`.".
    pub remedy: &'a str,
}

/// Plan-time check of inputs that only shape the outputs together with
/// another input: when `needed` is absent, each of `inputs` (attribute
/// name, and whether the configuration certainly sets it: known and not
/// null) is an error "Set without <needed>" on its attribute, so that no
/// input is accepted and ignored. An unknown input counts as unset: a
/// module's variable may still turn out null, and the read checks it again
/// once known. Run it on the configuration before defaults are filled, so
/// that only values the user set count.
pub fn reject_without(needed: &Needed, inputs: &[(&str, bool)], diags: &mut Diagnostics) {
    if !needed.absent {
        return;
    }
    let Needed {
        name: needed,
        remedy,
        ..
    } = needed;
    for (name, _) in inputs.iter().filter(|(_, set)| *set) {
        diags.push(
            Diagnostic::error(
                format!("Set without {needed}"),
                format!(
                    "`{name}` has an effect only with `{needed}`; {remedy} or remove `{name}`."
                ),
            )
            .at(AttributePath::attribute(*name)),
        );
    }
}

/// Runs `renderer` on the configuration's proxy settings and cluster;
/// findings become diagnostics, `None` on an error.
pub fn render<R: Renderer>(
    renderer: &R,
    proxy: &ProxyInputs,
    secrets: Secrets,
    diags: &mut Diagnostics,
) -> Option<R::Output> {
    let input = Input {
        settings: &proxy.settings,
        cluster: &proxy.cluster,
        secrets,
    };
    let rendered = renderer
        .render(input)
        .map_err(|findings| proxy.push_findings(&findings, diags))
        .ok()?;
    proxy.push_findings(&rendered.warnings, diags);
    Some(rendered.output)
}

/// [`render`] with the credentials and redacted: `(secret, redacted)`,
/// findings reported once.
pub fn render_both<R: Renderer>(
    renderer: &R,
    proxy: &ProxyInputs,
    diags: &mut Diagnostics,
) -> Option<(R::Output, R::Output)> {
    let secret = render(renderer, proxy, Secrets::Include, diags)?;
    let redacted = render(renderer, proxy, Secrets::Redact, &mut Diagnostics::new())?;
    Some((secret, redacted))
}

/// `Some(())` when a result of at least `least` bytes, a bound computed
/// from the merged NO_PROXY list, may fit a response; else, before the
/// result is built, an error on the attribute that holds the list
/// (`installation` or `profile.no_proxy`, as `settings_at` says) naming the
/// size and the limit.
pub fn refuse_oversized(
    least: usize,
    settings_at: SettingsAt,
    diags: &mut Diagnostics,
) -> Option<()> {
    if least <= MAX_VALUE_SIZE {
        return Some(());
    }
    let error = too_large(&format!(
        "at least {least} bytes in the wire format, most of it the merged NO_PROXY list"
    ));
    let at = convert::path(
        Some(InputField::Installation.into()),
        &AttributePath::root(),
        settings_at,
    );
    diags.push(match at {
        Some(path) => error.at(path),
        None => error,
    });
    None
}

impl UnitsInput {
    /// The units named, each once (see [`unit::Units::resolve`]);
    /// invalid names are errors on their element, names that look like
    /// typos of well-known units warnings.
    pub fn resolve(&self, diags: &mut Diagnostics) -> Option<unit::Units> {
        let (units, mut findings) = unit::Units::resolve(self.units.iter().map(String::as_str));
        if units.names.is_empty() && findings.is_empty() {
            findings.push(Finding::error(
                InputField::Units,
                "No units",
                "List at least one systemd unit.",
            ));
        }
        let root = AttributePath::root();
        convert::push_findings(&findings, &root, SettingsAt::Renderer, diags);
        (!findings.iter().any(Finding::is_error)).then_some(units)
    }
}

crate::model! {
    /// The OS family of the node renderers: where the CA bundle goes and
    /// which command makes the OS trust it.
    pub struct OsFamilyInput {
        /// Family name; may be unknown at plan time.
        pub os_family: Maybe<String> [with_default(
            Value::string(OsFamily::NAMES[0]),
            "OS family of the nodes, for the `trusted_ca` bundle: `debian` (Debian and Ubuntu: `/usr/local/share/ca-certificates/clusterproxy-proxy-ca.crt`, `update-ca-certificates`), `rhel` (RHEL-like and Amazon Linux: `/etc/pki/ca-trust/source/anchors/clusterproxy-proxy-ca.crt`, `update-ca-trust extract`), `flatcar` (`/etc/ssl/certs/clusterproxy-proxy-ca.pem`, `update-ca-certificates`) or `photon` (`/etc/ssl/certs/clusterproxy-proxy-ca.pem`, `rehash_ca_certificates.sh`, as TKG does). Defaults to `debian`; setting it without a `trusted_ca` is an error.",
        )
        .validator(OneOf(&OsFamily::NAMES))],
    }
}

impl OsFamilyInput {
    /// The configured OS family (the default when unset).
    pub fn family(&self) -> OsFamily {
        self.os_family
            .known()
            .and_then(|name| OsFamily::from_name(name))
            .unwrap_or(OsFamily::Debian)
    }

    /// The input for [`RendererInputs::validate_ca_only_inputs`].
    pub fn ca_only(&self) -> (&'static str, bool) {
        (Self::os_family, self.os_family.known().is_some())
    }
}

/// Checks Kubernetes object names, given as (attribute, value), as DNS-1123
/// labels; each invalid one is an error on its attribute.
pub fn check_names(names: &[(&str, &Maybe<String>)], diags: &mut Diagnostics) {
    for (name, value) in names {
        if let Some(Err(finding)) = value.known().map(|v| k8s::dns1123_label(v, 63)) {
            let path = AttributePath::attribute(*name);
            convert::push_findings(&[finding], &path, SettingsAt::Renderer, diags);
        }
    }
}

/// The proxy settings and the full unit names, each once; errors of both
/// are reported. The renderers' findings about a unit are traced to the
/// element that named it.
pub fn read_proxy_and_units(
    proxy: &RendererInputs,
    units: &UnitsInput,
    diags: &mut Diagnostics,
) -> Option<(ProxyInputs, Vec<String>)> {
    let units = units.resolve(diags);
    let mut proxy = proxy.resolve(diags)?;
    let units = units?;
    let names = units.names.clone();
    proxy.units = units;
    Some((proxy, names))
}

crate::object! {
    /// The CA bundle file a node renderer writes with `trusted_ca`.
    pub struct CaFile {
        /// Absolute path on the node.
        pub path: String,
        /// Owner, `user:group`.
        pub owner: String,
        /// Octal permissions.
        pub permissions: String,
        /// The canonical PEM bundle.
        pub content: String,
    }
}

/// The description of `ca_files` for nodes whose OS trust store the
/// platform's own components read.
pub const OS_TRUST_CA_FILES: &str = "With `trusted_ca`, the bundle file to write for `os_family` (`path`, `owner` `root:root`, `permissions` `0644`, `content`: the canonical PEM); empty without it. Write it, then run the trust store update of `os_family` (in `commands`) before the services restart: containerd and the other Go components verify the proxy's certificates against the OS trust store.";

/// The CA bundle files for `os`, with `trusted_ca` (see [`trust::ca_files`]).
pub fn ca_files(settings: &ProxySettings, os: OsFamily) -> Vec<CaFile> {
    trust::ca_files(settings.trusted_ca.as_ref(), os)
        .into_iter()
        .map(CaFile::from)
        .collect()
}

impl From<trust::CaFile> for CaFile {
    fn from(file: trust::CaFile) -> Self {
        Self {
            path: file.path.to_owned(),
            owner: file.owner.to_owned(),
            permissions: file.permissions.to_owned(),
            content: file.content,
        }
    }
}

crate::model! {
    /// The inputs of the node renderers that write drop-ins and the CA bundle.
    pub struct NodeConfig {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        /// The units.
        pub units: UnitsInput [embed],
        /// The OS family.
        pub os_family: OsFamilyInput [embed],
    }
}

impl NodeConfig {
    /// The proxy settings, the unit names and the OS family; errors of the
    /// proxy settings and of the units are both reported.
    pub fn resolve(&self, diags: &mut Diagnostics) -> Option<(ProxyInputs, Vec<String>, OsFamily)> {
        let (proxy, units) = read_proxy_and_units(&self.proxy, &self.units, diags)?;
        Some((proxy, units, self.os_family.family()))
    }

    /// Renders the renderer `make` builds from the unit names and the OS
    /// family, with the credentials and redacted (see [`render_both`]).
    pub fn render_both<R: Renderer>(
        &self,
        make: impl FnOnce(Vec<String>, OsFamily) -> R,
        diags: &mut Diagnostics,
    ) -> Option<(R::Output, R::Output)> {
        let (proxy, units, os) = self.resolve(diags)?;
        render_both(&make(units, os), &proxy, diags)
    }

    /// Plan-time check: `os_family` without a CA is an error.
    pub fn validate(&self, diags: &mut Diagnostics) {
        self.proxy
            .validate_ca_only_inputs(&[self.os_family.ca_only()], diags);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only inputs set are errors, each on its attribute, and only while
    /// the input they need is certainly absent.
    #[test]
    fn reject_without_blames_each_input_set() {
        let needed = |absent| Needed {
            name: "cluster_name",
            absent,
            remedy: "set `cluster_name`",
        };
        let inputs = [("namespace", true), ("other", false), ("third", true)];
        let mut diags = Diagnostics::new();
        reject_without(&needed(false), &inputs, &mut diags);
        assert!(diags.is_empty());
        reject_without(&needed(true), &inputs, &mut diags);
        let found: Vec<_> = diags
            .iter()
            .map(|d| (d.summary.as_str(), d.path.as_ref().map(ToString::to_string)))
            .collect();
        assert_eq!(
            found,
            [
                ("Set without cluster_name", Some("namespace".to_owned())),
                ("Set without cluster_name", Some("third".to_owned())),
            ]
        );
        assert!(diags
            .iter()
            .all(|d| d.detail.contains("set `cluster_name`")));
    }

    /// A renderer's finding about a merged entry points at the input
    /// element that gave it, under `profile` for the profile's list; one
    /// about a built-in default points at no attribute.
    #[test]
    fn merged_entries_are_traced_to_their_input() {
        let cluster = Cluster {
            installation: vec!["registry.corp.example".into()],
            extra: vec!["a.example".into(), "b.example".into()],
            ..Cluster::default()
        };
        let options = MergeOptions::default();
        let mut diags = Diagnostics::new();
        for (settings_at, installation) in [
            (SettingsAt::Renderer, "installation[0]"),
            (SettingsAt::RendererProfile, "profile.no_proxy[0]"),
        ] {
            let merged = merge_cluster(&cluster, &options, settings_at, &mut diags).unwrap();
            let proxy = ProxyInputs {
                settings: ProxySettings {
                    http_proxy: None,
                    https_proxy: None,
                    no_proxy: merged.list.clone(),
                    trusted_ca: None,
                    revision: None,
                },
                cluster: cluster.clone(),
                origins: merged.origins,
                settings_at,
                units: unit::Units::default(),
            };
            let findings: Vec<Finding> = ["b.example", "registry.corp.example", "localhost"]
                .iter()
                .map(|entry| {
                    let index = merged.list.iter().position(|e| e == entry).unwrap();
                    Finding::error(Location::element(InputField::Merged, index), *entry, "")
                })
                .collect();
            let mut diags = Diagnostics::new();
            proxy.push_findings(&findings, &mut diags);
            let paths: Vec<_> = diags
                .iter()
                .map(|d| d.path.as_ref().map(ToString::to_string))
                .collect();
            assert_eq!(
                paths,
                [
                    Some("extra[1]".to_owned()),
                    Some(installation.to_owned()),
                    None
                ]
            );
        }
        assert!(diags.is_empty());
    }
}
