//! Importers: read the proxy settings an existing cluster already has from
//! its artifacts, and split its NO_PROXY into installation-wide entries and
//! cluster-specific ones (left out, each with the reason).

pub mod aks;
pub mod capi;
pub mod drift;
pub mod giantswarm;
pub mod id;
pub mod openshift;
pub mod rke2;
pub mod systemd;
pub mod tkg;

use std::collections::{HashMap, HashSet};

use percent_encoding::percent_decode_str;

use super::no_proxy::{merge, normalize, Cloud, Cluster, MergeOptions, Source};
use super::profile::ProfileInput;
use super::proxy_url::ProxyUrl;
use super::trusted_ca::TrustedCa;
use super::{Field, Finding, Location};

/// The kinds of artifact that can be imported.
pub const KINDS: [&str; 7] = [
    "aks",
    "tkg",
    "capi",
    "systemd",
    "giantswarm",
    "openshift",
    "rke2",
];

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
    /// Entries left out.
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
    let found = match kind {
        "aks" => aks::read(text),
        "tkg" => tkg::read(text),
        "capi" => capi::read(text),
        "systemd" => systemd::read(text),
        "giantswarm" => giantswarm::read(text),
        "openshift" => openshift::read(text),
        "rke2" => rke2::read(text),
        other => Err(error(format!(
            "Unknown import kind {other:?}; use one of {}.",
            KINDS.join(", ")
        ))),
    }
    .map_err(|f| vec![f])?;
    let mut facts = facts.clone();
    if kind == "aks" && facts.cloud.is_none() {
        // AKS runs on Azure and adds Azure's addresses itself.
        facts.cloud = Some(Cloud::Azure);
    }
    classify(kind, found, facts)
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

/// An import error.
pub(crate) fn error(detail: impl Into<String>) -> Finding {
    Finding::error(None, "Cannot import proxy settings", detail)
}

/// A proxy URL split into (URL without credentials as written, user,
/// password), and a warning when it was read differently from how it was
/// written.
type SplitUrl = (String, Option<String>, Option<String>, Option<String>);

/// Splits credentials out of a proxy URL and checks the rest. A URL without a
/// scheme is read as `http://`, as Go's `httpproxy` (FromEnvironment:
/// "if the proxy URL has no scheme, http is assumed"), curl and containerd
/// do, and as EKS Anywhere documents `proxyConfiguration`; the warning says so.
fn split_url(at: Field, field: &str, text: &str) -> Result<SplitUrl, Finding> {
    let text = text.trim();
    let (scheme, rest, assumed) = match text.split_once("://") {
        Some((scheme, rest)) => (scheme, rest, false),
        None => ("http", text, true),
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
    let (userinfo, host) = match authority.rsplit_once('@') {
        Some((userinfo, host)) => (Some(userinfo), host),
        None => (None, authority),
    };
    // What the artifact's clients make of credentials that are not
    // percent-encoded: Go's net/url (used by containerd, kubelet and
    // `httpproxy`) ends the host at the first `/`, `?` or `#` and refuses a
    // space in userinfo ("invalid userinfo"); curl's URL parser refuses
    // spaces too. Those clients never use this proxy: re-encoding the
    // password would give the profile a meaning the artifact does not have.
    if userinfo.is_none() && tail.contains('@') {
        return Err(error(format!(
            "{field}: the credentials in the proxy URL hold an unencoded `/`, `?` or `#`, where Go's net/url and curl end the host, so the artifact's clients cannot use this proxy; percent-encode it (`%2F`, `%3F`, `%23`) in the artifact and import again (not quoted: the proxy URL holds credentials)."
        )));
    }
    if userinfo.is_some_and(|u| u.chars().any(|c| c.is_whitespace() || c.is_control())) {
        return Err(error(format!(
            "{field}: the credentials in the proxy URL hold a space or control character, which Go's net/url (\"invalid userinfo\") and curl refuse, so the artifact's clients cannot use this proxy; percent-encode it (a space is `%20`) in the artifact and import again (not quoted: the proxy URL holds credentials)."
        )));
    }
    // The parser's detail quotes what it could not read, which may be part
    // of the credentials (systemd's word splitting can cut an unquoted URL
    // inside the password): only its fixed summary is reported.
    let spelling = format!("{scheme}://{host}{tail}");
    let url = ProxyUrl::parse(at, &spelling).map_err(|f| {
        error(format!(
            "{field}: {} (not quoted: the proxy URL may hold credentials).",
            f.summary
        ))
    })?;
    let decode = |part: &str, s: &str| -> Result<String, Finding> {
        percent_decode_str(s)
            .decode_utf8()
            .map(|d| d.into_owned())
            .map_err(|_| {
                error(format!(
                    "{field}: the {part} in the proxy URL has percent-encoding that is not UTF-8 (e.g. `%ff`); write it percent-encoded from UTF-8."
                ))
            })
    };
    let (username, password) = match userinfo {
        Some(userinfo) => {
            let (user, password) = userinfo
                .split_once(':')
                .map_or((userinfo, None), |(a, b)| (a, Some(b)));
            (
                Some(decode("user name", user)?).filter(|u| !u.is_empty()),
                password
                    .map(|p| decode("password", p))
                    .transpose()?
                    .filter(|p| !p.is_empty()),
            )
        }
        None => (None, None),
    };
    let warning = assumed.then(|| {
        format!(
            "{field}: written without a scheme ({host}); read as {}, as containerd, Go and curl read it.",
            url.to_plain_string()
        )
    });
    Ok((spelling, username, password, warning))
}

/// Where an entry the renderers (or the platform) add comes from, in words;
/// `defaults` are the cluster's platform defaults with their reasons.
fn added_by(field: Field, entry: &str, defaults: &[(String, &'static str)]) -> String {
    let from = |name: &str| format!("added by the renderers from `{name}`");
    match field {
        Field::Defaults => defaults
            .iter()
            .find(|(default, _)| default == entry)
            .map(|(_, why)| (*why).to_owned())
            .unwrap_or_default(),
        Field::ClusterDomain => "the cluster domain (`cluster_domain`)".to_owned(),
        Field::Cloud => "cloud metadata endpoint, added from `cloud`".to_owned(),
        Field::PodCidrs => from("pod_cidrs"),
        Field::ServiceCidrs => from("service_cidrs"),
        Field::NodeCidrs => from("node_cidrs"),
        Field::ApiserverHost => from("apiserver_host"),
        Field::ApiserverIp => from("apiserver_ip"),
        Field::ControlPlaneEndpoint => from("control_plane_endpoint"),
        Field::Extra => from("extra"),
        // An entry the platform adds itself: the importer's reason.
        Field::Platform(why) => why.to_owned(),
        Field::Installation => from("installation"),
        // Only the cluster's inputs and the platform add entries.
        _ => String::new(),
    }
}

/// Normalises and classifies the found settings against the cluster facts.
fn classify(kind: &str, found: Found, facts: Cluster) -> Result<Imported, Vec<Finding>> {
    let mut findings = Vec::new();
    let mut warnings = Vec::new();
    let mut parse = |at: Field, field: &str, text: &Option<String>| match text
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        None => None,
        Some(t) => match split_url(at, field, t) {
            Ok((url, user, password, warning)) => {
                warnings.extend(warning);
                Some((url, user, password))
            }
            Err(f) => {
                findings.push(f);
                None
            }
        },
    };
    let http = parse(Field::HttpProxy, "http_proxy", &found.http_proxy);
    let https = parse(Field::HttpsProxy, "https_proxy", &found.https_proxy);
    if http.is_none() && https.is_none() && findings.is_empty() {
        findings.push(error(
            "The artifact sets no proxy (neither HTTP_PROXY nor HTTPS_PROXY).",
        ));
    }
    let credentials: Vec<(Option<String>, Option<String>)> = [&http, &https]
        .into_iter()
        .flatten()
        .map(|(_, u, p)| (u.clone(), p.clone()))
        .collect();
    if credentials.windows(2).any(|w| w[0] != w[1]) {
        findings.push(error("The HTTP and HTTPS proxies use different credentials; a profile has one user and password."));
    }
    let trusted_ca = found.trusted_ca.filter(|c| !c.trim().is_empty());
    if let Some(pem) = &trusted_ca {
        let field = match kind {
            "aks" => "trustedCa",
            "tkg" => "TKG_PROXY_CA_CERT",
            _ => "the trusted CA",
        };
        if let Err(f) = TrustedCa::parse(pem) {
            findings.push(error(format!(
                "`{field}` is not a usable CA bundle: {} ({})",
                f.summary, f.detail
            )));
        }
    }
    let (facts, platform) = with_artifact_facts(facts, &found.cluster_entries);
    let mut entries = Vec::new();
    for (index, raw) in found.no_proxy.iter().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        match normalize(Location::element(Field::Artifact, index), raw) {
            Ok(entry) => entries.push(entry),
            Err(f) => findings.push(error(format!(
                "NO_PROXY entry {index} ({raw:?}): {}",
                f.detail
            ))),
        }
    }
    let split = if findings.is_empty() {
        split_entries(&entries, &facts, &platform).map_err(|f| findings.extend(f))
    } else {
        Err(())
    };
    let Ok((no_proxy, dropped)) = split else {
        return Err(findings);
    };
    if facts.pod_cidrs.is_empty() && facts.service_cidrs.is_empty() {
        let cidrs: Vec<&str> = no_proxy
            .iter()
            .filter(|e| e.contains('/') && !e.starts_with("127.") && !e.starts_with("169.254."))
            .map(String::as_str)
            .collect();
        if !cidrs.is_empty() {
            warnings.push(format!(
                "CIDR blocks {} could not be classified: neither the artifact nor the import ID names the cluster's pod and service networks, so they were kept as installation-wide. If they belong to this cluster, import with `{kind}(pod_cidrs=...;service_cidrs=...):...`.",
                cidrs.join(", ")
            ));
        }
    }
    let (username, password) = credentials.into_iter().next().unwrap_or((None, None));
    let https_direct = http.is_some() && https.is_none();
    Ok(Imported {
        name: found
            .cluster_name
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| kind.to_owned()),
        http_proxy: http.map(|(u, _, _)| u),
        https_proxy: https.map(|(u, _, _)| u),
        username,
        password,
        no_proxy,
        dropped,
        trusted_ca,
        facts,
        platform: platform.into_iter().map(|(e, _)| e).collect(),
        https_direct,
        warnings,
    })
}

/// Adds the facts the artifact declares to those given (given ones win for
/// single values); entries with any other reason are what the platform adds.
fn with_artifact_facts(
    mut facts: Cluster,
    declared: &[(String, &'static str)],
) -> (Cluster, Vec<(String, &'static str)>) {
    let mut platform: Vec<(String, &'static str)> = Vec::new();
    for (raw, why) in declared {
        let value = raw.trim().to_owned();
        if value.is_empty() || normalize(None, &value).is_err() {
            continue;
        }
        let push = |list: &mut Vec<String>| {
            if !list.contains(&value) {
                list.push(value.clone());
            }
        };
        let mut platform_entry = || {
            if !platform.iter().any(|(e, _)| *e == value) {
                platform.push((value.clone(), *why));
            }
        };
        match *why {
            POD_CIDR => push(&mut facts.pod_cidrs),
            SERVICE_CIDR => push(&mut facts.service_cidrs),
            NODE_CIDR => push(&mut facts.node_cidrs),
            CONTROL_PLANE if facts.control_plane_endpoint.is_none() => {
                facts.control_plane_endpoint = Some(value)
            }
            APISERVER_HOST if facts.apiserver_host.is_none() => facts.apiserver_host = Some(value),
            CLUSTER_DOMAIN if facts.cluster_domain.is_none() => facts.cluster_domain = Some(value),
            _ => platform_entry(),
        }
    }
    if facts.cluster_domain.is_none() {
        // The renderers' default (`cluster_domain`).
        facts.cluster_domain = Some("cluster.local".to_owned());
    }
    (facts, platform)
}

/// Splits normalised artifact entries into those kept as installation-wide
/// and those the renderers add back from `facts` (or the platform adds),
/// exactly or by covering them for every client the NO_PROXY engine models.
fn split_entries(
    entries: &[String],
    facts: &Cluster,
    platform: &[(String, &'static str)],
) -> Result<(Vec<String>, Vec<Dropped>), Vec<Finding>> {
    let mut sources = facts.sources()?;
    for (entry, why) in platform {
        sources.push(Source::single(Field::Platform(why), Some(entry.clone())));
    }
    let defaults = facts.platform_defaults();
    let mut added: HashMap<String, String> = HashMap::new();
    for source in &sources {
        for raw in &source.entries {
            let canonical =
                normalize(Location::element(source.field, 0), raw).map_err(|f| vec![f])?;
            added
                .entry(canonical.clone())
                .or_insert_with(|| added_by(source.field, raw, &defaults));
        }
    }
    sources.push(Source::list(Field::Artifact, entries.to_vec()));
    let merged = merge(&sources, &MergeOptions::default())?;
    let present: HashSet<String> = merged.entries.iter().map(ToString::to_string).collect();
    let covered: HashMap<&str, &str> = merged
        .subsumed
        .iter()
        .map(|s| (s.entry.as_str(), s.covered_by.as_str()))
        .collect();
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for entry in entries {
        let reason = if !seen.insert(entry.as_str()) {
            Some("duplicate".to_owned())
        } else if let Some(why) = added.get(entry) {
            Some(why.clone())
        } else if present.contains(entry) {
            None
        } else {
            covered.get(entry.as_str()).and_then(|by| {
                added
                    .get(*by)
                    .map(|why| format!("covered for every client by `{by}` ({why})"))
            })
        };
        match reason {
            Some(reason) => dropped.push(Dropped {
                entry: entry.clone(),
                reason,
            }),
            None => kept.push(entry.clone()),
        }
    }
    Ok((kept, dropped))
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

    fn found(no_proxy: &[&str]) -> Found {
        Found {
            http_proxy: Some("http://u%40corp:p%3Ass@Proxy.Corp.Example:3128/".into()),
            https_proxy: Some("http://u%40corp:p%3Ass@proxy.corp.example:3128".into()),
            no_proxy: no_proxy.iter().map(|s| (*s).to_owned()).collect(),
            cluster_entries: vec![("10.96.0.0/12".into(), SERVICE_CIDR)],
            ..Found::default()
        }
    }

    fn reasons(imported: &Imported) -> Vec<(&str, &str)> {
        imported
            .dropped
            .iter()
            .map(|d| (d.entry.as_str(), d.reason.as_str()))
            .collect()
    }

    #[test]
    fn splits_credentials_and_classifies_entries() {
        let imported = classify(
            "systemd",
            found(&[
                " Registry.Corp.Example ",
                "10.96.0.0/12",
                "localhost",
                ".svc",
                "registry.corp.example",
                "",
                "10.0.0.0/8",
            ]),
            Cluster::default(),
        )
        .unwrap();
        assert_eq!(
            imported.http_proxy.as_deref(),
            Some("http://Proxy.Corp.Example:3128/")
        );
        assert_eq!(imported.username.as_deref(), Some("u@corp"));
        assert_eq!(imported.password.as_deref(), Some("p:ss"));
        assert_eq!(imported.no_proxy, ["registry.corp.example", "10.0.0.0/8"]);
        assert_eq!(
            reasons(&imported),
            [
                (
                    "10.96.0.0/12",
                    "added by the renderers from `service_cidrs`"
                ),
                ("localhost", "loopback, added for every cluster"),
                (".svc", "in-cluster service names, added for every cluster"),
                ("registry.corp.example", "duplicate"),
            ]
        );
        assert_eq!(imported.facts.service_cidrs, ["10.96.0.0/12"]);
        let note = imported.note();
        assert!(
            note.contains(
                "Kept as installation-wide NO_PROXY (2): registry.corp.example, 10.0.0.0/8."
            ),
            "{note}"
        );
        assert!(
            note.contains("  - 10.96.0.0/12: added by the renderers from `service_cidrs`"),
            "{note}"
        );
        assert!(
            note.contains("service_cidrs = [\"10.96.0.0/12\"]"),
            "{note}"
        );
        assert!(!note.contains("p:ss") && !note.contains("p%3Ass"), "{note}");
        assert_eq!(imported.name, "systemd");
    }

    /// `local` covers every `*.local` host, not only `cluster.local`: it is
    /// kept. Entries the cluster domain does cover are left out.
    #[test]
    fn local_is_kept_and_only_covered_entries_are_dropped() {
        let imported = classify(
            "systemd",
            found(&[
                "local",
                ".local",
                "svc.cluster.local",
                ".cluster.local",
                "svc",
                "169.254.169.254",
            ]),
            Cluster::default(),
        )
        .unwrap();
        assert_eq!(
            imported.no_proxy,
            ["local", ".local", "svc", "169.254.169.254"]
        );
        assert_eq!(
            reasons(&imported),
            [
                ("svc.cluster.local", "covered for every client by `cluster.local` (the cluster domain (`cluster_domain`))"),
                (".cluster.local", "covered for every client by `cluster.local` (the cluster domain (`cluster_domain`))"),
            ]
        );
        let with_cloud = classify(
            "systemd",
            found(&["169.254.169.254"]),
            Cluster {
                cloud: Some(Cloud::Aws),
                ..Cluster::default()
            },
        )
        .unwrap();
        assert!(with_cloud.no_proxy.is_empty());
    }

    #[test]
    fn facts_separate_cluster_entries() {
        let facts = Cluster {
            pod_cidrs: vec!["10.244.0.0/16".into()],
            apiserver_ip: Some("10.0.0.10".into()),
            cluster_domain: Some("k8s.corp".into()),
            ..Cluster::default()
        };
        let imported = classify(
            "systemd",
            found(&[
                "10.244.0.0/16",
                "10.244.1.0/24",
                "10.0.0.10",
                "kubernetes.default.svc.k8s.corp",
                "cluster.local",
                "10.244.0.5",
            ]),
            facts,
        )
        .unwrap();
        // 10.244.0.5 stays: not every client matches CIDR blocks.
        assert_eq!(imported.no_proxy, ["cluster.local", "10.244.0.5"]);
        assert_eq!(imported.dropped.len(), 4);
        assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
        let unclassified = classify("capi", found(&["10.1.0.0/16"]), Cluster::default());
        // The service CIDR is a fact here; without any network facts, CIDRs are flagged.
        assert!(unclassified.unwrap().warnings.is_empty());
        let mut bare = found(&["10.1.0.0/16"]);
        bare.cluster_entries.clear();
        let bare = classify("capi", bare, Cluster::default()).unwrap();
        assert!(
            bare.warnings[0].contains("could not be classified"),
            "{:?}",
            bare.warnings
        );
    }

    #[test]
    fn scheme_less_proxies_are_read_as_http_with_a_warning() {
        let mut f = found(&[]);
        f.http_proxy = Some("proxy.example:8888".into());
        f.https_proxy = Some("proxy.example:8888".into());
        let imported = classify("x", f, Cluster::default()).unwrap();
        assert_eq!(
            imported.http_proxy.as_deref(),
            Some("http://proxy.example:8888")
        );
        assert_eq!(imported.warnings.len(), 2);
        assert!(imported.warnings[0].contains("without a scheme"));
        assert!(imported
            .note()
            .contains("read as http://proxy.example:8888"));
    }

    /// The profile input leaves an HTTPS proxy equal to the HTTP proxy (as
    /// normalised: here the HTTPS one has no scheme and another case) unset
    /// and keeps a different one; the imported fields keep the artifact's.
    #[test]
    fn an_https_proxy_equal_to_the_http_proxy_is_left_unset_in_the_profile() {
        let mut f = found(&[]);
        f.https_proxy = Some("u%40corp:p%3Ass@PROXY.corp.example:3128".into());
        let imported = classify("systemd", f, Cluster::default()).unwrap();
        assert_eq!(
            imported.https_proxy.as_deref(),
            Some("http://PROXY.corp.example:3128")
        );
        let input = imported.input();
        assert_eq!(
            input.http_proxy.as_deref(),
            Some("http://Proxy.Corp.Example:3128/")
        );
        assert_eq!(input.https_proxy, None);
        assert_eq!(input.username.as_deref(), Some("u@corp"));
        let mut f = found(&[]);
        f.https_proxy = Some("http://u%40corp:p%3Ass@proxy.corp.example:3129".into());
        let imported = classify("systemd", f, Cluster::default()).unwrap();
        assert_eq!(
            imported.input().https_proxy.as_deref(),
            Some("http://proxy.corp.example:3129")
        );
    }

    /// The artifact's spelling is kept (a port-less URL stays port-less),
    /// so that the configuration that writes what the artifact writes plans
    /// no change; the HTTPS proxy is compared normalised.
    #[test]
    fn proxies_keep_the_artifacts_spelling() {
        let mut f = found(&[]);
        f.http_proxy = Some("http://u:p@Proxy.Example".into());
        f.https_proxy = Some("HTTP://u:p@proxy.example:80/".into());
        let imported = classify("systemd", f, Cluster::default()).unwrap();
        assert_eq!(imported.http_proxy.as_deref(), Some("http://Proxy.Example"));
        assert_eq!(
            imported.https_proxy.as_deref(),
            Some("HTTP://proxy.example:80/")
        );
        let input = imported.input();
        assert_eq!(input.http_proxy.as_deref(), Some("http://Proxy.Example"));
        assert_eq!(input.https_proxy, None);
    }

    /// Credentials the artifact's clients cannot read (a raw space; a `#`,
    /// `/` or `?` that ends the host) are refused, not re-encoded into a
    /// working password; the message quotes nothing of them.
    #[test]
    fn credentials_the_clients_cannot_read_are_refused() {
        for (text, expected) in [
            ("http://u:pa ss@proxy.example:3128", "space or control"),
            ("http://u:pa\tss@proxy.example:3128", "space or control"),
            (
                "http://u:pa#ss@proxy.example:3128",
                "unencoded `/`, `?` or `#`",
            ),
            (
                "http://u:pa/ss@proxy.example:3128",
                "unencoded `/`, `?` or `#`",
            ),
            ("u:pa?ss@proxy.example", "unencoded `/`, `?` or `#`"),
        ] {
            let finding = split_url(Field::HttpProxy, "http_proxy", text).unwrap_err();
            assert!(finding.detail.contains(expected), "{text}: {finding:?}");
            assert!(
                !format!("{finding:?}").contains("ss"),
                "{text}: {finding:?}"
            );
        }
    }

    #[test]
    fn invalid_percent_encoding_is_an_error() {
        let mut f = found(&[]);
        f.http_proxy = Some("http://u:%ff%fe@proxy.example:3128".into());
        f.https_proxy = None;
        let err = classify("x", f, Cluster::default()).unwrap_err();
        assert!(err[0].detail.contains("not UTF-8"), "{}", err[0].detail);
        assert!(!err[0].detail.contains('\u{fffd}'));
    }

    #[test]
    fn http_only_artifacts_keep_their_meaning_or_say_so() {
        let mut f = found(&[]);
        f.https_proxy = None;
        let mut imported = classify("systemd", f, Cluster::default()).unwrap();
        assert!(imported.https_direct);
        assert_eq!(imported.https_proxy, None);
        let refused = imported.clone().keep_meaning(false).unwrap_err();
        assert!(
            refused.detail.contains("https_through_proxy=true"),
            "{}",
            refused.detail
        );
        imported.keep_meaning(true).unwrap();
        assert!(imported
            .note()
            .contains("HTTPS: the artifact sends it direct"));
    }

    #[test]
    fn a_trusted_ca_that_is_no_certificate_names_its_field() {
        for (kind, field) in [("aks", "trustedCa"), ("tkg", "TKG_PROXY_CA_CERT")] {
            let mut f = found(&[]);
            f.trusted_ca = Some("not a certificate".into());
            let err = classify(kind, f, Cluster::default()).unwrap_err();
            assert!(
                err[0].detail.contains(&format!("`{field}`")),
                "{}",
                err[0].detail
            );
        }
    }

    #[test]
    fn ambiguous_or_empty_input_is_an_error() {
        let mut f = found(&[]);
        f.https_proxy = Some("http://other:x@proxy.corp.example:3128".into());
        assert!(classify("x", f, Cluster::default()).unwrap_err()[0]
            .detail
            .contains("different credentials"));
        assert!(
            classify("x", Found::default(), Cluster::default()).unwrap_err()[0]
                .detail
                .contains("sets no proxy")
        );
        let bad = classify("x", found(&["https://x.example"]), Cluster::default()).unwrap_err();
        assert!(bad[0].detail.contains("URL"), "{}", bad[0].detail);
        assert!(parse("bogus", "").unwrap_err()[0]
            .detail
            .contains("Unknown import kind"));
    }

    #[test]
    fn nesting_and_size_are_checked_before_parsing() {
        let deep = "{".repeat(100_000);
        let started = std::time::Instant::now();
        for kind in KINDS {
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

    /// An imported artifact holds credentials: a proxy URL that does not
    /// parse is reported without quoting any part of it (here systemd's
    /// word splitting cut an unquoted URL inside the password, so the port
    /// the parser sees is the start of the password).
    #[test]
    fn bad_proxy_urls_are_reported_without_their_text() {
        for text in [
            "http://svc:Zq9secret",
            "http://svc:Zq9secret@",
            "Zq9secret:",
            "http://[Zq9secret]:3128",
            "http://Zq9secret..example:3128",
            "gopher://Zq9secret",
        ] {
            let finding = split_url(Field::HttpProxy, "http_proxy", text).unwrap_err();
            assert!(
                !finding.detail.contains("Zq9") && !finding.summary.contains("Zq9"),
                "{text}: {finding:?}"
            );
            assert!(finding.detail.starts_with("http_proxy: "), "{finding:?}");
        }
    }
}
