//! Import from AKS: `az aks show -o json` output (also the ARM form with
//! `properties`), or a bare `httpProxyConfig` object.
//!
//! `trustedCa` is also read as `trustedCA`, the spelling of the example in
//! Microsoft's AKS HTTP proxy article (MicrosoftDocs/azure-docs
//! articles/aks/http-proxy.md, 2023-09-18). `effectiveNoProxy` (read-only, added to the
//! API in 2022 per the Azure/azure-sdk-for-go armcontainerservice CHANGELOG: "a
//! superset of noProxy and values injected by AKS") tells what
//! AKS added: its entries missing from `noProxy` are listed in the import note
//! as added by AKS, never kept in the profile. A `noProxy` that AKS wrote its
//! own entries into (azurerm issue 24188) loses those entries by their value:
//! the cluster's CIDRs and FQDN, `konnectivity`, loopback and the Azure
//! platform addresses. `enabled: false` (the `Enabled` field of the same
//! CHANGELOG; `az aks update --disable-http-proxy`) means the proxy is off.

use super::found::{
    Found, Importer, Recognised, Scanned, APISERVER_HOST, NODE_CIDR, POD_CIDR, SERVICE_CIDR,
};
use super::input::{documents, error, strings, text_at};
use crate::no_proxy::{normalize, Cloud};
use crate::trusted_ca::TrustedCa;
use crate::Finding;

/// Reason of an FQDN of the cluster other than the apiserver's.
const AKS_FQDN: &str = "FQDN of this cluster, injected by AKS";

/// The spellings of the CA key, in the order they are looked up.
const TRUSTED_CA_KEYS: [&str; 2] = ["trustedCa", "trustedCA"];

/// The AKS importer.
#[derive(Debug, Clone, Copy)]
pub struct Aks;

/// The file `az aks create --http-proxy-config` reads: an httpProxyConfig
/// object on its own, with either proxy (AKS takes `httpsProxy` alone).
fn is_bare_config(document: &serde_json::Value) -> bool {
    ["httpProxy", "httpsProxy"]
        .iter()
        .any(|key| document.get(key).is_some())
}

impl Importer for Aks {
    fn kind(&self) -> &'static str {
        "aks"
    }

    fn platform(&self) -> &'static str {
        "AKS"
    }

    /// `az aks show` output, its ARM `properties`, or the file `az aks
    /// create --http-proxy-config` reads.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| {
            document.get("httpProxyConfig").is_some()
                || document.pointer("/properties/httpProxyConfig").is_some()
                || (text_at(document, &["kind"]).is_none() && is_bare_config(document))
        })
    }

    fn reads(&self) -> &'static str {
        "`az aks show -o json` or an httpProxyConfig"
    }

    /// Reads the proxy settings and the cluster's own entries.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let document = documents(text)?
            .into_iter()
            .next()
            .ok_or_else(|| error("The AKS input is empty."))?;
        let properties = document.get("properties").unwrap_or(&document);
        let config = properties
            .get("httpProxyConfig")
            .or_else(|| is_bare_config(&document).then_some(&document))
            .filter(|c| !c.is_null())
            .ok_or_else(|| error("No `httpProxyConfig` found: give `az aks show -o json` output or an httpProxyConfig object."))?;
        if config.get("enabled") == Some(&serde_json::Value::Bool(false)) {
            return Err(error("`httpProxyConfig.enabled` is false: the proxy is disabled on this cluster, so its nodes and pods use none. Import the settings from a cluster that uses the proxy, or enable it first (`az aks update --enable-http-proxy`)."));
        }
        let network = properties.get("networkProfile");
        let mut cluster_entries: Vec<(String, &'static str)> = Vec::new();
        for (key, why) in [("podCidr", POD_CIDR), ("serviceCidr", SERVICE_CIDR)] {
            if let Some(cidr) = network.and_then(|n| n.get(key)).and_then(|v| v.as_str()) {
                cluster_entries.push((cidr.to_owned(), why));
            }
        }
        for (key, why) in [("podCidrs", POD_CIDR), ("serviceCidrs", SERVICE_CIDR)] {
            for cidr in strings(network.and_then(|n| n.get(key))) {
                cluster_entries.push((cidr.to_owned(), why));
            }
        }
        // `az` prints privateFqdn, the ARM JSON privateFQDN (go-azure-sdk
        // 2025-10-01). The first apiserver FQDN is the renderers'
        // `apiserver_host` (the AKS guide's input); any further one is an entry
        // AKS adds.
        for (key, why) in [
            ("fqdn", APISERVER_HOST),
            ("privateFqdn", APISERVER_HOST),
            ("privateFQDN", APISERVER_HOST),
            ("azurePortalFqdn", AKS_FQDN),
            ("azurePortalFQDN", AKS_FQDN),
        ] {
            if let Some(fqdn) = properties.get(key).and_then(|v| v.as_str()) {
                cluster_entries.push((fqdn.to_owned(), why));
            }
        }
        let networks: Vec<String> = cluster_entries
            .iter()
            .filter(|(_, why)| [POD_CIDR, SERVICE_CIDR].contains(why))
            .filter_map(|(cidr, _)| normalize(None, cidr).ok())
            .collect();
        cluster_entries.push((
            "konnectivity".to_owned(),
            "AKS's in-cluster konnectivity service, injected by AKS",
        ));
        let mut no_proxy: Vec<String> = strings(config.get("noProxy")).map(str::to_owned).collect();
        let canonical = |entry: &str| normalize(None, entry).unwrap_or_else(|_| entry.to_owned());
        let configured: Vec<String> = no_proxy.iter().map(|e| canonical(e)).collect();
        // Only entries the engine reads: one it cannot is AKS's own business and
        // must not fail the import of what the user configured.
        for entry in strings(config.get("effectiveNoProxy")) {
            let Ok(entry_canonical) = normalize(None, entry) else {
                continue;
            };
            if !configured.contains(&entry_canonical) {
                // A CIDR block AKS adds that is neither the pod nor the service
                // network is the node subnet (or managed VNet): `node_cidrs`.
                let why = if entry_canonical.contains('/') && !networks.contains(&entry_canonical) {
                    NODE_CIDR
                } else {
                    "added by AKS: in effectiveNoProxy, not in the configured noProxy"
                };
                cluster_entries.push((entry.to_owned(), why));
                no_proxy.push(entry.to_owned());
            }
        }
        Ok(Found {
            name_from: None,
            cluster_name: document
                .get("name")
                .and_then(|v| v.as_str())
                .map(str::to_owned),
            http_proxy: text_at(config, &["httpProxy"]).map(str::to_owned),
            https_proxy: text_at(config, &["httpsProxy"]).map(str::to_owned),
            no_proxy,
            trusted_ca: trusted_ca(config)?,
            cluster_entries,
            warnings: Vec::new(),
        })
    }

    fn cloud(&self) -> Option<Cloud> {
        Some(Cloud::Azure)
    }

    fn trusted_ca_field(&self) -> &'static str {
        "trustedCa"
    }
}

/// The PEM bundle of `trustedCa` (or `trustedCA`): base64 of PEM
/// certificates. Anything else is an error that names the key.
fn trusted_ca(config: &serde_json::Value) -> Result<Option<String>, Finding> {
    let present: Vec<(&str, &serde_json::Value)> = TRUSTED_CA_KEYS
        .iter()
        .filter_map(|key| config.get(*key).filter(|v| !v.is_null()).map(|v| (*key, v)))
        .collect();
    if let [(_, first), (_, second)] = present.as_slice() {
        if first != second {
            return Err(error(
                "Both `trustedCa` and `trustedCA` are set, to different values; keep one.",
            ));
        }
    }
    let Some((key, value)) = present.first() else {
        return Ok(None);
    };
    let b64 = value.as_str().ok_or_else(|| {
        error(format!(
            "`{key}` must be a string: base64 of the PEM CA bundle."
        ))
    })?;
    let compact: String = b64.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    if compact.is_empty() {
        return Ok(None);
    }
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&compact)
        .map_err(|e| {
            error(format!(
                "`{key}` is not base64 ({e}); AKS takes base64 of the PEM CA bundle."
            ))
        })?;
    let pem = String::from_utf8(bytes).map_err(|_| {
        error(format!(
            "`{key}` does not decode to PEM text: it is not a CA certificate bundle."
        ))
    })?;
    TrustedCa::parse(&pem).map_err(|f| {
        error(format!(
            "`{key}` is not a CA certificate bundle: {} ({})",
            f.summary,
            f.detail.trim_end_matches('.')
        ))
    })?;
    Ok(Some(pem))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trusted_ca::tests::bundle;
    use base64::Engine as _;

    fn config(extra: &str) -> String {
        format!(
            r#"{{"httpProxyConfig": {{"httpProxy": "http://proxy.corp.example:3128", {extra}}}}}"#
        )
    }

    fn b64(text: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(text)
    }

    #[test]
    fn reads_both_spellings_of_the_ca_key() {
        let pem = bundle(true);
        for key in TRUSTED_CA_KEYS {
            let found = Aks
                .read(&config(&format!(r#""{key}": "{}""#, b64(&pem))))
                .unwrap();
            assert_eq!(found.trusted_ca.as_deref(), Some(pem.as_str()), "{key}");
        }
        let same = format!(r#""trustedCa": "{0}", "trustedCA": "{0}""#, b64(&pem));
        assert!(Aks.read(&config(&same)).unwrap().trusted_ca.is_some());
        let differ = format!(
            r#""trustedCa": "{}", "trustedCA": "{}""#,
            b64(&pem),
            b64(&bundle(false))
        );
        assert!(Aks
            .read(&config(&differ))
            .unwrap_err()
            .detail
            .contains("Both `trustedCa` and `trustedCA`"));
    }

    /// A `trustedCa` that holds no certificate names the key it was read from.
    #[test]
    fn a_ca_that_is_no_certificate_names_the_key() {
        for (key, value, why) in [
            ("trustedCa", b64("not a certificate"), "Empty CA bundle"),
            ("trustedCA", b64("not a certificate"), "Empty CA bundle"),
            ("trustedCa", "%%%".to_owned(), "is not base64"),
            (
                "trustedCa",
                b64("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
                "Not a certificate",
            ),
        ] {
            let detail = Aks
                .read(&config(&format!(r#""{key}": "{value}""#)))
                .unwrap_err()
                .detail;
            assert!(detail.starts_with(&format!("`{key}`")), "{detail}");
            assert!(detail.contains(why), "{detail}");
        }
        let number = Aks.read(&config(r#""trustedCa": 42"#)).unwrap_err().detail;
        assert!(number.contains("`trustedCa` must be a string"), "{number}");
    }

    #[test]
    fn reads_the_fqdn_in_az_and_arm_spelling() {
        for key in ["privateFqdn", "privateFQDN"] {
            let text = format!(
                r#"{{"properties": {{"{key}": "x.privatelink.westeurope.azmk8s.io", "httpProxyConfig": {{"httpProxy": "http://p.example:3128"}}}}}}"#
            );
            let found = Aks.read(&text).unwrap();
            assert!(
                found
                    .cluster_entries
                    .iter()
                    .any(|(e, _)| e == "x.privatelink.westeurope.azmk8s.io"),
                "{key}"
            );
        }
    }

    #[test]
    fn a_disabled_proxy_is_not_imported() {
        let detail = Aks.read(&config(r#""enabled": false"#)).unwrap_err().detail;
        assert!(
            detail.contains("`httpProxyConfig.enabled` is false"),
            "{detail}"
        );
        assert!(Aks.read(&config(r#""enabled": true"#)).is_ok());
    }

    #[test]
    fn effective_only_entries_are_listed_as_added_by_aks() {
        let found = Aks.read(&config(
            r#""noProxy": ["registry.corp.example", "10.224.0.0/16"],
               "effectiveNoProxy": ["Registry.Corp.Example", "10.224.0.0/16", "10.225.0.0/16", "konnectivity", "not an entry"]"#,
        ))
        .unwrap();
        assert_eq!(
            found.no_proxy,
            [
                "registry.corp.example",
                "10.224.0.0/16",
                "10.225.0.0/16",
                "konnectivity"
            ]
        );
        let reason = |entry: &str| {
            found
                .cluster_entries
                .iter()
                .find(|(e, _)| e == entry)
                .map(|(_, why)| *why)
        };
        // A CIDR block AKS adds is the node network: `node_cidrs`.
        assert_eq!(reason("10.225.0.0/16"), Some(NODE_CIDR));
        assert_eq!(
            reason("konnectivity"),
            Some("AKS's in-cluster konnectivity service, injected by AKS")
        );
        assert_eq!(reason("10.224.0.0/16"), None);
    }
}
