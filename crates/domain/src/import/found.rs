//! What every importer is ([`Importer`]) and what it reads from an
//! artifact ([`Found`]), before classification; the reasons that mark the
//! cluster facts it names.

#[cfg(doc)]
use super::input::MAX_INPUT_BYTES;
use serde_json::Value;

use crate::no_proxy::Cloud;
use crate::Finding;

/// One kind of artifact and how to read the proxy settings it holds.
pub trait Importer: Sync {
    /// The kind's name in import IDs and in `clusterproxy_artifact_settings`.
    fn kind(&self) -> &'static str;

    /// The platform's short name as its users know it ("AKS", "CAPI (and
    /// EKS Anywhere)"), in the README's list of what a profile imports.
    fn platform(&self) -> &'static str;

    /// The artifacts it reads, in Markdown (schema descriptions and docs).
    fn reads(&self) -> &'static str;

    /// The proxy settings and cluster facts of `text`, which is at most
    /// [`MAX_INPUT_BYTES`] long.
    fn read(&self, text: &str) -> Result<Found, Finding>;

    /// Whether a file the fleet scan found is an artifact of this kind,
    /// told from the shape `read` reads, whether or not its import then
    /// succeeds (an artifact the import refuses is reported, not skipped).
    fn recognises(&self, file: &Scanned) -> Recognised;

    /// The cloud the platform always runs on, whose addresses it adds to
    /// NO_PROXY itself; used when the import ID names no `cloud`.
    fn cloud(&self) -> Option<Cloud> {
        None
    }

    /// The artifact's name for the trusted CA, in findings about it.
    fn trusted_ca_field(&self) -> &'static str {
        "the trusted CA"
    }
}

/// A file the fleet scan asks the importers about.
#[derive(Debug, Clone, Copy)]
pub struct Scanned<'a> {
    /// The file's name, without its directory.
    pub name: &'a str,
    /// Its text.
    pub text: &'a str,
    /// Its YAML or JSON documents; none when it is neither.
    pub documents: &'a [Value],
}

impl Scanned<'_> {
    /// [`Recognised::Document`] when one of the documents has `shape`.
    pub fn any_document(&self, shape: impl Fn(&Value) -> bool) -> Recognised {
        if self.documents.iter().any(shape) {
            Recognised::Document
        } else {
            Recognised::No
        }
    }
}

/// How an importer recognises a file as its artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recognised {
    /// Not its artifact.
    No,
    /// One of the file's YAML or JSON documents has the kind's shape: this
    /// wins over [`Recognised::Lines`], since a kubeadm config or a Secret
    /// may carry a whole drop-in in a string.
    Document,
    /// The file's lines have the kind's shape (a drop-in, an environment
    /// file), and no importer recognises one of its documents.
    Lines,
}

/// Reason of an artifact-declared pod CIDR (also the renderers' `pod_cidrs`).
pub(crate) const POD_CIDR: &str = "pod CIDR of this cluster";
/// Reason of an artifact-declared service CIDR (`service_cidrs`).
pub(crate) const SERVICE_CIDR: &str = "service CIDR of this cluster";
/// Reason of an artifact-declared node CIDR (`node_cidrs`).
pub(crate) const NODE_CIDR: &str = "node CIDR of this cluster";
/// Reason of an artifact-declared control-plane endpoint (`control_plane_endpoint`).
pub(crate) const CONTROL_PLANE: &str = "control-plane endpoint of this cluster";
/// Reason of an artifact-declared apiserver host (`apiserver_host`).
pub(crate) const APISERVER_HOST: &str = "API server host of this cluster";
/// Reason of an artifact-declared cluster DNS domain (`cluster_domain`).
pub(crate) const CLUSTER_DOMAIN: &str = "cluster DNS domain of this cluster";

/// Proxy settings read from an artifact, before classification.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// Name of the cluster, if the artifact tells.
    pub cluster_name: Option<String>,
    /// Where in the artifact `cluster_name` was found, in words for the
    /// import note ("the Cluster document"), when that is not evident.
    pub name_from: Option<String>,
    /// HTTP proxy URL as written (credentials possibly inside).
    pub http_proxy: Option<String>,
    /// HTTPS proxy URL as written.
    pub https_proxy: Option<String>,
    /// Raw NO_PROXY entries.
    pub no_proxy: Vec<String>,
    /// Trusted CA (PEM).
    pub trusted_ca: Option<String>,
    /// Cluster facts the artifact names, with their role: the `POD_CIDR`,
    /// `SERVICE_CIDR`, `NODE_CIDR`, `CONTROL_PLANE`, `APISERVER_HOST` and
    /// `CLUSTER_DOMAIN` reasons become the renderers' cluster inputs; any
    /// other reason marks an entry the platform adds by itself.
    pub cluster_entries: Vec<(String, &'static str)>,
    /// What the profile cannot say of the artifact, for the import's
    /// warnings (e.g. which components an RKE2 file gives the proxy).
    pub warnings: Vec<String>,
}
