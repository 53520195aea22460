//! Helm values in the shapes charts commonly read:
//! - cert-manager (jetstack/cert-manager chart, values.yaml of v1.16:
//!   top-level `http_proxy`, `https_proxy`, `no_proxy` strings, set on the
//!   controller; with a trusted CA, its `volumes`, `volumeMounts` and
//!   `extraEnv` mount the bundle and point `SSL_CERT_FILE` at it). cert-manager talks to the API server by the `kubernetes`
//!   Service ClusterIP, and host names do not match IP connections, so its
//!   `no_proxy` always holds that literal address (cert-manager issue 4173);
//! - Giant Swarm's `cluster` chart (giantswarm/cluster-aws
//!   helm/cluster-aws/values.schema.json): `global.connectivity.proxy`
//!   `{enabled, httpProxy, httpsProxy, noProxy}` and the older cluster-values
//!   `cluster.proxy` `{http, https, noProxy}` that chart-operator reads;
//! - `global.proxy`, one proxy URL, as New Relic's charts read it
//!   (newrelic/helm-charts library/common-library templates/_proxy.tpl,
//!   `newrelic.common.proxy`: `proxy`, else `global.proxy`); those charts take
//!   no NO_PROXY list and talk HTTPS, so the value is the HTTPS proxy;
//! - `extraEnv` and `env` lists of `name`/`value` objects, as many charts take.
//!
//! With a [`CredentialsSecret`], the shapes that can read a Secret do: the
//! `extraEnv` list, and cert-manager's values, whose `http_proxy` and
//! `https_proxy` become `HTTP_PROXY`/`HTTPS_PROXY` `secretKeyRef` entries of
//! its `extraEnv` (the chart adds `extraEnv` to the controller's env). The
//! Giant Swarm and New Relic values take the URL as a plain string only.

use crate::warning::Warning;
use serde_json::{json, Value};

use super::pod_env::{CredentialsSecret, EnvValue, SecretOutput};
use super::{
    pod_env, yaml, Cluster, Held, HeldFile, Input, ProxySettings, Rendered, Renderer, Rendering,
    Secrets,
};
use crate::proxy_url::ProxyUrl;
use crate::{Finding, InputField};

/// Helm values: the ConfigMap that holds the trusted CA.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Helm {
    /// Name of the CA ConfigMap the values mount.
    pub config_map_name: String,
    /// Its namespace, when given.
    pub namespace: Option<String>,
    /// The Secret the proxy URLs are read from, when given.
    pub credentials_secret: Option<CredentialsSecret>,
}

/// The values of each chart family, and the CA ConfigMap they mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelmValues {
    /// See [`cert_manager`].
    pub cert_manager: String,
    /// See [`giantswarm_global`].
    pub giantswarm_global: String,
    /// See [`giantswarm_cluster`].
    pub giantswarm_cluster: String,
    /// See [`global_proxy`].
    pub global_proxy: String,
    /// See [`extra_env`].
    pub extra_env: String,
    /// The CA ConfigMap (see [`pod_env::ca_config_map`]).
    pub ca_config_map: Option<String>,
    /// The Secret (see [`CredentialsSecret::render`]).
    pub credentials_secret: Option<SecretOutput>,
}

impl Renderer for Helm {
    type Output = HelmValues;

    const MODULE: &'static str = "helm";

    fn sample() -> Self {
        Helm {
            config_map_name: "proxy-ca".to_owned(),
            namespace: None,
            credentials_secret: None,
        }
    }

    /// Every shape; a warning when cert-manager's list cannot hold the
    /// `kubernetes` ClusterIP (no `service_cidrs`).
    fn render(&self, input: Input) -> Rendering<HelmValues> {
        let (settings, cluster, secrets) = (input.settings, input.cluster, input.secrets);
        let mut warnings = Vec::new();
        if cluster.kubernetes_service_ips().is_empty() {
            warnings.push(Finding::warning(
                Warning::CertManagerServiceIp,
                InputField::ServiceCidrs,
                "cert-manager needs the kubernetes ClusterIP",
                "cert-manager reaches the API server by the `kubernetes` Service ClusterIP; without `service_cidrs` its `no_proxy` cannot list that address, and its API calls may go through the proxy.",
            ));
        }
        let reference = self.credentials_secret.as_ref();
        Ok(Rendered {
            output: HelmValues {
                cert_manager: cert_manager(
                    settings,
                    cluster,
                    &self.config_map_name,
                    secrets,
                    reference,
                ),
                giantswarm_global: giantswarm_global(settings, secrets),
                giantswarm_cluster: giantswarm_cluster(settings, secrets),
                global_proxy: global_proxy(settings, secrets),
                extra_env: extra_env(settings, secrets, reference),
                ca_config_map: pod_env::ca_config_map(
                    settings,
                    &self.config_map_name,
                    self.namespace.as_deref(),
                ),
                credentials_secret: reference.map(|secret| secret.render(settings, secrets)),
            },
            warnings,
        })
    }

    /// Giant Swarm's values, current and older; the other charts' values
    /// are pieces of charts that hold much else.
    fn held(&self, output: &HelmValues) -> Held {
        Held::Files(vec![
            HeldFile::new(
                "values.yaml",
                "giantswarm",
                output.giantswarm_global.clone(),
                false,
            ),
            HeldFile::new(
                "cluster-values.yaml",
                "giantswarm",
                output.giantswarm_cluster.clone(),
                false,
            ),
        ])
    }
}

/// cert-manager's list: the merged list, plus each `kubernetes` ClusterIP
/// it lacks (the merge may have left it out as covered by a CIDR).
pub fn cert_manager_no_proxy(settings: &ProxySettings, cluster: &Cluster) -> Vec<String> {
    let mut list = settings.no_proxy.clone();
    for ip in cluster.kubernetes_service_ips() {
        let ip = ip.to_string();
        if !list.contains(&ip) {
            list.push(ip);
        }
    }
    list
}

fn url(which: &Option<ProxyUrl>, secrets: Secrets) -> Value {
    which
        .as_ref()
        .map_or(Value::Null, |u| json!(ProxySettings::url(u, secrets)))
}

/// cert-manager's values: `http_proxy`, `https_proxy`, `no_proxy`, and with
/// a trusted CA the ConfigMap `config_map` mounted read-only at
/// [`pod_env::CA_MOUNT_PATH`] with `SSL_CERT_FILE` (Go's variable) pointing
/// at it. With `reference`, the proxies are `extraEnv` entries that read it.
pub fn cert_manager(
    settings: &ProxySettings,
    cluster: &Cluster,
    config_map: &str,
    secrets: Secrets,
    reference: Option<&CredentialsSecret>,
) -> String {
    let mut values = serde_json::Map::new();
    let mut extra_env = Vec::new();
    for (variable, value, proxy) in [
        ("HTTP_PROXY", "http_proxy", &settings.http_proxy),
        ("HTTPS_PROXY", "https_proxy", &settings.https_proxy),
    ] {
        match (proxy, reference, CredentialsSecret::key_of(variable)) {
            (None, ..) => {}
            (Some(_), Some(secret), Some(key)) => extra_env.push(pod_env::env_var_json(
                variable,
                &EnvValue::SecretKey {
                    secret: secret.name.clone(),
                    key,
                },
            )),
            (Some(_), ..) => {
                values.insert(value.into(), url(proxy, secrets));
            }
        }
    }
    values.insert(
        "no_proxy".into(),
        json!(cert_manager_no_proxy(settings, cluster).join(",")),
    );
    if settings.trusted_ca.is_some() {
        values.insert(
            "volumes".into(),
            json!([{"name": pod_env::CA_VOLUME, "configMap": {"name": config_map}}]),
        );
        values.insert(
            "volumeMounts".into(),
            json!([{"name": pod_env::CA_VOLUME, "mountPath": pod_env::CA_MOUNT_PATH, "readOnly": true}]),
        );
        extra_env.push(json!({"name": "SSL_CERT_FILE", "value": pod_env::ca_file_path()}));
    }
    if !extra_env.is_empty() {
        values.insert("extraEnv".into(), Value::Array(extra_env));
    }
    yaml::to_string(&Value::Object(values))
}

/// Giant Swarm's `global.connectivity.proxy` values.
pub fn giantswarm_global(settings: &ProxySettings, secrets: Secrets) -> String {
    let mut proxy = serde_json::Map::new();
    proxy.insert("enabled".into(), json!(true));
    if settings.http_proxy.is_some() {
        proxy.insert("httpProxy".into(), url(&settings.http_proxy, secrets));
    }
    if settings.https_proxy.is_some() {
        proxy.insert("httpsProxy".into(), url(&settings.https_proxy, secrets));
    }
    proxy.insert("noProxy".into(), json!(settings.no_proxy_value()));
    yaml::to_string(&json!({"global": {"connectivity": {"proxy": Value::Object(proxy)}}}))
}

/// The older `cluster.proxy` values of the cluster-values Secret.
pub fn giantswarm_cluster(settings: &ProxySettings, secrets: Secrets) -> String {
    let mut proxy = serde_json::Map::new();
    if settings.http_proxy.is_some() {
        proxy.insert("http".into(), url(&settings.http_proxy, secrets));
    }
    if settings.https_proxy.is_some() {
        proxy.insert("https".into(), url(&settings.https_proxy, secrets));
    }
    proxy.insert("noProxy".into(), json!(settings.no_proxy_value()));
    yaml::to_string(&json!({"cluster": {"proxy": Value::Object(proxy)}}))
}

/// New Relic's `global.proxy`: the HTTPS proxy URL (the HTTP one when
/// only that is set).
pub fn global_proxy(settings: &ProxySettings, secrets: Secrets) -> String {
    let proxy = settings
        .https_proxy
        .as_ref()
        .or(settings.http_proxy.as_ref());
    yaml::to_string(&json!({"global": {"proxy": url(&proxy.cloned(), secrets)}}))
}

/// An `extraEnv:` list (the pod env entries, CA variables included).
pub fn extra_env(
    settings: &ProxySettings,
    secrets: Secrets,
    reference: Option<&CredentialsSecret>,
) -> String {
    yaml::to_string(&json!({"extraEnv": pod_env::env_json(settings, secrets, reference)}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::tests::{golden, settings};

    /// cert-manager's `extraEnv` entries, plain and with a Secret reference:
    /// none has both `value` and `valueFrom` (the API server refuses that).
    /// Against Kubernetes' core/v1 `EnvVar`: tests/oracles/upstream_schemas.rs.
    #[test]
    fn cert_manager_extra_env_takes_a_value_or_a_reference() {
        let mut s = settings();
        s.trusted_ca = Some(crate::render::openshift::tests::fixed_ca());
        let reference = pod_env::tests::reference();
        for secrets in [Secrets::Include, Secrets::Redact] {
            for reference in [None, Some(&reference)] {
                let values: serde_json::Value = serde_yaml_ng::from_str(&cert_manager(
                    &s,
                    &Cluster::default(),
                    "proxy-ca",
                    secrets,
                    reference,
                ))
                .unwrap();
                let entries = values["extraEnv"].as_array().unwrap();
                assert!(!entries.is_empty(), "{values}");
                for entry in entries {
                    assert!(
                        entry.get("value").is_none() || entry.get("valueFrom").is_none(),
                        "{entry}"
                    );
                }
            }
        }
    }

    #[test]
    fn shapes_parse_back() {
        let s = settings();
        let services = Cluster {
            service_cidrs: vec!["10.96.0.0/12".to_owned()],
            ..Cluster::default()
        };
        let helm = Helm {
            config_map_name: "proxy-ca".into(),
            namespace: None,
            credentials_secret: None,
        };
        let rendered = helm
            .render(Input {
                settings: &s,
                cluster: &services,
                secrets: Secrets::Redact,
            })
            .unwrap();
        let cm = rendered.output.cert_manager;
        golden("helm/cert-manager.yaml", &cm);
        let v: Value = serde_yaml_ng::from_str(&cm).unwrap();
        let list: Vec<&str> = v["no_proxy"].as_str().unwrap().split(',').collect();
        assert!(list.contains(&"10.96.0.1"), "{list:?}");
        assert_eq!(
            v["http_proxy"],
            "http://svc-proxy:***@proxy.corp.example:3128"
        );
        assert!(rendered.warnings.is_empty());
        assert!(v.get("volumes").is_none());
        let mut with_ca = s.clone();
        with_ca.trusted_ca = Some(crate::render::openshift::tests::fixed_ca());
        let v: Value = serde_yaml_ng::from_str(&cert_manager(
            &with_ca,
            &services,
            "proxy-ca",
            Secrets::Redact,
            None,
        ))
        .unwrap();
        assert_eq!(v["volumes"][0]["configMap"]["name"], "proxy-ca");
        assert_eq!(v["volumes"][0]["name"], v["volumeMounts"][0]["name"]);
        assert_eq!(
            v["extraEnv"][0]["value"],
            format!(
                "{}/{}",
                v["volumeMounts"][0]["mountPath"].as_str().unwrap(),
                pod_env::CA_KEY
            )
        );
        let without = helm.render(Input {
            settings: &s,
            cluster: &Cluster::default(),
            secrets: Secrets::Redact,
        });
        assert_eq!(
            without.unwrap().warnings[0].location,
            Some(InputField::ServiceCidrs.into())
        );

        let gs = giantswarm_global(&s, Secrets::Include);
        golden(
            "helm/giantswarm-global.yaml",
            &giantswarm_global(&s, Secrets::Redact),
        );
        let v: Value = serde_yaml_ng::from_str(&gs).unwrap();
        let proxy = &v["global"]["connectivity"]["proxy"];
        assert_eq!(proxy["enabled"], true);
        assert_eq!(proxy["noProxy"], s.no_proxy_value());
        assert!(proxy["httpsProxy"].as_str().unwrap().contains("p%2540ss"));

        let old: Value = serde_yaml_ng::from_str(&giantswarm_cluster(&s, Secrets::Redact)).unwrap();
        assert_eq!(
            old["cluster"]["proxy"]["http"],
            "http://svc-proxy:***@proxy.corp.example:3128"
        );

        let global: Value = serde_yaml_ng::from_str(&global_proxy(&s, Secrets::Redact)).unwrap();
        assert_eq!(
            global["global"]["proxy"],
            "http://svc-proxy:***@proxy.corp.example:3129"
        );

        let env: Value = serde_yaml_ng::from_str(&extra_env(&s, Secrets::Redact, None)).unwrap();
        assert_eq!(
            env["extraEnv"],
            pod_env::env_json(&s, Secrets::Redact, None)
        );
    }

    /// With a Secret reference: cert-manager's and the `extraEnv` values
    /// hold no credential and read the Secret; the other shapes, which take
    /// no reference, are unchanged.
    #[test]
    fn secret_reference_values() {
        let mut s = settings();
        s.trusted_ca = Some(crate::render::openshift::tests::fixed_ca());
        let services = Cluster {
            service_cidrs: vec!["10.96.0.0/12".to_owned()],
            ..Cluster::default()
        };
        let reference = pod_env::tests::reference();
        let helm = Helm {
            config_map_name: "proxy-ca".into(),
            namespace: None,
            credentials_secret: Some(reference.clone()),
        };
        let input = Input {
            settings: &s,
            cluster: &services,
            secrets: Secrets::Include,
        };
        let with_ref = helm.render(input).unwrap().output;
        let without = Helm {
            credentials_secret: None,
            ..helm.clone()
        }
        .render(input)
        .unwrap()
        .output;
        golden("helm/cert-manager-secret-ref.yaml", &with_ref.cert_manager);
        for text in [&with_ref.cert_manager, &with_ref.extra_env] {
            assert!(!text.contains("svc-proxy"), "{text}");
        }
        let cm: Value = serde_yaml_ng::from_str(&with_ref.cert_manager).unwrap();
        assert!(cm.get("http_proxy").is_none() && cm.get("https_proxy").is_none());
        assert_eq!(
            cm["no_proxy"],
            cert_manager_no_proxy(&s, &services).join(",")
        );
        let names: Vec<&str> = cm["extraEnv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["HTTP_PROXY", "HTTPS_PROXY", "SSL_CERT_FILE"]);
        assert_eq!(
            cm["extraEnv"][1]["valueFrom"]["secretKeyRef"],
            json!({"name": "proxy-credentials", "key": pod_env::HTTPS_PROXY_KEY})
        );
        let env: Value = serde_yaml_ng::from_str(&with_ref.extra_env).unwrap();
        assert_eq!(
            env["extraEnv"],
            pod_env::env_json(&s, Secrets::Include, Some(&reference))
        );
        assert_eq!(with_ref.giantswarm_global, without.giantswarm_global);
        assert_eq!(with_ref.giantswarm_cluster, without.giantswarm_cluster);
        assert_eq!(with_ref.global_proxy, without.global_proxy);
        assert_eq!(
            with_ref.credentials_secret,
            Some(reference.render(&s, Secrets::Include))
        );
        assert_eq!(without.credentials_secret, None);
    }
}
