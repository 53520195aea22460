//! Pure domain core: everything about proxies and NO_PROXY, free of any
//! Terraform or protocol type.

pub mod no_proxy;
pub mod profile;
pub mod prose;

/// How serious a [`Finding`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The input cannot be used; no output is produced.
    Error,
    /// The input is used, but the user should know something about it.
    Warning,
}

/// An input field a [`Finding`] can be about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InputField {
    /// Proxy for `http://` destinations.
    HttpProxy,
    /// Proxy for `https://` destinations.
    HttpsProxy,
    /// Proxy user name.
    Username,
    /// Proxy password.
    Password,
    /// CA bundle of the proxy.
    TrustedCa,
    /// A profile's stored revision.
    Revision,
    /// Installation-wide NO_PROXY entries (a profile's NO_PROXY list).
    Installation,
    /// Pod network CIDR blocks.
    PodCidrs,
    /// Service network CIDR blocks.
    ServiceCidrs,
    /// Node network CIDR blocks.
    NodeCidrs,
    /// Cluster DNS domain.
    ClusterDomain,
    /// API server host.
    ApiserverHost,
    /// API server address.
    ApiserverIp,
    /// Control-plane endpoint.
    ControlPlaneEndpoint,
    /// Cloud whose metadata endpoints bypass the proxy.
    Cloud,
    /// Further NO_PROXY entries of a cluster.
    Extra,
    /// The entries every cluster gets (loopback, in-cluster names, the
    /// `kubernetes` Service address): no one's input.
    Defaults,
    /// An entry a platform adds itself, with the importer's reason.
    Platform(&'static str),
    /// The NO_PROXY list of an imported document.
    Artifact,
    /// The `n`th of several NO_PROXY lists merged as they are.
    List(usize),
    /// The merged NO_PROXY list (element: its position there), which no
    /// input holds as such.
    Merged,
    /// Whether to aggregate CIDR blocks.
    AggregateCidrs,
    /// systemd units that get the proxy settings.
    Units,
    /// One platform's own option (Talos's version), by the name of the
    /// attribute that holds it: each renderer declares its options as
    /// constants of its module ([`render::Renderer::OPTIONS`]).
    Option(&'static str),
}

/// Where in the inputs a [`Finding`] points: a field and, for a list, the
/// element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Location {
    /// The field.
    pub field: InputField,
    /// Element index inside a list input, when the finding is about one element.
    pub index: Option<usize>,
}

impl Location {
    /// Element `index` of the list `field`.
    pub fn element(field: InputField, index: usize) -> Self {
        Self {
            field,
            index: Some(index),
        }
    }
}

impl From<InputField> for Location {
    fn from(field: InputField) -> Self {
        Self { field, index: None }
    }
}

impl From<InputField> for Option<Location> {
    fn from(field: InputField) -> Self {
        Some(field.into())
    }
}

/// A problem or remark about user input, located by the field it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The field (and element) the finding is about; `None` when it is about
    /// the whole of what was read or rendered (an imported document, a value
    /// checked on its own, the rendered output).
    pub location: Option<Location>,
    /// One-line summary.
    pub summary: String,
    /// Longer explanation, quoting the offending value where that is not secret.
    pub detail: String,
    /// The kind of a warning, whose identifier acknowledges it; `None` for an error.
    pub warning: Option<warning::Warning>,
}

impl Finding {
    /// An error about `at` (a [`InputField`], a [`Location`] or `None`).
    pub fn error(
        at: impl Into<Option<Location>>,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Error, at.into(), summary, detail)
    }

    /// A warning of kind `kind` about `at` (a [`InputField`], a [`Location`] or `None`).
    pub fn warning(
        kind: warning::Warning,
        at: impl Into<Option<Location>>,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            warning: Some(kind),
            ..Self::new(Severity::Warning, at.into(), summary, detail)
        }
    }

    fn new(
        severity: Severity,
        location: Option<Location>,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            location,
            summary: summary.into(),
            detail: detail.into(),
            warning: None,
        }
    }

    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

pub mod import;
pub mod proxy_url;
pub mod redact;
pub mod render;
pub mod spelling;
pub mod trusted_ca;
pub mod warning;
