//! Import from Giant Swarm: the `cluster` chart's values (or a
//! `<cluster>-cluster-values` Secret holding them) with
//! `global.connectivity.proxy`, the older `cluster.proxy` form, or the
//! `<cluster>-systemd-proxy` Secret with its html-escaped `containerdProxy` drop-in.

use base64::Engine as _;
use serde_json::Value;

use super::found::{Found, Importer, Recognised, Scanned, APISERVER_HOST, POD_CIDR, SERVICE_CIDR};
use super::input::{documents, error, split_list, strings, text_at};
use super::systemd;
use crate::render::capi::secret_key;
use crate::Finding;

/// The Giant Swarm importer.
#[derive(Debug, Clone, Copy)]
pub struct GiantSwarm;

impl Importer for GiantSwarm {
    fn kind(&self) -> &'static str {
        "giantswarm"
    }

    fn platform(&self) -> &'static str {
        "Giant Swarm"
    }

    /// The cluster chart's values, bare or in the Secret or ConfigMap Giant
    /// Swarm keeps them in, and the systemd-proxy Secret.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| {
            let kept = matches!(text_at(document, &["kind"]), Some("Secret" | "ConfigMap"))
                && ["-systemd-proxy", "-cluster-values", "-userconfig"]
                    .iter()
                    .any(|suffix| {
                        text_at(document, &["metadata", "name"])
                            .is_some_and(|name| name.ends_with(suffix))
                    });
            document.pointer("/global/connectivity/proxy").is_some()
                || document.pointer("/cluster/proxy").is_some()
                || kept
        })
    }

    fn reads(&self) -> &'static str {
        "cluster chart values, userconfig ConfigMap, cluster-values or systemd-proxy Secret"
    }

    /// Reads the proxy settings from a Secret, a ConfigMap (`data.values`, as
    /// the `<cluster>-userconfig` ConfigMap of an App holds them) or bare values.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let document = documents(text)?
            .into_iter()
            .next()
            .ok_or_else(|| error("The Giant Swarm input is empty."))?;
        let secret_name = text_at(&document, &["metadata", "name"]).map(str::to_owned);
        let payload = |key: &str| -> Result<Option<String>, Finding> {
            if let Some(value) = text_at(&document, &["stringData", key]) {
                return Ok(Some(value.to_owned()));
            }
            if text_at(&document, &["kind"]) == Some("ConfigMap") {
                return Ok(text_at(&document, &["data", key]).map(str::to_owned));
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
        if let Some(dropin) = payload(&secret_key("containerd.service"))? {
            let mut found = systemd::Systemd.read(&dropin)?;
            found.cluster_name = secret_name
                .as_deref()
                .and_then(crate::render::capi::cluster_of_secret)
                .map(str::to_owned);
            return Ok(found);
        }
        let values = match payload("values")? {
            Some(text) => documents(&text)?.into_iter().next().unwrap_or(Value::Null),
            None => document.clone(),
        };
        read_values(&values, secret_name.as_deref())
    }
}

/// Reads the chart values: the current `cluster` chart's
/// `global.connectivity.proxy` (`enabled`, `httpProxy`, `httpsProxy`,
/// `noProxy`; giantswarm/cluster-aws helm/cluster-aws/values.schema.json and
/// its README, "Proxy" section), or the older `cluster.proxy` (`http`,
/// `https`, `noProxy`) of the cluster-values Secret. Pod and service CIDRs
/// (`global.connectivity.network.{pods,services}.cidrBlocks`) and the API
/// domain (`<name>.<baseDomain>`) become cluster facts.
fn read_values(values: &Value, secret_name: Option<&str>) -> Result<Found, Finding> {
    let (proxy, http_key, https_key) = if let Some(p) = values.pointer("/global/connectivity/proxy")
    {
        (p, "httpProxy", "httpsProxy")
    } else if let Some(p) = values.pointer("/cluster/proxy") {
        (p, "http", "https")
    } else {
        return Err(error(
            "No `global.connectivity.proxy` (or older `cluster.proxy`) values found.",
        ));
    };
    if matches!(proxy.get("enabled"), Some(Value::Bool(false)))
        || text_at(proxy, &["enabled"]) == Some("false")
    {
        return Err(error(
            "`global.connectivity.proxy.enabled` is false: this cluster uses no proxy, so there is nothing to import.",
        ));
    }
    let no_proxy = match proxy.get("noProxy") {
        Some(Value::String(s)) => split_list(s),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let cluster_name = secret_name
        .and_then(|n| {
            n.strip_suffix("-cluster-values")
                .or_else(|| n.strip_suffix("-userconfig"))
        })
        .map(str::to_owned)
        .or_else(|| {
            values
                .pointer("/global/metadata/name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    let mut cluster_entries = Vec::new();
    let base = values
        .pointer("/global/connectivity/baseDomain")
        .or_else(|| values.get("baseDomain"))
        .and_then(Value::as_str);
    if let (Some(name), Some(base)) = (&cluster_name, base) {
        // The cluster's DNS zone, which holds its API server (`api.<name>.<base>`).
        cluster_entries.push((format!("{name}.{base}"), APISERVER_HOST));
    }
    for (pointer, why) in [
        ("/global/connectivity/network/pods/cidrBlocks", POD_CIDR),
        (
            "/global/connectivity/network/services/cidrBlocks",
            SERVICE_CIDR,
        ),
    ] {
        for cidr in strings(values.pointer(pointer)) {
            cluster_entries.push((cidr.to_owned(), why));
        }
    }
    Ok(Found {
        name_from: None,
        cluster_name,
        http_proxy: text_at(proxy, &[http_key]).map(str::to_owned),
        https_proxy: text_at(proxy, &[https_key]).map(str::to_owned),
        no_proxy,
        trusted_ca: None,
        cluster_entries,
        warnings: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use crate::import::Importer as _;
    use crate::no_proxy::Cluster;
    use crate::render::capi::Capi;
    use crate::render::tests::settings;
    use crate::render::trust::OsFamily;
    use crate::render::{Input, ProxySettings, Renderer, Secrets};

    /// The Secret the CAPI renderer's Secret variant writes, at any revision,
    /// reads back with its cluster's name (the `-r<revision>` suffix dropped).
    #[test]
    fn reads_the_cluster_back_from_the_capi_secret_variant() {
        for revision in [None, Some(1), Some(42)] {
            let capi = Capi {
                units: vec!["containerd.service".into()],
                os: OsFamily::Debian,
                base64_content: false,
                cluster_name: Some("prod-r1".to_owned()),
                namespace: "org-acme".to_owned(),
            };
            let settings = ProxySettings {
                revision,
                ..settings()
            };
            let rendered = capi
                .render(Input {
                    settings: &settings,
                    cluster: &Cluster::default(),
                    secrets: Secrets::Include,
                })
                .unwrap()
                .output;
            let found = super::GiantSwarm
                .read(rendered.secret_manifest.as_deref().unwrap())
                .unwrap();
            assert_eq!(
                found.cluster_name.as_deref(),
                Some("prod-r1"),
                "{revision:?}"
            );
        }
    }
}
