//! Data sources, one per file.

pub mod aks_http_proxy_config;
pub mod artifact_settings;
pub mod capi_kubeadm;
pub mod eksa_proxy_config;
pub mod helm_values;
pub mod kyverno_policy;
pub mod no_proxy;
pub mod openshift_proxy;
pub mod pod_env;
pub mod systemd_dropin;
pub mod tkg_config;
