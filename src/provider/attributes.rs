//! The attributes several schemas share, as typed models: the cluster's
//! NO_PROXY inputs, the proxy settings (directly or as a
//! `clusterproxy_profile`'s `settings`), the clients and the units. Their
//! behaviour lives in `provider::inputs`; the attribute names here
//! are where `provider::convert` points findings.

use crate::domain::no_proxy::typed::Kind;
use crate::domain::no_proxy::{Cloud, Dialect};
use crate::domain::render::systemd::unit;
use crate::framework::model::Maybe;
use crate::framework::schema::{NoNullElements, OneOf, SizeAtLeast};
use crate::framework::value::Value;
use crate::provider::validators::{Each, Is};

/// Description of `installation`, taken by the renderers and `clusterproxy_no_proxy`.
const INSTALLATION: &str =
    "Installation-wide entries shared by every cluster (registry, corporate domains and ranges).";

crate::model! {
    /// The cluster's NO_PROXY inputs other than `installation`, in merge order.
    pub struct ClusterInputs {
        /// Pod network CIDR blocks.
        pub pod_cidrs: Vec<String> [optional("Pod network CIDR blocks of the cluster.").validator(NoNullElements).validator(Each(Kind::Cidr))],
        /// Service network CIDR blocks.
        pub service_cidrs: Vec<String> [optional("Service network CIDR blocks of the cluster. The first address of each (the `kubernetes` Service ClusterIP) is added for clients without CIDR support.").validator(NoNullElements).validator(Each(Kind::Cidr))],
        /// Node network CIDR blocks.
        pub node_cidrs: Vec<String> [optional("Node or machine network CIDR blocks of the cluster.").validator(NoNullElements).validator(Each(Kind::Cidr))],
        /// Cluster DNS domain.
        pub cluster_domain: Option<String> [with_default(
            Value::string("cluster.local"),
            "Cluster DNS domain; it covers every in-cluster service name. Defaults to `cluster.local`.",
        )
        .validator(Is(Kind::Domain))],
        /// API server host.
        pub apiserver_host: Option<String> [optional("Host name or IP address of the Kubernetes API server.").validator(Is(Kind::Host))],
        /// API server address.
        pub apiserver_ip: Option<String> [optional("IP address of the Kubernetes API server.").validator(Is(Kind::Ip))],
        /// Control-plane endpoint.
        pub control_plane_endpoint: Option<String> [optional("Control-plane endpoint as a host, `host:port` or `https://` URL; its host is added.").validator(Is(Kind::Endpoint))],
        /// Cloud name.
        pub cloud: Option<String> [optional("Cloud whose metadata endpoints must bypass the proxy: `aws` (169.254.169.254, and fd00:ec2::254 for IPv6 clusters), `azure` (169.254.169.254, 168.63.129.16), `gcp` (169.254.169.254, metadata.google.internal) or `vsphere` (none).")
            .validator(OneOf(&Cloud::NAMES))],
        /// Further entries.
        pub extra: Vec<String> [optional("Further entries, appended last.").validator(NoNullElements)],
    }
}

crate::model! {
    /// The NO_PROXY inputs of `clusterproxy_no_proxy`: `installation` and the cluster's.
    pub struct ClusterConfig {
        /// Installation-wide entries.
        pub installation: Vec<String> [optional(INSTALLATION).validator(NoNullElements)],
        /// The other inputs.
        pub cluster: ClusterInputs [embed],
    }
}

crate::model! {
    /// `clusterproxy_profile`'s revision, where the domain's findings on a
    /// stored revision point.
    pub struct ProfileRevision {
        /// The revision.
        pub revision: Option<i64> [computed("1 on creation; one more each time the effective settings change: `fingerprint`, or the credentials (compared with the stored ones, never through a digest). Reordering or respelling `no_proxy` entries does not count. Use it in `replace_triggered_by` to roll node pools only when the proxy settings really change.")],
    }
}

crate::model! {
    /// `clusterproxy_no_proxy`'s switch for CIDR aggregation, where the
    /// domain's findings on it point.
    pub struct Aggregation {
        /// Whether to aggregate.
        pub aggregate_cidrs: bool [with_default(Value::bool(false), "Aggregate addresses and CIDR blocks into the fewest blocks. Only applied when every client is `go` or `curl`.")],
    }
}

crate::object! {
    /// `clusterproxy_profile.settings`, taken by the renderers as `profile`.
    pub struct Settings {
        /// HTTP proxy URL without credentials.
        pub http_proxy: Option<String>,
        /// HTTPS proxy URL without credentials.
        pub https_proxy: Option<String>,
        /// Proxy user name.
        pub username: Option<String>,
        /// Proxy password: always null from a profile, merged in by the
        /// caller (see `password_required`).
        pub password: Option<String>,
        /// Installation-wide NO_PROXY entries.
        pub no_proxy: Vec<String>,
        /// Trusted CA bundle (PEM); may be unknown at plan time.
        pub trusted_ca: Maybe<String>,
        /// True when the profile's proxy takes a password (`password` or
        /// `password_wo`), which a profile's settings never carry: the
        /// caller merges it in (`merge(settings, { password = ... })`).
        pub password_required: bool,
        /// The profile's `revision` (null when not from a profile).
        pub revision: Option<i64>,
    }
}

crate::model! {
    /// The clients that read a merged NO_PROXY.
    pub struct Clients {
        /// Client names.
        pub clients: Option<Vec<String>> [optional(
            &format!("Clients that read the result: {}. Entries are only dropped as covered, and extra forms only added, so that every listed client reads the list as intended. When not set, the list is made for the first eight (every client but {}), so that merged lists do not change when clients are added.",
                Dialect::listing(Dialect::all(), ", ", |c| c.traits().doc_name),
                Dialect::listing(Dialect::opt_in(), " and ", |_| None)),
        )
        .validator(OneOf(Dialect::names()))
        .validator(SizeAtLeast(1))
        .validator(NoNullElements)],
    }
}

crate::model! {
    /// The inputs every renderer data source takes: the proxy settings
    /// (directly or as a profile's `settings`), the cluster's NO_PROXY
    /// inputs and the clients.
    pub struct RendererInputs {
        /// A profile's settings.
        pub profile: Maybe<Settings> [optional(
            "The `settings` of a `clusterproxy_profile`; replaces `http_proxy`, `https_proxy`, `username`, `password`, `trusted_ca` and `installation`. A profile's settings never carry its password: when `password_required` is true, merge it in (`merge(clusterproxy_profile.x.settings, { password = var.proxy_password })`), or the read is an error rather than a render without credentials.",
        )
        .sensitive()],
        /// HTTP proxy URL.
        pub http_proxy: Option<String> [optional("Proxy for `http://` destinations, e.g. `http://proxy.corp.example:3128`.").conflicts_with(&[Self::profile])],
        /// HTTPS proxy URL.
        pub https_proxy: Option<String> [optional("Proxy for `https://` destinations; defaults to `http_proxy`.").conflicts_with(&[Self::profile])],
        /// Proxy user name.
        pub username: Option<String> [optional("Proxy user name, percent-encoded into the proxy URLs.").conflicts_with(&[Self::profile])],
        /// Proxy password.
        pub password: Option<String> [optional("Proxy password, percent-encoded into the proxy URLs.").sensitive().conflicts_with(&[Self::profile])],
        /// Trusted CA bundle; may be unknown at plan time.
        pub trusted_ca: Maybe<String> [optional("PEM bundle of the CA certificates that sign the proxy's certificates. Rendered with each certificate once, in one canonical order (by DER encoding), so reordering or repeating certificates changes no rendered byte.").conflicts_with(&[Self::profile])],
        /// Installation-wide entries.
        pub installation: Vec<String> [optional(INSTALLATION).validator(NoNullElements).conflicts_with(&[Self::profile])],
        /// The cluster's other NO_PROXY inputs.
        pub cluster: ClusterInputs [embed],
        /// The clients.
        pub clients: Clients [embed],
    }
}

crate::model! {
    /// The systemd units of the node renderers.
    pub struct UnitsInput {
        /// Unit names as configured.
        pub units: Vec<String> [with_default(
            string_list(&unit::DEFAULT_UNITS),
            "systemd units whose environment gets the proxy settings (`docker`, `crio`, `teleport`... or `.service` names, instances such as `getty@tty1` and systemd escapes such as `foo\\x2dbar` included). Names follow systemd's unit name grammar; a name starting with `-`, a template without an instance, and sockets, timers and other unit types are refused; a name one letter away from a well-known unit (`kublet`) gets a warning. Names of one unit (`kubelet`, `kubelet.service`) are one unit, rendered once where first named. Defaults to `containerd` and `kubelet`.",
        )
        .validator(NoNullElements)],
    }
}

/// The parameter of `merge_no_proxy` with the lists to merge.
pub const LISTS: &str = "lists";

/// A list of strings as a value.
pub fn string_list<S: AsRef<str>>(items: &[S]) -> Value {
    Value::list(items.iter().map(|s| Value::string(s.as_ref())).collect())
}
