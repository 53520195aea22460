//! Import from a TKG cluster configuration file (`TKG_HTTP_PROXY`...), or
//! from a ClusterClass `Cluster` whose topology sets TKG's `proxy` variable
//! (`httpProxy`, `httpsProxy`, `noProxy` a list; vmware-tanzu/tanzu-framework
//! `packages/tkg-clusterclass-<infra>/bundle/config/upstream/base.yaml`, as
//! `clusterproxy_tkg_config.cluster_class_variable` renders it) and, with
//! it, the `trust` variable's `additionalTrustedCAs` item named `proxy`
//! (`providers/yttcc/lib/config_variable_association.star`). In a
//! ClusterClass cluster the variable holds the whole list: TKG appends
//! nothing to it, and the cluster's networks come from `spec.clusterNetwork`.

use serde_json::Value;

use super::capi::cluster_facts;
use super::found::{Found, Importer, Recognised, Scanned, CONTROL_PLANE, POD_CIDR, SERVICE_CIDR};
use super::input::{
    base64_pem, documents, error, first_shaped, items, optional_text, split_list, string_list,
    text_at, topology_variable,
};
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

    /// A cluster configuration file: flat `TKG_*` proxy variables; or a
    /// `Cluster` with TKG's `proxy` variable.
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| {
            proxy_variable(document).is_some()
                || [
                    "TKG_HTTP_PROXY",
                    "TKG_HTTPS_PROXY",
                    "TKG_HTTP_PROXY_ENABLED",
                ]
                .iter()
                .any(|key| document.get(key).is_some())
        })
    }

    fn reads(&self) -> &'static str {
        "cluster configuration file, or ClusterClass `Cluster` with the `proxy` variable"
    }

    /// Reads the proxy variables and the cluster's CIDRs.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let documents = documents(text)?;
        if let Some((cluster, proxy)) = first_shaped(&documents, proxy_variable) {
            return from_cluster_class(cluster, proxy);
        }
        let document = documents
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
            Some(b64) if !b64.trim().is_empty() => Some(base64_pem(&b64, "TKG_PROXY_CA_CERT")?),
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
            warnings: Vec::new(),
        })
    }

    fn trusted_ca_field(&self) -> &'static str {
        "TKG_PROXY_CA_CERT"
    }
}

/// Where TKG's `proxy` variable is, in findings.
const PROXY_VARIABLE: &str = "spec.topology.variables[proxy].value";

/// The `proxy` variable of a ClusterClass `Cluster`, in TKG's shape (the
/// CAREN shape, `http` and `https`, is the `caren` kind's).
fn proxy_variable(document: &Value) -> Option<&Value> {
    topology_variable(document, "proxy")
        .filter(|proxy| proxy.get("httpProxy").is_some() || proxy.get("httpsProxy").is_some())
}

/// The settings of a ClusterClass `Cluster`: the `proxy` variable, the
/// `trust` variable's CA named `proxy`, the `clusterNetwork` facts.
fn from_cluster_class(cluster: &Value, proxy: &Value) -> Result<Found, Finding> {
    let mut warnings = Vec::new();
    let trusted =
        topology_variable(cluster, "trust").map(|trust| items(trust.get("additionalTrustedCAs")));
    let trusted_ca = match trusted.unwrap_or_default() {
        [] => None,
        cas => match cas
            .iter()
            .find(|ca| text_at(ca, &["name"]) == Some("proxy"))
        {
            Some(ca) => {
                let field =
                    "`spec.topology.variables[trust].value.additionalTrustedCAs[proxy].data`";
                let data = text_at(ca, &["data"])
                    .ok_or_else(|| error(format!("{field} is not a string.")))?;
                Some(base64_pem(data, field)?)
            }
            None => {
                warnings.push("The `trust` variable holds CAs, none of them named `proxy`: none was imported as the proxy's CA; set `trusted_ca` if one of them is.".to_owned());
                None
            }
        },
    };
    let mut cluster_entries = Vec::new();
    cluster_facts(cluster, &mut cluster_entries);
    Ok(Found {
        cluster_name: text_at(cluster, &["metadata", "name"]).map(str::to_owned),
        name_from: Some("the Cluster document".to_owned()),
        http_proxy: optional_text(proxy, "httpProxy", PROXY_VARIABLE)?,
        https_proxy: optional_text(proxy, "httpsProxy", PROXY_VARIABLE)?,
        no_proxy: string_list(proxy, "noProxy", PROXY_VARIABLE)?,
        trusted_ca,
        cluster_entries,
        warnings,
    })
}
