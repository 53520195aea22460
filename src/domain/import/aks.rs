//! Import from AKS: `az aks show -o json` output (also the ARM form with
//! `properties`), or a bare `httpProxyConfig` object.

use super::{documents, error, text_at, Found};
use crate::domain::Finding;

/// Reads the proxy settings and the cluster's own entries.
pub fn read(text: &str) -> Result<Found, Finding> {
    let document = documents(text)?
        .into_iter()
        .next()
        .ok_or_else(|| error("The AKS input is empty."))?;
    let properties = document.get("properties").unwrap_or(&document);
    let config = properties
        .get("httpProxyConfig")
        .or_else(|| document.get("httpProxy").map(|_| &document))
        .filter(|c| !c.is_null())
        .ok_or_else(|| error("No `httpProxyConfig` found: give `az aks show -o json` output or an httpProxyConfig object."))?;
    let strings = |value: Option<&serde_json::Value>| -> Vec<String> {
        value
            .and_then(serde_json::Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let network = properties.get("networkProfile");
    let mut cluster_entries: Vec<(String, &'static str)> = Vec::new();
    for (key, why) in [
        ("podCidr", "pod CIDR of this cluster"),
        ("serviceCidr", "service CIDR of this cluster"),
    ] {
        if let Some(cidr) = network.and_then(|n| n.get(key)).and_then(|v| v.as_str()) {
            cluster_entries.push((cidr.to_owned(), why));
        }
    }
    for (key, why) in [
        ("podCidrs", "pod CIDR of this cluster"),
        ("serviceCidrs", "service CIDR of this cluster"),
    ] {
        for cidr in strings(network.and_then(|n| n.get(key))) {
            cluster_entries.push((cidr, why));
        }
    }
    for key in ["fqdn", "privateFqdn", "azurePortalFqdn"] {
        if let Some(fqdn) = properties.get(key).and_then(|v| v.as_str()) {
            cluster_entries.push((
                fqdn.to_owned(),
                "apiserver FQDN of this cluster, injected by AKS",
            ));
        }
    }
    cluster_entries.push((
        "konnectivity".to_owned(),
        "AKS's in-cluster konnectivity service, injected by AKS",
    ));
    let trusted_ca = match text_at(config, &["trustedCa"]) {
        Some(b64) => {
            use base64::Engine as _;
            let pem = base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .map_err(|_| error("`trustedCa` is not base64."))?;
            Some(
                String::from_utf8(pem)
                    .map_err(|_| error("`trustedCa` does not decode to PEM text."))?,
            )
        }
        None => None,
    };
    Ok(Found {
        cluster_name: document
            .get("name")
            .and_then(|v| v.as_str())
            .map(str::to_owned),
        http_proxy: text_at(config, &["httpProxy"]).map(str::to_owned),
        https_proxy: text_at(config, &["httpsProxy"]).map(str::to_owned),
        no_proxy: strings(config.get("noProxy")),
        trusted_ca,
        cluster_entries,
    })
}
