//! Inputs shared by several data sources: the cluster's NO_PROXY inputs and
//! the proxy settings (directly or as a `clusterproxy_profile`'s `settings`).

use crate::domain::no_proxy::{self, Cloud, Cluster, Dialect, MergeOptions, Merged, Origins};
use crate::domain::profile::{Profile, ProfileInput};
use crate::domain::render::trust::OsFamily;
use crate::domain::render::{systemd, ProxySettings};
use crate::domain::Finding;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::schema::{Attribute, NoNullElements, OneOf, SizeAtLeast};
use crate::framework::value::{Type, Value};
use crate::provider::convert;

/// List-of-string NO_PROXY inputs, with their descriptions.
const LIST_INPUTS: [(&str, &str); 4] = [
    ("installation", "Installation-wide entries shared by every cluster (registry, corporate domains and ranges)."),
    ("pod_cidrs", "Pod network CIDR blocks of the cluster."),
    ("service_cidrs", "Service network CIDR blocks of the cluster. The first address of each (the `kubernetes` Service ClusterIP) is added for clients without CIDR support."),
    ("node_cidrs", "Node or machine network CIDR blocks of the cluster."),
];

/// The cluster's NO_PROXY input attributes, in merge order.
pub fn cluster_attributes() -> Vec<Attribute> {
    let mut attributes: Vec<Attribute> = LIST_INPUTS
        .iter()
        .map(|(name, description)| {
            Attribute::optional(name, Type::list(Type::String), description)
                .validator(NoNullElements)
        })
        .collect();
    attributes.extend([
        Attribute::with_default(
            "cluster_domain",
            Type::String,
            Value::string("cluster.local"),
            "Cluster DNS domain; it covers every in-cluster service name. Defaults to `cluster.local`.",
        ),
        Attribute::optional("apiserver_host", Type::String, "Host name or IP address of the Kubernetes API server."),
        Attribute::optional("apiserver_ip", Type::String, "IP address of the Kubernetes API server."),
        Attribute::optional(
            "control_plane_endpoint",
            Type::String,
            "Control-plane endpoint as a host, `host:port` or `https://` URL; its host is added.",
        ),
        Attribute::optional("cloud", Type::String, "Cloud whose metadata endpoints must bypass the proxy: `aws` (169.254.169.254, and fd00:ec2::254 for IPv6 clusters), `azure` (169.254.169.254, 168.63.129.16), `gcp` (169.254.169.254, metadata.google.internal) or `vsphere` (none).")
            .validator(OneOf(&Cloud::NAMES)),
        Attribute::optional("extra", Type::list(Type::String), "Further entries, appended last.")
            .validator(NoNullElements),
    ]);
    attributes
}

/// The cluster described by the configuration; `installation` may be replaced
/// by the caller (a profile's list).
pub fn read_cluster(config: &Value) -> Cluster {
    Cluster {
        installation: convert::strings(config, "installation"),
        pod_cidrs: convert::strings(config, "pod_cidrs"),
        service_cidrs: convert::strings(config, "service_cidrs"),
        node_cidrs: convert::strings(config, "node_cidrs"),
        cluster_domain: convert::string(config, "cluster_domain"),
        apiserver_host: convert::string(config, "apiserver_host"),
        apiserver_ip: convert::string(config, "apiserver_ip"),
        control_plane_endpoint: convert::string(config, "control_plane_endpoint"),
        cloud: convert::string(config, "cloud").and_then(|c| Cloud::from_name(&c)),
        extra: convert::strings(config, "extra"),
    }
}

/// Merges the cluster's sources; findings become diagnostics on their
/// attributes (`profile.no_proxy` when the installation list came from a profile).
pub fn merge_cluster(
    cluster: &Cluster,
    options: &MergeOptions,
    installation_from_profile: bool,
    diags: &mut Diagnostics,
) -> Option<Merged> {
    match cluster
        .sources()
        .and_then(|sources| no_proxy::merge(&sources, options))
    {
        Ok(merged) => {
            push_cluster_findings(&merged.warnings, installation_from_profile, diags);
            Some(merged)
        }
        Err(findings) => {
            push_cluster_findings(&findings, installation_from_profile, diags);
            None
        }
    }
}

/// Adds findings about the cluster inputs; `installation` entries taken from
/// the profile point at `profile.no_proxy`.
fn push_cluster_findings(
    findings: &[Finding],
    installation_from_profile: bool,
    diags: &mut Diagnostics,
) {
    let (from_profile, rest): (Vec<Finding>, Vec<Finding>) = findings
        .iter()
        .cloned()
        .partition(|f| installation_from_profile && f.field == "installation");
    convert::push_findings(&rest, &AttributePath::root(), diags);
    let renamed: Vec<Finding> = from_profile
        .into_iter()
        .map(|f| Finding {
            field: "no_proxy".to_owned(),
            ..f
        })
        .collect();
    convert::push_findings(&renamed, &AttributePath::attribute("profile"), diags);
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
    /// Whether the proxy fields came from `profile`.
    pub from_profile: bool,
}

/// Attribute names of the proxy settings, as in [`settings_type`] (minus `no_proxy`).
const PROXY_FIELDS: [&str; 5] = [
    "http_proxy",
    "https_proxy",
    "username",
    "password",
    "trusted_ca",
];

/// The object type of `clusterproxy_profile.settings`, accepted as `profile`.
pub fn settings_type() -> Type {
    Type::object([
        ("http_proxy", Type::String),
        ("https_proxy", Type::String),
        ("username", Type::String),
        ("password", Type::String),
        ("no_proxy", Type::list(Type::String)),
        ("trusted_ca", Type::String),
    ])
}

/// The `settings` value for the given normalised fields (nulls where absent).
pub fn settings_value(
    http_proxy: Option<&str>,
    https_proxy: Option<&str>,
    username: Option<&str>,
    password: Option<&str>,
    no_proxy: &[String],
    trusted_ca: Option<&str>,
) -> Value {
    Value::object([
        ("http_proxy".to_owned(), Value::opt_string(http_proxy)),
        ("https_proxy".to_owned(), Value::opt_string(https_proxy)),
        ("username".to_owned(), Value::opt_string(username)),
        ("password".to_owned(), Value::opt_string(password)),
        ("no_proxy".to_owned(), convert::string_list(no_proxy)),
        ("trusted_ca".to_owned(), Value::opt_string(trusted_ca)),
    ])
}

/// Attributes shared by every renderer data source: proxy settings and the cluster's NO_PROXY inputs.
pub fn proxy_attributes() -> Vec<Attribute> {
    let mut attributes = vec![
        Attribute::optional(
            "profile",
            settings_type(),
            "The `settings` of a `clusterproxy_profile`; replaces `http_proxy`, `https_proxy`, `username`, `password`, `trusted_ca` and `installation`.",
        )
        .sensitive(),
        Attribute::optional("http_proxy", Type::String, "Proxy for `http://` destinations, e.g. `http://proxy.corp.example:3128`."),
        Attribute::optional("https_proxy", Type::String, "Proxy for `https://` destinations; defaults to `http_proxy`."),
        Attribute::optional("username", Type::String, "Proxy user name, percent-encoded into the proxy URLs."),
        Attribute::optional("password", Type::String, "Proxy password, percent-encoded into the proxy URLs.").sensitive(),
        Attribute::optional("trusted_ca", Type::String, "PEM bundle of the CA certificates that sign the proxy's certificates."),
    ];
    attributes.extend(cluster_attributes());
    for attribute in &mut attributes {
        if PROXY_FIELDS.contains(&attribute.name.as_str()) || attribute.name == "installation" {
            attribute.conflicts_with.push("profile");
        }
    }
    attributes.push(clients_attribute());
    attributes
}

/// The `clients` attribute: the clients that read the merged NO_PROXY.
pub fn clients_attribute() -> Attribute {
    Attribute::with_default(
        "clients",
        Type::list(Type::String),
        convert::string_list(&Dialect::DEFAULT_NAMES),
        "Clients that read the result: `go`, `curl`, `python` (urllib), `requests`, `ruby`, `wget`, `java` (`http.nonProxyHosts`), `node` (proxy-from-env), `undici` (Node fetch through undici's EnvHttpProxyAgent), `httpx` (Python httpx). Entries are only dropped as covered, and extra forms only added, so that every listed client reads the list as intended. Defaults to the first eight (every client but `undici` and `httpx`), so that merged lists do not change when clients are added.",
    )
    .validator(OneOf(&Dialect::NAMES))
    .validator(SizeAtLeast(1))
    .validator(NoNullElements)
}

/// The merge options the configuration asks for (`clients`, and `aggregate_cidrs` when present).
pub fn merge_options(config: &Value) -> MergeOptions {
    MergeOptions {
        targets: convert::strings(config, "clients")
            .iter()
            .filter_map(|name| Dialect::from_name(name))
            .collect(),
        aggregate_cidrs: convert::boolean(config, "aggregate_cidrs"),
    }
}

/// Reads and validates the proxy settings and merges the NO_PROXY.
pub fn read_proxy(config: &Value, diags: &mut Diagnostics) -> Option<ProxyInputs> {
    let profile_value = config.get_attr("profile").filter(|p| !p.is_null());
    let from_profile = profile_value.is_some();
    let source = profile_value.unwrap_or(config);
    let input = ProfileInput {
        http_proxy: convert::string(source, "http_proxy"),
        https_proxy: convert::string(source, "https_proxy"),
        username: convert::string(source, "username"),
        password: convert::string(source, "password"),
        no_proxy: Vec::new(),
        trusted_ca: convert::string(source, "trusted_ca"),
    };
    let profile = Profile::new(&input)
        .map_err(|findings| push_proxy_findings(&findings, from_profile, diags))
        .ok();
    let mut cluster = read_cluster(config);
    if from_profile {
        cluster.installation = convert::strings(source, "no_proxy");
    }
    let merged = merge_cluster(&cluster, &merge_options(config), from_profile, diags)?;
    let profile = profile?;
    Some(ProxyInputs {
        settings: ProxySettings {
            http_proxy: profile.http_proxy,
            https_proxy: profile.https_proxy,
            no_proxy: merged.list,
            trusted_ca: profile.trusted_ca,
        },
        cluster,
        origins: merged.origins,
        from_profile,
    })
}

/// Adds findings about proxy settings: fields of the profile live under
/// `profile`; findings about the merged list (`no_proxy`) quote the entry and
/// point at no attribute.
pub fn push_proxy_findings(findings: &[Finding], from_profile: bool, diags: &mut Diagnostics) {
    for finding in findings {
        let mut finding = finding.clone();
        let prefix = if finding.field == "no_proxy" {
            finding.field.clear();
            finding.index = None;
            AttributePath::root()
        } else if from_profile && PROXY_FIELDS.contains(&finding.field.as_str()) {
            AttributePath::attribute("profile")
        } else {
            AttributePath::root()
        };
        convert::push_findings(std::slice::from_ref(&finding), &prefix, diags);
    }
}

/// Adds a renderer's findings: one about an entry of the merged list
/// (`no_proxy[i]`) points at the input that holds the entry (`extra[2]`,
/// `profile.no_proxy[0]`...), or quotes it when it comes from no input
/// (a platform default); the others as [`push_proxy_findings`].
pub fn push_render_findings(findings: &[Finding], proxy: &ProxyInputs, diags: &mut Diagnostics) {
    for finding in findings {
        let traced = (finding.field == "no_proxy")
            .then_some(finding.index)
            .flatten()
            .and_then(|index| proxy.origins.get(index));
        match traced {
            Some((field, index)) => {
                let located = Finding {
                    field: field.to_owned(),
                    index,
                    ..finding.clone()
                };
                push_cluster_findings(&[located], proxy.from_profile, diags);
            }
            None => push_proxy_findings(std::slice::from_ref(finding), proxy.from_profile, diags),
        }
    }
}

/// The `units` attribute: systemd units to proxy (containerd and kubelet by default).
pub fn units_attribute() -> Attribute {
    Attribute::with_default(
        "units",
        Type::list(Type::String),
        convert::string_list(&systemd::DEFAULT_UNITS),
        "systemd units whose environment gets the proxy settings (`docker`, `crio`, `teleport`... or `.service` names, instances such as `getty@tty1` and systemd escapes such as `foo\\x2dbar` included). Names follow systemd's unit name grammar; a name starting with `-`, a template without an instance, and sockets, timers and other unit types are refused; a name one letter away from a well-known unit (`kublet`) gets a warning. Defaults to `containerd` and `kubelet`.",
    )
    .validator(NoNullElements)
}

/// The `os_family` attribute of the node renderers: where the CA bundle goes
/// and which command makes the OS trust it.
pub fn os_family_attribute() -> Attribute {
    Attribute::with_default(
        "os_family",
        Type::String,
        Value::string(OsFamily::NAMES[0]),
        "OS family of the nodes, for the `trusted_ca` bundle: `debian` (Debian and Ubuntu: `/usr/local/share/ca-certificates/clusterproxy-proxy-ca.crt`, `update-ca-certificates`), `rhel` (RHEL-like and Amazon Linux: `/etc/pki/ca-trust/source/anchors/clusterproxy-proxy-ca.crt`, `update-ca-trust extract`), `flatcar` (`/etc/ssl/certs/clusterproxy-proxy-ca.pem`, `update-ca-certificates`) or `photon` (`/etc/ssl/certs/clusterproxy-proxy-ca.pem`, `rehash_ca_certificates.sh`, as TKG does). Defaults to `debian`; setting it without a `trusted_ca` is an error.",
    )
    .validator(OneOf(&OsFamily::NAMES))
}

/// Plan-time check of inputs that only shape the `trusted_ca` outputs:
/// each of `names` set while the configuration certainly has no CA (neither
/// `trusted_ca` nor the profile's, both known) is an error on it, as an input
/// that would be accepted and ignored.
pub fn validate_ca_only_inputs(config: &Value, names: &[&str], diags: &mut Diagnostics) {
    let absent = |v: Option<&Value>| v.is_none_or(Value::is_null);
    let no_ca = match config.get_attr("profile") {
        Some(profile) if profile.is_unknown() => false,
        Some(profile) if !profile.is_null() => absent(profile.get_attr("trusted_ca")),
        _ => absent(config.get_attr("trusted_ca")),
    };
    if !no_ca {
        return;
    }
    for name in names {
        if config.get_attr(name).is_some_and(|v| !v.is_null()) {
            diags.push(
                Diagnostic::error(
                    "Set without trusted_ca",
                    format!("`{name}` only shapes what is rendered for the trusted CA bundle; set `trusted_ca` (or a profile with one) or remove `{name}`."),
                )
                .at(AttributePath::attribute(*name)),
            );
        }
    }
}

/// The configured OS family (the default when unset).
pub fn read_os_family(config: &Value) -> OsFamily {
    convert::string(config, "os_family")
        .and_then(|name| OsFamily::from_name(&name))
        .unwrap_or(OsFamily::Debian)
}

/// The full unit names of `units`; invalid names are errors on their
/// element, names that look like typos of well-known units warnings.
pub fn read_units(config: &Value, diags: &mut Diagnostics) -> Option<Vec<String>> {
    let mut units = Vec::new();
    let mut findings = Vec::new();
    for (index, name) in convert::strings(config, "units").iter().enumerate() {
        match systemd::unit_name("units", index, name.trim()) {
            Ok(unit) => {
                findings.extend(systemd::typo_warning("units", index, &unit));
                units.push(unit);
            }
            Err(f) => findings.push(f),
        }
    }
    if units.is_empty() && findings.is_empty() {
        findings.push(Finding::error(
            "units",
            None,
            "No units",
            "List at least one systemd unit.",
        ));
    }
    convert::push_findings(&findings, &AttributePath::root(), diags);
    (!findings.iter().any(Finding::is_error)).then_some(units)
}

/// The proxy settings and the unit names; errors of both are reported.
pub fn read_proxy_and_units(
    config: &Value,
    diags: &mut Diagnostics,
) -> Option<(ProxyInputs, Vec<String>)> {
    let units = read_units(config, diags);
    let proxy = read_proxy(config, diags)?;
    Some((proxy, units?))
}
