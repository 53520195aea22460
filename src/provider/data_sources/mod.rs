//! Data sources, one per file.

pub mod aks_http_proxy_config;
pub mod artifact_settings;
pub mod capi_kubeadm;
pub mod cloud_init;
pub mod eksa_proxy_config;
pub mod helm_values;
pub mod ignition;
pub mod kubespray;
pub mod kyverno_policy;
pub mod no_proxy;
pub mod no_proxy_report;
pub mod openshift_proxy;
pub mod pod_env;
pub mod rke2;
pub mod systemd_dropin;
pub mod talos;
pub mod tkg_config;
