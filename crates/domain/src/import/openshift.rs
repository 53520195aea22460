//! Import from OpenShift: the cluster `Proxy` (`config.openshift.io/v1`,
//! `spec.httpProxy`, `spec.httpsProxy`, `spec.noProxy` comma-separated,
//! `spec.trustedCA.name`; openshift/api config/v1/types_proxy.go), with the
//! trusted CA from a ConfigMap of that name in the same input
//! (`ca-bundle.crt`); or an `install-config.yaml` (`proxy:` block,
//! `additionalTrustBundle`, `metadata.name`, `baseDomain`,
//! `networking.{clusterNetwork[].cidr, serviceNetwork[], machineNetwork[].cidr}`;
//! openshift/installer pkg/types/installconfig.go), bare or inside the
//! `cluster-config-v1` ConfigMap of kube-system (`data.install-config`).
//! `status.noProxy` is not read: the operator computes it from `spec.noProxy`.

use crate::redact::quoted;
use serde_json::Value;

use super::found::{Found, Importer, Recognised, Scanned, NODE_CIDR, POD_CIDR, SERVICE_CIDR};
use super::input::{documents, error, items, split_list, text_at};
use crate::Finding;

/// What the network operator adds itself (besides the generic entries).
const OPERATOR_ADDED: &str = "added by OpenShift's network operator";

/// The OpenShift importer.
#[derive(Debug, Clone, Copy)]
pub struct OpenShift;

impl Importer for OpenShift {
    fn kind(&self) -> &'static str {
        "openshift"
    }

    fn platform(&self) -> &'static str {
        "OpenShift"
    }

    /// The Proxy object, the install-config (alone or in the
    /// cluster-config-v1 ConfigMap).
    fn recognises(&self, file: &Scanned) -> Recognised {
        file.any_document(|document| {
            let api = text_at(document, &["apiVersion"]).unwrap_or_default();
            (text_at(document, &["kind"]) == Some("Proxy")
                && api.starts_with("config.openshift.io/"))
                || document.pointer("/data/install-config").is_some()
                || document.get("proxy").is_some_and(|proxy| {
                    proxy.get("httpProxy").is_some() || proxy.get("httpsProxy").is_some()
                })
        })
    }

    fn reads(&self) -> &'static str {
        "the `config.openshift.io/v1` Proxy with its trustedCA ConfigMap, an install-config, or the `cluster-config-v1` ConfigMap"
    }

    /// Reads the first Proxy or install-config in `text`.
    fn read(&self, text: &str) -> Result<Found, Finding> {
        let all = documents(text)?;
        for document in &all {
            if text_at(document, &["kind"]) == Some("Proxy") {
                return from_proxy(document, &all);
            }
            if let Some(install) = text_at(document, &["data", "install-config"]) {
                let inner = documents(install)?;
                if let Some(config) = inner.first() {
                    return from_install_config(config);
                }
            }
            if is_install_config(document) {
                return from_install_config(document);
            }
        }
        Err(error(
            "No OpenShift Proxy object, install-config.yaml with a `proxy:` block, or cluster-config-v1 ConfigMap found.",
        ))
    }
}

/// A whole install-config (`proxy:` and `baseDomain`), or a fragment of one:
/// a `proxy:` block that names a proxy, as CI scripts append and as
/// `install_config_yaml` renders it (with `additionalTrustBundle` but no
/// `apiVersion` nor `baseDomain`).
fn is_install_config(document: &Value) -> bool {
    document.get("proxy").is_some_and(|proxy| {
        document.get("baseDomain").is_some()
            || ["httpProxy", "httpsProxy"]
                .iter()
                .any(|key| proxy.get(key).is_some())
    })
}

fn from_proxy(proxy: &Value, all: &[Value]) -> Result<Found, Finding> {
    let spec = proxy
        .get("spec")
        .ok_or_else(|| error("The Proxy has no `spec`."))?;
    let trusted_ca = match text_at(spec, &["trustedCA", "name"]).filter(|n| !n.is_empty()) {
        None => None,
        Some(name) => {
            let config_map = all
                .iter()
                .find(|d| {
                    text_at(d, &["kind"]) == Some("ConfigMap")
                        && text_at(d, &["metadata", "name"]) == Some(name)
                })
                .ok_or_else(|| {
                    error(format!(
                        "The Proxy's trustedCA names the ConfigMap {name}; add that ConfigMap (`oc get configmap -n openshift-config {name} -o yaml`) to the input, separated by `---`.", name = quoted(name)))
                })?;
            Some(
                text_at(config_map, &["data", "ca-bundle.crt"])
                    .ok_or_else(|| {
                        error(format!(
                            "The ConfigMap {name} has no `ca-bundle.crt`.",
                            name = quoted(name)
                        ))
                    })?
                    .to_owned(),
            )
        }
    };
    Ok(Found {
        name_from: None,
        cluster_name: None,
        http_proxy: text_at(spec, &["httpProxy"]).map(str::to_owned),
        https_proxy: text_at(spec, &["httpsProxy"]).map(str::to_owned),
        no_proxy: text_at(spec, &["noProxy"])
            .map(split_list)
            .unwrap_or_default(),
        trusted_ca,
        cluster_entries: operator_generic(),
        warnings: Vec::new(),
    })
}

fn from_install_config(config: &Value) -> Result<Found, Finding> {
    let proxy = config
        .get("proxy")
        .ok_or_else(|| error("The install-config has no `proxy:` block."))?;
    let name = text_at(config, &["metadata", "name"]);
    let mut entries = operator_generic();
    for (pointer, key, why) in [
        ("/networking/clusterNetwork", Some("cidr"), POD_CIDR),
        ("/networking/serviceNetwork", None, SERVICE_CIDR),
        ("/networking/machineNetwork", Some("cidr"), NODE_CIDR),
    ] {
        for item in items(config.pointer(pointer)) {
            let value = match key {
                Some(key) => item.get(key).and_then(Value::as_str),
                None => item.as_str(),
            };
            entries.extend(value.map(|v| (v.to_owned(), why)));
        }
    }
    if let (Some(name), Some(domain)) = (name, text_at(config, &["baseDomain"])) {
        entries.push((format!("api-int.{name}.{domain}"), OPERATOR_ADDED));
    }
    Ok(Found {
        name_from: None,
        cluster_name: name.map(str::to_owned),
        http_proxy: text_at(proxy, &["httpProxy"]).map(str::to_owned),
        https_proxy: text_at(proxy, &["httpsProxy"]).map(str::to_owned),
        no_proxy: text_at(proxy, &["noProxy"])
            .map(split_list)
            .unwrap_or_default(),
        trusted_ca: text_at(config, &["additionalTrustBundle"]).map(str::to_owned),
        cluster_entries: entries,
        warnings: Vec::new(),
    })
}

/// The operator's own entries that the generic list lacks.
fn operator_generic() -> Vec<(String, &'static str)> {
    [".cluster.local", "metadata", "metadata.google.internal."]
        .into_iter()
        .map(|e| (e.to_owned(), OPERATOR_ADDED))
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::import::parse;

    fn fixture(file: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/../../tests/fixtures/import/openshift/{file}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn proxy_object_with_its_ca() {
        let i = parse("openshift", &fixture("proxy-cluster.yaml")).unwrap();
        assert_eq!(i.name, "openshift");
        assert_eq!(
            i.http_proxy.as_deref(),
            Some("http://proxy.corp.example:3128")
        );
        assert_eq!(
            (i.username.as_deref(), i.password.as_deref()),
            (Some("svc-ocp"), Some("s3cr@t"))
        );
        assert_eq!(i.no_proxy, [".corp.example", "registry.corp.example"]);
        let dropped: Vec<&str> = i.dropped.iter().map(|d| d.entry.as_str()).collect();
        assert_eq!(dropped, [".cluster.local", "localhost"]);
        assert!(i
            .trusted_ca
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----"));
        let missing = fixture("proxy-cluster.yaml");
        let without_ca = &missing[..missing.find("\n---").unwrap()];
        let error = parse("openshift", without_ca).unwrap_err();
        assert!(
            error[0].detail.contains("user-ca-bundle"),
            "{}",
            error[0].detail
        );
    }

    /// A fragment with only `proxy:` and `additionalTrustBundle` (CI
    /// scripts', and `install_config_yaml`'s shape) is an install-config.
    #[test]
    fn install_config_fragment() {
        let i = parse("openshift", &fixture("install-config-fragment.yaml")).unwrap();
        assert_eq!(i.name, "openshift");
        assert_eq!(
            i.http_proxy.as_deref(),
            Some("http://proxy.corp.example:3128")
        );
        assert_eq!(i.no_proxy, [".corp.example", "registry.corp.example"]);
        assert!(i
            .trusted_ca
            .unwrap()
            .starts_with("-----BEGIN CERTIFICATE-----"));
        // A `proxy:` that names no proxy is still no install-config.
        assert!(parse("openshift", "proxy: {}\nadditionalTrustBundle: x\n").is_err());
    }

    #[test]
    fn install_config_and_cluster_config_v1() {
        let bare = parse("openshift", &fixture("install-config.yaml")).unwrap();
        let wrapped = parse("openshift", &fixture("cluster-config-v1.yaml")).unwrap();
        assert_eq!(bare, wrapped);
        assert_eq!(bare.name, "ocp-prod");
        assert_eq!(
            bare.https_proxy.as_deref(),
            Some("http://proxy.corp.example:3129")
        );
        assert_eq!(bare.no_proxy, [".corp.example", "10.20.0.0/16"]);
        let reasons: Vec<(&str, &str)> = bare
            .dropped
            .iter()
            .map(|d| (d.entry.as_str(), d.reason.as_str()))
            .collect();
        assert_eq!(
            reasons,
            [
                ("10.0.0.0/16", "added by the renderers from `node_cidrs`"),
                (
                    "api-int.ocp-prod.corp.example",
                    "added by OpenShift's network operator"
                ),
                (
                    "172.30.0.0/16",
                    "added by the renderers from `service_cidrs`"
                ),
            ]
        );
        assert!(bare.trusted_ca.is_some());
        assert!(parse("openshift", "kind: ConfigMap\ndata: {}\n").is_err());
    }

    /// What the OpenShift renderer writes imports back to the same settings:
    /// the Proxy with its CA ConfigMap, and the install-config fragment.
    #[test]
    fn rendered_artifacts_import_back() {
        use crate::render::openshift::OpenShift;
        use crate::render::tests::{settings, NASTY_PASSWORD};
        use crate::render::{Cluster, Input, Renderer, Secrets};
        use crate::trusted_ca::{tests::bundle, TrustedCa};
        let mut s = settings();
        s.trusted_ca = Some(TrustedCa::parse(&bundle(true)).unwrap());
        let rendered = OpenShift::default()
            .render(Input {
                settings: &s,
                cluster: &Cluster::default(),
                secrets: Secrets::Include,
            })
            .unwrap()
            .output;
        let manifest = format!(
            "{}---\n{}",
            rendered.proxy_manifest(),
            rendered.ca_config_map().unwrap()
        );
        let install = format!(
            "baseDomain: corp.example\nmetadata:\n  name: x\n{}",
            rendered.install_config()
        );
        for text in [manifest, install] {
            let i = parse("openshift", &text).unwrap();
            assert_eq!(
                i.http_proxy.as_deref(),
                Some("http://proxy.corp.example:3128")
            );
            assert_eq!(
                i.https_proxy.as_deref(),
                Some("http://proxy.corp.example:3129")
            );
            assert_eq!(i.username.as_deref(), Some("svc-proxy"));
            assert_eq!(i.password.as_deref(), Some(NASTY_PASSWORD));
            assert_eq!(i.trusted_ca, Some(s.trusted_ca.as_ref().unwrap().to_pem()));
            let kept: Vec<&String> = s
                .no_proxy
                .iter()
                .filter(|e| i.no_proxy.contains(e))
                .collect();
            assert_eq!(kept, i.no_proxy.iter().collect::<Vec<_>>());
            assert!(i.no_proxy.contains(&"registry.corp.example".to_owned()));
        }
    }
}
