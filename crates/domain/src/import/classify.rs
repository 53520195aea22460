//! Classification: the proxies of a [`Found`] split from their credentials
//! and checked, and its NO_PROXY entries split into installation-wide ones
//! and those the renderers (or the platform) add back from the cluster
//! facts, each with the reason. The same for every importer.

use crate::redact::quoted;
use std::collections::{HashMap, HashSet};

use percent_encoding::percent_decode_str;

use super::found::{
    Found, Importer, APISERVER_HOST, CLUSTER_DOMAIN, CONTROL_PLANE, NODE_CIDR, POD_CIDR,
    SERVICE_CIDR,
};
use super::hint::Syntax;
use super::imported::{Dropped, Imported};
use super::input::error;
use crate::no_proxy::{merge, normalize, Cluster, MergeOptions, Source};
use crate::proxy_url::ProxyUrl;
use crate::trusted_ca::TrustedCa;
use crate::{Finding, InputField, Location};

/// A proxy URL split into (URL without credentials as written, user,
/// password), and a warning when it was read differently from how it was
/// written.
type SplitUrl = (String, Option<String>, Option<String>, Option<String>);

/// Splits credentials out of a proxy URL and checks the rest. A URL without a
/// scheme is read as `http://`, as Go's `httpproxy` (FromEnvironment:
/// "if the proxy URL has no scheme, http is assumed"), curl and containerd
/// do, and as EKS Anywhere documents `proxyConfiguration`; the warning says so.
fn split_url(at: InputField, field: &str, text: &str) -> Result<SplitUrl, Finding> {
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
fn added_by(field: InputField, entry: &str, defaults: &[(String, &'static str)]) -> String {
    let from = |name: &str| format!("added by the renderers from `{name}`");
    match field {
        InputField::Defaults => defaults
            .iter()
            .find(|(default, _)| default == entry)
            .map(|(_, why)| (*why).to_owned())
            .unwrap_or_default(),
        InputField::ClusterDomain => "the cluster domain (`cluster_domain`)".to_owned(),
        InputField::Cloud => "cloud metadata endpoint, added from `cloud`".to_owned(),
        InputField::PodCidrs => from("pod_cidrs"),
        InputField::ServiceCidrs => from("service_cidrs"),
        InputField::NodeCidrs => from("node_cidrs"),
        InputField::ApiserverHost => from("apiserver_host"),
        InputField::ApiserverIp => from("apiserver_ip"),
        InputField::ControlPlaneEndpoint => from("control_plane_endpoint"),
        InputField::Extra => from("extra"),
        // An entry the platform adds itself: the importer's reason.
        InputField::Platform(why) => why.to_owned(),
        InputField::Installation => from("installation"),
        // Only the cluster's inputs and the platform add entries.
        _ => String::new(),
    }
}

/// Normalises and classifies the found settings against the cluster facts.
pub(super) fn classify(
    importer: &dyn Importer,
    found: Found,
    facts: Cluster,
    syntax: &Syntax,
) -> Result<Imported, Vec<Finding>> {
    let mut findings = Vec::new();
    let mut warnings = Vec::new();
    let mut parse = |at: InputField, field: &str, text: &Option<String>| match text
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
    let http = parse(InputField::HttpProxy, "http_proxy", &found.http_proxy);
    let https = parse(InputField::HttpsProxy, "https_proxy", &found.https_proxy);
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
        let field = importer.trusted_ca_field();
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
        match normalize(Location::element(InputField::Artifact, index), raw) {
            Ok(entry) => entries.push(entry),
            Err(f) => findings.push(error(format!(
                "NO_PROXY entry {index} ({raw}): {}",
                f.detail,
                raw = quoted(raw)
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
                "CIDR blocks {} could not be classified: neither the artifact nor the import ID names the cluster's pod and service networks, so they were kept as installation-wide. If they belong to this cluster, import with {}.",
                cidrs.join(", "),
                syntax.options(importer.kind(), "pod_cidrs=...;service_cidrs=...", "...")
            ));
        }
    }
    warnings.extend(found.warnings);
    let (username, password) = credentials.into_iter().next().unwrap_or((None, None));
    let https_direct = http.is_some() && https.is_none();
    let name = found.cluster_name.filter(|n| !n.is_empty());
    Ok(Imported {
        name_from: name.as_ref().and(found.name_from),
        name: name.unwrap_or_else(|| importer.kind().to_owned()),
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
        sources.push(Source::single(
            InputField::Platform(why),
            Some(entry.clone()),
        ));
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
    sources.push(Source::list(InputField::Artifact, entries.to_vec()));
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

#[cfg(test)]
mod tests;
