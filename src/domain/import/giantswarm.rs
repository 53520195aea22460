//! Import from Giant Swarm: the `<cluster>-cluster-values` Secret (or its
//! values YAML) with `cluster.proxy.{http,https,noProxy}`, or the
//! `<cluster>-systemd-proxy` Secret with its html-escaped `containerdProxy` drop-in.

use base64::Engine as _;
use serde_json::Value;

use super::{documents, error, split_list, systemd, text_at, Found};
use crate::domain::Finding;

/// Reads the proxy settings.
pub fn read(text: &str) -> Result<Found, Finding> {
    let document = documents(text)?
        .into_iter()
        .next()
        .ok_or_else(|| error("The Giant Swarm input is empty."))?;
    let secret_name = text_at(&document, &["metadata", "name"]).map(str::to_owned);
    let payload = |key: &str| -> Result<Option<String>, Finding> {
        if let Some(value) = text_at(&document, &["stringData", key]) {
            return Ok(Some(value.to_owned()));
        }
        match text_at(&document, &["data", key]) {
            Some(b64) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(b64.split_whitespace().collect::<String>())
                    .map_err(|_| error(format!("data.{key} is not base64.")))?;
                String::from_utf8(bytes)
                    .map(Some)
                    .map_err(|_| error(format!("data.{key} is not text.")))
            }
            None => Ok(None),
        }
    };
    if let Some(dropin) = payload("containerdProxy")? {
        let mut found = systemd::read(&dropin)?;
        found.cluster_name = secret_name
            .as_deref()
            .and_then(|n| n.strip_suffix("-systemd-proxy"))
            .map(str::to_owned);
        return Ok(found);
    }
    let values = match payload("values")? {
        Some(text) => documents(&text)?.into_iter().next().unwrap_or(Value::Null),
        None => document.clone(),
    };
    let proxy = values
        .pointer("/cluster/proxy")
        .or_else(|| values.pointer("/global/connectivity/proxy"))
        .ok_or_else(|| {
            error("No `cluster.proxy` (or `global.connectivity.proxy`) values found.")
        })?;
    let no_proxy = match proxy.get("noProxy") {
        Some(Value::String(s)) => split_list(s),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let cluster_name = secret_name
        .as_deref()
        .and_then(|n| n.strip_suffix("-cluster-values"))
        .map(str::to_owned)
        .or_else(|| {
            values
                .pointer("/global/metadata/name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    let mut cluster_entries = Vec::new();
    if let (Some(name), Some(base)) = (
        &cluster_name,
        values.get("baseDomain").and_then(Value::as_str),
    ) {
        cluster_entries.push((format!("{name}.{base}"), "API domain of this cluster"));
    }
    Ok(Found {
        cluster_name,
        http_proxy: text_at(proxy, &["http"]).map(str::to_owned),
        https_proxy: text_at(proxy, &["https"]).map(str::to_owned),
        no_proxy,
        trusted_ca: None,
        cluster_entries,
    })
}
