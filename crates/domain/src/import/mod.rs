//! Importers: read the proxy settings an existing cluster already has from
//! its artifacts, and split its NO_PROXY into installation-wide entries and
//! cluster-specific ones (left out, each with the reason).
//!
//! # One shape
//! Every kind of artifact is an [`Importer`]: a unit struct whose `read`
//! turns the artifact's text into a [`Found`] (the proxies as written, the
//! raw NO_PROXY entries, the CA as PEM, and the cluster facts the artifact
//! names, each with its reason). [`importers()`] lists them once; the kind
//! names of import IDs ([`id`]), of `clusterproxy_artifact_settings.kind`
//! (description and validator) and of the import docs come from it.
//! [`parse_with`] picks the importer by kind and hands its `Found` to the
//! classification (`classify.rs`), the same for every kind.
//!
//! # Adding an importer
//! 1. `crates/domain/src/import/<kind>.rs`: a unit struct and `impl Importer`
//!    (`kind`, `reads` in Markdown for the docs, `read`; `cloud` and
//!    `trusted_ca_field` when the platform needs them), with a comment
//!    citing the upstream source of every field name and format. Read YAML
//!    or JSON through `documents()` (it bounds size and nesting), report bad
//!    input with `error()` and never quote a proxy URL (it may hold
//!    credentials). Declare the cluster facts the artifact names with the
//!    reason constants (`POD_CIDR`...). Unit tests in the same file: what
//!    our renderer for the platform writes (if any) reads back, and bad
//!    input is a finding. Here, in this file: `pub mod <kind>;` and the
//!    struct in `IMPORTERS` (what [`importers()`] returns).
//! 2. `tests/fixtures/import/<kind>/`: artifacts in the shapes the platform
//!    writes, each citing its upstream source in a header comment, and their
//!    expected import in `CORPUS` of `tests/oracles/import_fixtures.rs`.
//! 3. The E2E case: a fixture in `CASES` of `tests/e2e/import.rs`, with
//!    the configuration that matches it and lines of the import note
//!    (Terraform 1.11 and 1.0.3 import it and plan no change).
//! 4. `examples/resources/clusterproxy_profile/import.sh`, whose kind list is
//!    generated from [`importers()`]: `UPDATE_DOCS=1 cargo nextest run --test
//!    import_fixtures -E 'test(guide)'`, then `UPDATE_DOCS=1 cargo test --test
//!    docs`, which regenerates `docs/resources/profile.md` and
//!    `docs/data-sources/artifact_settings.md`.
//!
//! Nothing else: the `kind` attribute of `clusterproxy_artifact_settings`
//! (description and validator), the import ID grammar and the messages that
//! list the kinds come from [`importers()`]. The test
//! `the_importer_guide_is_followed` in `tests/oracles/import_fixtures.rs` checks
//! steps 1, 2 and 4 for every importer.

pub mod aks;
pub mod capi;
mod classify;
pub mod drift;
pub mod giantswarm;
pub mod id;
pub mod openshift;
pub mod rke2;
pub mod systemd;
pub mod tkg;

use std::sync::LazyLock;

use super::no_proxy::{Cloud, Cluster};
use super::profile::ProfileInput;
use super::proxy_url::ProxyUrl;
use super::{Field, Finding};

/// One kind of artifact and how to read the proxy settings it holds.
pub trait Importer: Sync {
    /// The kind's name in import IDs and in `clusterproxy_artifact_settings`.
    fn kind(&self) -> &'static str;

    /// The artifacts it reads, in Markdown (schema descriptions and docs).
    fn reads(&self) -> &'static str;

    /// The proxy settings and cluster facts of `text`, which is at most
    /// [`MAX_INPUT_BYTES`] long.
    fn read(&self, text: &str) -> Result<Found, Finding>;

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

static IMPORTERS: &[&dyn Importer] = &[
    &aks::Aks,
    &tkg::Tkg,
    &capi::Capi,
    &systemd::Systemd,
    &giantswarm::GiantSwarm,
    &openshift::OpenShift,
    &rke2::Rke2,
];

static KINDS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| IMPORTERS.iter().map(|i| i.kind()).collect());

/// Every importer, in the order the kinds are listed to users.
pub fn importers() -> &'static [&'static dyn Importer] {
    IMPORTERS
}

/// The importer of `kind`.
pub fn importer(kind: &str) -> Option<&'static dyn Importer> {
    IMPORTERS.iter().copied().find(|i| i.kind() == kind)
}

/// The kind names, in [`importers()`] order.
pub fn kinds() -> &'static [&'static str] {
    &KINDS
}

/// Every kind with what it reads, as Markdown: "`aks` (...), ... or `rke2` (...)".
pub fn described_kinds() -> String {
    let described: Vec<String> = IMPORTERS
        .iter()
        .map(|i| format!("`{}` ({})", i.kind(), i.reads()))
        .collect();
    match described.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Largest artifact read or parsed: 4 MiB. Larger inputs are refused before
/// any parsing, so every import takes bounded time.
pub const MAX_INPUT_BYTES: usize = 4 << 20;

/// Deepest `{`/`[` nesting accepted in a YAML or JSON artifact (real ones
/// nest fewer than 20 levels).
pub const MAX_NESTING: usize = 64;

/// Widest indentation accepted in a YAML artifact, in columns; it bounds the
/// depth of block nesting.
pub const MAX_INDENT: usize = 512;

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
}

/// An entry left out of the installation-wide list, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// The normalised entry.
    pub entry: String,
    /// Why it is cluster-specific (or redundant).
    pub reason: String,
}

/// The settings of a profile, read from an artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// Profile name: the cluster's name when the artifact has one, else the kind.
    pub name: String,
    /// Where in the artifact the name was found, in words, if the importer says.
    pub name_from: Option<String>,
    /// HTTP proxy without credentials, spelt as the artifact writes it
    /// (`http://` prefixed when it has no scheme), so that a configuration
    /// that says what the artifact says plans no change.
    pub http_proxy: Option<String>,
    /// HTTPS proxy without credentials, spelt as the artifact writes it.
    pub https_proxy: Option<String>,
    /// Proxy user name.
    pub username: Option<String>,
    /// Proxy password.
    pub password: Option<String>,
    /// Installation-wide entries, normalised, in order.
    pub no_proxy: Vec<String>,
    /// Entries left out of `no_proxy`, each with the reason.
    pub dropped: Vec<Dropped>,
    /// Trusted CA (PEM).
    pub trusted_ca: Option<String>,
    /// The cluster facts used to classify (import ID and artifact): what to
    /// give the renderers so that they add the dropped entries back.
    pub facts: Cluster,
    /// Entries the platform adds to NO_PROXY by itself (e.g. TKG's appended
    /// list, AKS's injected ones).
    pub platform: Vec<String>,
    /// The artifact sets HTTP_PROXY but no HTTPS_PROXY: it sends HTTPS direct.
    pub https_direct: bool,
    /// What was read differently from how it was written (e.g. a proxy URL
    /// without a scheme), and what could not be classified.
    pub warnings: Vec<String>,
}

impl Imported {
    /// The profile settings read from the artifact, as a configuration
    /// writes them: an HTTPS proxy equal to the HTTP proxy is left unset, as
    /// a profile's `https_proxy` defaults to `http_proxy`, so that a profile
    /// imported from any kind of artifact plans no change for a
    /// configuration that leaves `https_proxy` unset. The fields of `self`
    /// keep what the artifact holds.
    pub fn input(&self) -> ProfileInput {
        ProfileInput {
            http_proxy: self.http_proxy.clone(),
            https_proxy: self
                .https_proxy
                .clone()
                .filter(|https| !same_proxy(self.http_proxy.as_deref(), https)),
            username: self.username.clone(),
            password: self.password.clone(),
            no_proxy: self.no_proxy.clone(),
            trusted_ca: self.trusted_ca.clone(),
        }
    }

    /// What was kept, what was left out and why, what changed meaning and
    /// which cluster inputs the renderers need: readable in plan output.
    pub fn note(&self) -> String {
        let mut out = Vec::new();
        if self.no_proxy.is_empty() {
            out.push("Kept as installation-wide NO_PROXY: nothing.".to_owned());
        } else {
            out.push(format!(
                "Kept as installation-wide NO_PROXY ({}): {}.",
                self.no_proxy.len(),
                self.no_proxy.join(", ")
            ));
        }
        if self.dropped.is_empty() {
            out.push("Every NO_PROXY entry was kept as installation-wide.".to_owned());
        } else {
            out.push("These NO_PROXY entries were left out of the profile because they are cluster-specific or redundant; the renderer data sources add them from the cluster inputs:".to_owned());
            out.extend(
                self.dropped
                    .iter()
                    .map(|d| format!("  - {}: {}", d.entry, d.reason)),
            );
        }
        let inputs = fact_lines(&self.facts);
        if !inputs.is_empty() {
            out.push("Give the renderers these cluster inputs:".to_owned());
            out.extend(inputs.into_iter().map(|l| format!("  - {l}")));
        }
        if let Some(from) = &self.name_from {
            out.push(format!("Named `{}` after {from}.", self.name));
        }
        if !self.warnings.is_empty() {
            out.push("Read differently from how the artifact writes it:".to_owned());
            out.extend(self.warnings.iter().map(|w| format!("  - {w}")));
        }
        out.join("\n")
    }

    /// Checks that a profile keeps the artifact's meaning: a profile's
    /// `https_proxy` defaults to `http_proxy`, so an artifact that sends
    /// HTTPS direct is refused unless `https_through_proxy` accepts the
    /// change (which is then listed in [`Imported::warnings`]).
    pub fn keep_meaning(&mut self, https_through_proxy: bool) -> Result<(), Finding> {
        if !self.https_direct {
            return Ok(());
        }
        if !https_through_proxy {
            return Err(error(
                "The artifact sets HTTP_PROXY but no HTTPS_PROXY, so its clients send HTTPS direct. A profile's `https_proxy` defaults to `http_proxy`, which would send HTTPS through the proxy. Either add HTTPS_PROXY to the artifact, or accept the change with the import option `https_through_proxy=true`, e.g. `systemd(https_through_proxy=true):file:PATH`.",
            ));
        }
        self.warnings.push(format!(
            "HTTPS: the artifact sends it direct; the profile sends it through {} (accepted with `https_through_proxy=true`).",
            self.http_proxy.as_deref().unwrap_or_default()
        ));
        Ok(())
    }
}

/// Whether `http` and `https` name the same proxy once normalised.
fn same_proxy(http: Option<&str>, https: &str) -> bool {
    let plain = |url: &str| {
        ProxyUrl::parse(Field::HttpProxy, url)
            .ok()
            .map(|u| u.to_plain_string())
    };
    http.is_some_and(|http| plain(http).is_some() && plain(http) == plain(https))
}

/// The facts as renderer inputs (`pod_cidrs = [...]`), for the note.
fn fact_lines(facts: &Cluster) -> Vec<String> {
    let mut out = Vec::new();
    for (name, list) in [
        ("pod_cidrs", &facts.pod_cidrs),
        ("service_cidrs", &facts.service_cidrs),
        ("node_cidrs", &facts.node_cidrs),
    ] {
        if !list.is_empty() {
            out.push(format!("{name} = [{}]", quoted(list)));
        }
    }
    for (name, value) in [
        ("cluster_domain", &facts.cluster_domain),
        ("apiserver_host", &facts.apiserver_host),
        ("apiserver_ip", &facts.apiserver_ip),
        ("control_plane_endpoint", &facts.control_plane_endpoint),
    ] {
        if let Some(value) = value {
            out.push(format!("{name} = {value:?}"));
        }
    }
    if let Some(cloud) = facts.cloud {
        let name = Cloud::NAMES
            .into_iter()
            .find(|n| Cloud::from_name(n) == Some(cloud))
            .unwrap_or_default();
        out.push(format!("cloud = {name:?}"));
    }
    out
}

fn quoted(list: &[String]) -> String {
    list.iter()
        .map(|e| format!("{e:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Parses `text` as an artifact of `kind`, with no cluster facts beyond the
/// artifact's own.
pub fn parse(kind: &str, text: &str) -> Result<Imported, Vec<Finding>> {
    parse_with(kind, text, &Cluster::default())
}

/// Parses `text` as an artifact of `kind`; `facts` are the cluster inputs
/// the renderers get (pod/service/node CIDRs, cluster domain, apiserver,
/// control-plane endpoint, cloud). An artifact entry is left out only when
/// what the renderers add from these facts covers it for every client.
pub fn parse_with(kind: &str, text: &str, facts: &Cluster) -> Result<Imported, Vec<Finding>> {
    check_size(text).map_err(|f| vec![f])?;
    let importer = importer(kind).ok_or_else(|| {
        vec![error(format!(
            "Unknown import kind {kind:?}; use one of {}.",
            kinds().join(", ")
        ))]
    })?;
    let found = importer.read(text).map_err(|f| vec![f])?;
    let mut facts = facts.clone();
    if facts.cloud.is_none() {
        facts.cloud = importer.cloud();
    }
    classify::classify(importer, found, facts)
}

/// Refuses inputs over [`MAX_INPUT_BYTES`].
fn check_size(text: &str) -> Result<(), Finding> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(error(format!(
            "The artifact is {} bytes; at most {MAX_INPUT_BYTES} bytes (4 MiB) are read.",
            text.len()
        )));
    }
    Ok(())
}

/// A finding with the summary every import error shares.
pub(crate) fn error(detail: impl Into<String>) -> Finding {
    Finding::error(None, "Cannot import proxy settings", detail)
}

/// Splits a comma- (or space-) separated NO_PROXY value.
pub(crate) fn split_list(value: &str) -> Vec<String> {
    value
        .split([',', ' ', '\n', '\t'])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Documents of a (multi-document) YAML or JSON text. Size, nesting and
/// indentation are checked first, in one linear pass, so that hostile input
/// (e.g. `{` nested 100k deep) is refused before the parser runs.
pub(crate) fn documents(text: &str) -> Result<Vec<serde_json::Value>, Finding> {
    use serde::Deserialize as _;
    check_size(text)?;
    check_nesting(text)?;
    serde_yaml_ng::Deserializer::from_str(text)
        .map(|doc| {
            serde_json::Value::deserialize(doc)
                .map_err(|e| error(format!("Not valid YAML or JSON: {e}.")))
        })
        .filter(|doc| !matches!(doc, Ok(serde_json::Value::Null)))
        .collect()
}

/// Refuses flow nesting deeper than [`MAX_NESTING`] and indentation wider
/// than [`MAX_INDENT`]. Brackets inside quoted strings count too: real
/// artifacts never come near the limit.
fn check_nesting(text: &str) -> Result<(), Finding> {
    let mut depth = 0usize;
    for byte in text.bytes() {
        match byte {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(error(format!(
                        "The artifact nests `{{` or `[` more than {MAX_NESTING} levels deep; real artifacts do not."
                    )));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if let Some(line) = text
        .lines()
        .position(|l| l.len() - l.trim_start().len() > MAX_INDENT)
    {
        return Err(error(format!(
            "Line {} of the artifact is indented more than {MAX_INDENT} columns; real artifacts are not.",
            line + 1
        )));
    }
    Ok(())
}

/// A string at `path` inside `value`.
pub(crate) fn text_at<'a>(value: &'a serde_json::Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .and_then(serde_json::Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind names one importer, and the lists built from the registry
    /// name them all, in order.
    #[test]
    fn the_registry_names_each_kind_once() {
        let mut seen = Vec::new();
        for importer in importers() {
            let kind = importer.kind();
            assert!(!seen.contains(&kind), "{kind} twice");
            assert!(
                !kind.is_empty()
                    && kind
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
                "{kind}: the import ID grammar takes lowercase letters and digits"
            );
            assert_eq!(super::importer(kind).map(|i| i.kind()), Some(kind));
            seen.push(kind);
        }
        assert_eq!(kinds(), seen);
        let described = described_kinds();
        let mut at = 0;
        for importer in importers() {
            let entry = format!("`{}` ({})", importer.kind(), importer.reads());
            let found = described[at..]
                .find(&entry)
                .unwrap_or_else(|| panic!("{entry} in {described}"));
            at += found + entry.len();
        }
        assert!(super::importer("bogus").is_none());
    }

    #[test]
    fn an_unknown_kind_is_an_error() {
        let err = parse("bogus", "").unwrap_err();
        assert_eq!(
            err[0].detail,
            format!(
                "Unknown import kind \"bogus\"; use one of {}.",
                kinds().join(", ")
            )
        );
    }

    /// AKS runs on Azure: its import adds Azure's addresses unless the
    /// import ID names another cloud.
    #[test]
    fn the_importers_cloud_applies_unless_the_id_names_one() {
        let text = r#"{"httpProxyConfig": {"httpProxy": "http://p.example:3128", "noProxy": ["168.63.129.16"]}}"#;
        assert!(parse("aks", text).unwrap().no_proxy.is_empty());
        let aws = Cluster {
            cloud: Some(Cloud::Aws),
            ..Cluster::default()
        };
        assert_eq!(
            parse_with("aks", text, &aws).unwrap().no_proxy,
            ["168.63.129.16"]
        );
    }

    #[test]
    fn nesting_and_size_are_checked_before_parsing() {
        let deep = "{".repeat(100_000);
        let started = std::time::Instant::now();
        for &kind in kinds() {
            let err = parse(kind, &deep).unwrap_err();
            // Drop-ins and environment files are read line by line, never as YAML.
            let expected = match kind {
                "systemd" => "No `Environment=`",
                "rke2" => "not a `NAME=value` assignment",
                _ => "nests",
            };
            assert!(
                err[0].detail.contains(expected),
                "{kind}: {}",
                err[0].detail
            );
        }
        let indented = format!("a:\n{}b: 1\n", " ".repeat(MAX_INDENT + 1));
        assert!(parse("tkg", &indented).unwrap_err()[0]
            .detail
            .contains("indented"));
        let big = "#".repeat(MAX_INPUT_BYTES + 1);
        assert!(parse("systemd", &big).unwrap_err()[0]
            .detail
            .contains("4 MiB"));
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}
