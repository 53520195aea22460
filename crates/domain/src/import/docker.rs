//! Import from Docker Engine's `daemon.json`: the `proxies` object, with
//! `http-proxy`, `https-proxy` and `no-proxy` (a comma-separated string),
//! which Docker Engine 23.0 and later read (moby/moby `daemon/config/config.go`,
//! `Proxies`, as of v28.3.0; docs.docker.com "Daemon proxy configuration").
//! The daemon uses them for its own traffic (image pulls, registries), not
//! for containers.

use serde_json::Value;

use super::found::{Found, Importer, Recognised, Scanned};
use super::input::{documents, error, optional_text, split_list};
use crate::Finding;

/// The Docker Engine importer.
#[derive(Debug, Clone, Copy)]
pub struct Docker;

/// The `proxies` object of a `daemon.json`.
fn proxies_of(document: &Value) -> Option<&Value> {
    document.get("proxies").filter(|proxies| {
        ["http-proxy", "https-proxy", "no-proxy"]
            .iter()
            .any(|key| proxies.get(key).is_some())
    })
}

impl Importer for Docker {
    fn kind(&self) -> &'static str {
        "docker"
    }

    fn platform(&self) -> &'static str {
        "Docker Engine"
    }

    fn reads(&self) -> &'static str {
        "`daemon.json` with `proxies`"
    }

    /// A JSON document with a `proxies` object of Docker's keys.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| proxies_of(document).is_some())
    }

    /// Reads the daemon's proxies.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let documents = documents(text)?;
        let Some(proxies) = documents.iter().find_map(proxies_of) else {
            return Err(error(
                "No `proxies` object with `http-proxy`, `https-proxy` or `no-proxy`: this is no daemon.json with proxy settings.",
            ));
        };
        Ok(Found {
            http_proxy: optional_text(proxies, "http-proxy", "proxies")?,
            https_proxy: optional_text(proxies, "https-proxy", "proxies")?,
            no_proxy: optional_text(proxies, "no-proxy", "proxies")?
                .map(|list| split_list(&list))
                .unwrap_or_default(),
            ..Found::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_proxies_and_refuses_other_types() {
        let found = Docker
            .read(r#"{"debug": true, "proxies": {"http-proxy": "http://proxy.corp.example:3128", "no-proxy": "10.0.0.0/8,.corp.example"}}"#)
            .unwrap();
        assert_eq!(
            found.http_proxy.as_deref(),
            Some("http://proxy.corp.example:3128")
        );
        assert_eq!(found.no_proxy, ["10.0.0.0/8", ".corp.example"]);
        let finding = Docker
            .read(r#"{"proxies": {"http-proxy": "http://p:1", "no-proxy": ["a"]}}"#)
            .unwrap_err();
        assert!(
            finding.detail.contains("`proxies.no-proxy`"),
            "{}",
            finding.detail
        );
        assert!(Docker.read(r#"{"debug": true}"#).is_err());
    }
}
