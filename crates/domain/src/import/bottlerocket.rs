//! Import from Bottlerocket's settings: the TOML user data of a node
//! (`[settings.network]` `https-proxy` and `no-proxy`, a list), or the
//! JSON of `apiclient set --json` (`{"network": {...}}`, without the
//! `settings.` prefix) and of `apiclient get settings` (`{"settings": ...}`)
//! (bottlerocket-os/bottlerocket `README.md`, "Proxy settings", and
//! `sources/api/apiclient/README.md`, "JSON input"). Bottlerocket has no
//! `http-proxy` setting: `https-proxy` becomes HTTPS_PROXY alone for
//! containerd, the kubelet and the host's services, whose NO_PROXY is
//! `no-proxy` followed by what Bottlerocket adds itself: `localhost`,
//! `127.0.0.1`, the host of `settings.kubernetes.api-server` and
//! `.<settings.kubernetes.cluster-domain>` (the `proxy-env` template of
//! Bottlerocket's network settings). The TOML is read by the `toml` crate
//! within the bounds every import keeps.

use serde_json::Value;

use super::found::{Found, Importer, Recognised, Scanned, APISERVER_HOST, CLUSTER_DOMAIN};
use super::input::{check_bounds, documents, error, optional_text, string_list, text_at};
use crate::Finding;

/// Where the proxy settings are, in findings.
const FIELD: &str = "settings.network";

/// What Bottlerocket adds to `no-proxy` for every node.
const ADDED: &str = "added by Bottlerocket itself";

/// The Bottlerocket importer.
#[derive(Debug, Clone, Copy)]
pub struct Bottlerocket;

/// The settings of a document: under `settings` (user data, `apiclient get`)
/// or the document itself (`apiclient set --json`), when its `network`
/// holds a proxy setting.
fn settings_of(document: &Value) -> Option<&Value> {
    let settings = document.get("settings").unwrap_or(document);
    let network = settings.get("network")?;
    ["https-proxy", "no-proxy", "http-proxy"]
        .iter()
        .any(|key| network.get(key).is_some())
        .then_some(settings)
}

/// The TOML user data as a JSON value, or where it cannot be read.
fn toml_document(text: &str) -> Result<Value, Finding> {
    check_bounds(text)?;
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        // The parser's message quotes the line, which may hold a password.
        let line = e
            .span()
            .map(|span| text[..span.start.min(text.len())].lines().count().max(1));
        error(match line {
            Some(line) => format!("Not valid TOML (line {line}): is this Bottlerocket user data?"),
            None => "Not valid TOML: is this Bottlerocket user data?".to_owned(),
        })
    })?;
    serde_json::to_value(table).map_err(|_| error("The TOML holds a value JSON cannot hold."))
}

/// The host of an API server URL (`https://host[:port][/...]`).
fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = match authority.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next()?,
        None => authority
            .rsplit_once(':')
            .map_or(authority, |(host, _)| host),
    };
    (!host.is_empty()).then_some(host)
}

impl Importer for Bottlerocket {
    fn kind(&self) -> &'static str {
        "bottlerocket"
    }

    fn platform(&self) -> &'static str {
        "Bottlerocket"
    }

    fn reads(&self) -> &'static str {
        "TOML user data or `apiclient` settings JSON"
    }

    /// The `apiclient` JSON as a document; the user data by its
    /// `[settings.network]` table (or `settings.network.` keys).
    fn recognises(&self, file: &Scanned) -> Recognised {
        if file.any_document(|document| settings_of(document).is_some()) == Recognised::Document {
            return Recognised::Document;
        }
        let mentions = file
            .text
            .lines()
            .map(str::trim)
            .any(|line| line == "[settings.network]" || line.starts_with("settings.network."));
        match mentions.then(|| toml_document(file.text)) {
            Some(Ok(document)) if settings_of(&document).is_some() => Recognised::Lines,
            _ => Recognised::No,
        }
    }

    /// Reads `https-proxy`, `no-proxy` and what Bottlerocket adds.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let documents = if text.trim_start().starts_with('{') {
            documents(text)?
        } else {
            vec![toml_document(text)?]
        };
        let Some(settings) = documents.iter().find_map(settings_of) else {
            return Err(error(
                "No `settings.network` with `https-proxy` or `no-proxy` found: is this Bottlerocket user data or `apiclient` settings?",
            ));
        };
        let network = &settings["network"];
        if network.get("http-proxy").is_some() {
            return Err(error(format!(
                "`{FIELD}.http-proxy` is no Bottlerocket setting (Bottlerocket reads `https-proxy` only, and its API refuses the file)."
            )));
        }
        let mut cluster_entries: Vec<(String, &'static str)> = ["localhost", "127.0.0.1"]
            .iter()
            .map(|entry| ((*entry).to_owned(), ADDED))
            .collect();
        let kubernetes = settings.get("kubernetes");
        if let Some(host) = kubernetes
            .and_then(|k| text_at(k, &["api-server"]))
            .and_then(url_host)
        {
            cluster_entries.push((host.to_owned(), APISERVER_HOST));
        }
        if let Some(domain) = kubernetes.and_then(|k| text_at(k, &["cluster-domain"])) {
            cluster_entries.push((domain.to_owned(), CLUSTER_DOMAIN));
        }
        Ok(Found {
            cluster_name: kubernetes
                .and_then(|k| text_at(k, &["cluster-name"]))
                .map(str::to_owned),
            name_from: Some("`settings.kubernetes.cluster-name`".to_owned()),
            http_proxy: None,
            https_proxy: optional_text(network, "https-proxy", FIELD)?,
            no_proxy: string_list(network, "no-proxy", FIELD)?,
            trusted_ca: None,
            cluster_entries,
            warnings: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const USER_DATA: &str = "[settings.kubernetes]\napi-server = \"https://ABC.gr7.eu-west-1.eks.amazonaws.com\"\ncluster-name = \"eks-1\"\n\n[settings.network]\nhttps-proxy = \"http://proxy.corp.example:3128\"\nno-proxy = [\"10.0.0.0/16\", \".corp.example\"]\n";

    #[test]
    fn reads_user_data_and_apiclient_json() {
        let found = Bottlerocket.read(USER_DATA).unwrap();
        assert_eq!(found.cluster_name.as_deref(), Some("eks-1"));
        assert_eq!(
            found.https_proxy.as_deref(),
            Some("http://proxy.corp.example:3128")
        );
        assert_eq!(found.http_proxy, None);
        assert_eq!(found.no_proxy, ["10.0.0.0/16", ".corp.example"]);
        assert!(found.cluster_entries.contains(&(
            "ABC.gr7.eu-west-1.eks.amazonaws.com".to_owned(),
            APISERVER_HOST
        )));
        let json = r#"{"network": {"https-proxy": "http://proxy.corp.example:3128", "no-proxy": ["a.example"]}}"#;
        assert_eq!(Bottlerocket.read(json).unwrap().no_proxy, ["a.example"]);
        let documents: Vec<Value> = vec![serde_json::from_str(json).unwrap()];
        let file = Scanned {
            name: "settings.json",
            text: json,
            documents: &documents,
        };
        assert_eq!(Bottlerocket.recognises(&file), Recognised::Document);
        let file = Scanned {
            name: "user-data.toml",
            text: USER_DATA,
            documents: &[],
        };
        assert_eq!(Bottlerocket.recognises(&file), Recognised::Lines);
    }

    /// What Bottlerocket would refuse, or TOML that is none, is a finding
    /// naming the field (or the line), never quoting the text.
    #[test]
    fn refuses_what_it_cannot_read() {
        for (text, says) in [
            (
                USER_DATA.replace(
                    "no-proxy = [\"10.0.0.0/16\", \".corp.example\"]",
                    "no-proxy = \"10.0.0.0/16\"",
                ),
                "`settings.network.no-proxy`",
            ),
            (
                USER_DATA.replace("https-proxy", "http-proxy"),
                "`settings.network.http-proxy`",
            ),
            (
                USER_DATA
                    .replace(
                        "https-proxy = \"http://proxy",
                        "https-proxy = \"http://u:s3cr3t@proxy",
                    )
                    .replace("3128\"", "3128"),
                "line 6",
            ),
        ] {
            let finding = Bottlerocket.read(&text).unwrap_err();
            assert!(finding.detail.contains(says), "{}", finding.detail);
            assert!(!finding.detail.contains("s3cr3t"), "{}", finding.detail);
        }
        assert!(Bottlerocket
            .read(&format!("a = {}", "[".repeat(100_000)))
            .unwrap_err()
            .detail
            .contains("nests"));
    }
}
