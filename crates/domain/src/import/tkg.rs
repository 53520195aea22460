//! Import from a TKG cluster configuration file (`TKG_HTTP_PROXY`...).

use super::found::{Found, Importer, Recognised, Scanned, CONTROL_PLANE, POD_CIDR, SERVICE_CIDR};
use super::input::{documents, error, split_list};
use crate::render::tkg::appended;
use crate::render::Cluster;
use crate::Finding;

/// The TKG importer.
#[derive(Debug, Clone, Copy)]
pub struct Tkg;

impl Importer for Tkg {
    fn kind(&self) -> &'static str {
        "tkg"
    }

    fn platform(&self) -> &'static str {
        "TKG"
    }

    /// A cluster configuration file: flat `TKG_*` proxy variables.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| {
            [
                "TKG_HTTP_PROXY",
                "TKG_HTTPS_PROXY",
                "TKG_HTTP_PROXY_ENABLED",
            ]
            .iter()
            .any(|key| document.get(key).is_some())
        })
    }

    fn reads(&self) -> &'static str {
        "cluster configuration file"
    }

    /// Reads the proxy variables and the cluster's CIDRs.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let document = documents(text)?
            .into_iter()
            .next()
            .ok_or_else(|| error("The TKG cluster configuration is empty."))?;
        let get = |key: &str| -> Option<String> {
            match document.get(key)? {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Bool(b) => Some(b.to_string()),
                serde_json::Value::Null => None,
                other => Some(other.to_string()),
            }
        };
        if get("TKG_HTTP_PROXY_ENABLED").is_some_and(|v| v.trim() == "false") {
            return Err(error(
                "TKG_HTTP_PROXY_ENABLED is false: this cluster configuration uses no proxy.",
            ));
        }
        let trusted_ca = match get("TKG_PROXY_CA_CERT") {
            Some(b64) if !b64.trim().is_empty() => {
                use base64::Engine as _;
                let pem = base64::engine::general_purpose::STANDARD
                    .decode(b64.trim())
                    .map_err(|_| error("TKG_PROXY_CA_CERT is not base64."))?;
                Some(
                    String::from_utf8(pem)
                        .map_err(|_| error("TKG_PROXY_CA_CERT does not decode to PEM text."))?,
                )
            }
            _ => None,
        };
        let mut cluster_entries = Vec::new();
        for (key, why) in [("SERVICE_CIDR", SERVICE_CIDR), ("CLUSTER_CIDR", POD_CIDR)] {
            for cidr in get(key).map(|v| split_list(&v)).unwrap_or_default() {
                cluster_entries.push((cidr, why));
            }
        }
        // TKG always appends these to TKG_NO_PROXY itself (the same list the TKG
        // renderer leaves out). What it appends from other variables (VPC/VNet
        // CIDRs) stays in the profile: the renderer does not emit those.
        for entry in appended(&Cluster::default()) {
            cluster_entries.push((entry, "appended by TKG itself"));
        }
        if let Some(server) = get("VSPHERE_CONTROL_PLANE_ENDPOINT") {
            cluster_entries.push((server, CONTROL_PLANE));
        }
        Ok(Found {
            name_from: None,
            cluster_name: get("CLUSTER_NAME"),
            http_proxy: get("TKG_HTTP_PROXY"),
            https_proxy: get("TKG_HTTPS_PROXY"),
            no_proxy: get("TKG_NO_PROXY")
                .map(|v| split_list(&v))
                .unwrap_or_default(),
            trusted_ca,
            cluster_entries,
        })
    }

    fn trusted_ca_field(&self) -> &'static str {
        "TKG_PROXY_CA_CERT"
    }
}
