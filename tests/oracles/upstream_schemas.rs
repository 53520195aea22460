//! What the renderers produce, checked against each consumer's own published
//! schema or parser, for every consumer version we render for: every golden
//! file under tests/golden (the renderers' golden tests keep them equal to
//! what the renderers write), fresh renders of the versioned renderer (Talos,
//! every minor version with a schema) and fresh renders with a trusted CA
//! and every OS family, which most golden files lack, through the domain
//! API. A golden file without a check fails
//! [`every_golden_file_has_a_check`], so a new renderer or output cannot slip
//! through; the files no published schema or parser covers are listed in
//! [`GOLDEN`] with the reason, for review.
//!
//! The schemas are vendored under tests/schemas; tests/schemas/PROVENANCE.md
//! names the repository, path, commit and licence of each, and
//! scripts/refresh-schemas re-fetches them. Nothing here uses the network.
//!
//! A rendered fragment (the `files` and `preKubeadmCommands` of a
//! `kubeadmConfigSpec`, a `proxyConfiguration`, a container's `env`, chart
//! values under `global.connectivity`) is embedded into a minimal object
//! that is valid without it (the tests show that) and validated whole.
//!
//! Kubernetes schemas (CRD structural OpenAPI v3 schemas, and the core/v1
//! definitions of Kubernetes' OpenAPI v2 document) are read as JSON Schema
//! draft 4 after [`structural`] turns the Kubernetes extensions into what
//! the API server does with them:
//! - every object schema with `properties` and neither `additionalProperties`
//!   nor `x-kubernetes-preserve-unknown-fields: true` is closed
//!   (`additionalProperties: false`): the API server's strict field
//!   validation (`fieldValidation=Strict`, kubectl's `--validate=strict`)
//!   rejects unknown fields that it would otherwise prune silently;
//! - `nullable: true` admits `null`;
//! - `x-kubernetes-int-or-string: true` admits an integer or a string;
//! - `x-kubernetes-list-type: set` requires unique items;
//! - `x-kubernetes-list-type: map` keys and `x-kubernetes-validations` (CEL
//!   rules) are not evaluated, and `x-kubernetes-embedded-resource` and
//!   `x-kubernetes-map-type` need nothing (they do not restrict values).
//!
//! The ARM definition (Swagger 2.0, a draft 4 schema) is closed the same way:
//! we must send no property the API version does not define. JSON Schemas
//! that declare `$schema` (Talos, Ignition, the Helm charts) are used as
//! published. Formats are validated where the dialect knows them.

use std::path::{Path, PathBuf};

use crate::{systemd, tools};
use systemd::{manager_as_dropin, sh_reads, systemd_reads, systemd_verify};

use clusterproxy::domain::proxy_url::{ProxyCredentials, ProxyUrl};
use clusterproxy::domain::render::aks::Aks;
use clusterproxy::domain::render::capi::{ApiVersion, Capi};
use clusterproxy::domain::render::cloud_init::CloudInit;
use clusterproxy::domain::render::helm::{cert_manager, Helm};
use clusterproxy::domain::render::ignition::{Ignition, Variant, TRUST_UNIT};
use clusterproxy::domain::render::kyverno::Kyverno;
use clusterproxy::domain::render::openshift::OpenShift;
use clusterproxy::domain::render::pod_env::{env_json, CredentialsSecret, PodEnv};
use clusterproxy::domain::render::tkg::Tkg;
use clusterproxy::domain::render::trust::OsFamily;
use clusterproxy::domain::render::{
    kubespray, rke2, talos, Cluster, Input, ProxySettings, Renderer, Secrets,
};
use clusterproxy::domain::trusted_ca::TrustedCa;
use clusterproxy::domain::InputField;
use jsonschema::{Draft, Validator};
use serde::Deserialize as _;
use serde_json::{json, Value};

/// How a golden file is checked against its consumer.
#[derive(Clone, Copy)]
enum Check {
    /// The whole document is a Kubernetes object of the CRD version (or the
    /// built-in type) whose schema is at this path under tests/schemas.
    Crd(&'static str),
    /// A fragment of an object of the CRD version, embedded by the function
    /// into a minimal object that is valid without it.
    CrdFragment(&'static str, fn(Value) -> Value),
    /// A JSON Schema that declares its dialect, for the whole document or
    /// for the minimal document the function embeds the fragment into.
    JsonSchema(&'static str, fn(Value) -> Value),
    /// A ClusterClass variable value against the variable's schema, which
    /// Cluster API reads as a structural schema and whose unknown fields it
    /// rejects (cluster-api `internal/topology/variables/
    /// cluster_variable_validation.go`, `validateUnknownFields`).
    ClusterClassVariable(&'static str),
    /// A definition of an ARM Swagger 2.0 document.
    Arm(&'static str),
    /// A Talos machine config patch: each YAML document against the Talos
    /// config schema of the version (a patch document is a partial
    /// `v1alpha1.Config`, which has no required field, or a whole document
    /// of another kind).
    Talos(&'static str),
    /// `cloud-init schema --config-file`.
    CloudInit,
    /// `ignition-validate`.
    IgnitionValidate,
    /// Kyverno's ClusterPolicy models (see [`kyverno_models`]).
    KyvernoModels,
    /// `systemd-analyze verify` of a unit with the file as its drop-in.
    SystemdDropin,
    /// A `[Manager]` `DefaultEnvironment=` file: its value goes through
    /// `systemd-analyze verify` as an `Environment=` drop-in, which systemd
    /// parses with the same assignment parser.
    SystemdManager,
    /// A file a unit reads with `EnvironmentFile=`, read by systemd's own
    /// environment file parser (see [`systemd_environment_file`]): every
    /// line is a comment or an assignment systemd keeps, with the value
    /// POSIX `sh` reads from the same line.
    EnvironmentFile,
    /// A flat mapping of variables against the variables the consumer
    /// publishes, in these files under tests/schemas (their union): every
    /// variable is one of them, and its value has the type of the value shown
    /// there, where one is. Kubespray's sample inventory sets or documents its
    /// inventory variables (it publishes no schema and no argument specs for
    /// them); TKG's `config_default.yaml` lists the cluster configuration
    /// variables with their defaults and its CLI's constants name the ones it
    /// reads itself (`TKG_HTTP_PROXY_ENABLED`).
    Variables(&'static [&'static str]),
    /// No published schema or parser of the consumer covers this file; the
    /// reason is reviewed with this list.
    Uncovered(&'static str),
}

/// Leaves a whole document as it is.
fn whole(document: Value) -> Value {
    document
}

/// Every golden file, the consumer version it is checked for, and how.
const GOLDEN: &[(&str, &str, Check)] = &[
    ("aks/http-proxy-config.json", "AKS API 2025-10-01", Check::Arm("aks/2025-10-01/ManagedClusterHTTPProxyConfig.json")),
    ("aks/http-proxy-config.json", "AKS API 2026-01-01", Check::Arm("aks/2026-01-01/ManagedClusterHTTPProxyConfig.json")),
    ("aks/effective-no-proxy.txt", "-", Check::Uncovered("not a consumer document: the renderer's model of AKS's effectiveNoProxy, for review")),
    ("aks/round-trip.txt", "-", Check::Uncovered("not a consumer document: the renderer's report of the AKS/azurerm round trip, for review")),
    ("bottlerocket/user-data.toml", "Bottlerocket 1.x", Check::Uncovered("Bottlerocket publishes no schema (its settings model is Rust types, bottlerocket v1.20.0 sources/models); render::bottlerocket's tests parse it with the `toml` crate into that model's shape, unknown fields refused")),
    ("bottlerocket/user-data-with-ca.toml", "Bottlerocket 1.x", Check::Uncovered("Bottlerocket publishes no schema (its settings model is Rust types, bottlerocket v1.20.0 sources/models); render::bottlerocket's tests parse it with the `toml` crate into that model's shape, `settings.pki` included")),
    ("bottlerocket/apiclient.json", "Bottlerocket 1.x apiclient", Check::Uncovered("Bottlerocket publishes no schema (its settings model is Rust types); render::bottlerocket's tests parse it into that model's shape")),
    ("capi/kubeadm.yaml", "CAPI 1.14 v1beta1 KubeadmControlPlane", Check::CrdFragment("capi/v1beta1/kubeadmcontrolplane.json", kcp_v1beta1)),
    ("capi/kubeadm.yaml", "CAPI 1.14 v1beta1 KubeadmConfigTemplate", Check::CrdFragment("capi/v1beta1/kubeadmconfigtemplate.json", kct_v1beta1)),
    ("capi/kubeadm.yaml", "CAPI 1.14 v1beta1 KubeadmConfig", Check::CrdFragment("capi/v1beta1/kubeadmconfig.json", kc_v1beta1)),
    ("capi/kubeadm.yaml", "CAPI 1.14 v1beta2 KubeadmControlPlane", Check::CrdFragment("capi/v1beta2/kubeadmcontrolplane.json", kcp_v1beta2)),
    ("capi/kubeadm.yaml", "CAPI 1.14 v1beta2 KubeadmConfigTemplate", Check::CrdFragment("capi/v1beta2/kubeadmconfigtemplate.json", kct_v1beta2)),
    ("capi/kubeadm.yaml", "CAPI 1.14 v1beta2 KubeadmConfig", Check::CrdFragment("capi/v1beta2/kubeadmconfig.json", kc_v1beta2)),
    ("capi/kubeadm-secret.yaml", "CAPI 1.14 v1beta1 KubeadmControlPlane", Check::CrdFragment("capi/v1beta1/kubeadmcontrolplane.json", kcp_v1beta1)),
    ("capi/kubeadm-secret.yaml", "CAPI 1.14 v1beta1 KubeadmConfigTemplate", Check::CrdFragment("capi/v1beta1/kubeadmconfigtemplate.json", kct_v1beta1)),
    ("capi/kubeadm-secret.yaml", "CAPI 1.14 v1beta1 KubeadmConfig", Check::CrdFragment("capi/v1beta1/kubeadmconfig.json", kc_v1beta1)),
    ("capi/kubeadm-secret.yaml", "CAPI 1.14 v1beta2 KubeadmControlPlane", Check::CrdFragment("capi/v1beta2/kubeadmcontrolplane.json", kcp_v1beta2)),
    ("capi/kubeadm-secret.yaml", "CAPI 1.14 v1beta2 KubeadmConfigTemplate", Check::CrdFragment("capi/v1beta2/kubeadmconfigtemplate.json", kct_v1beta2)),
    ("capi/kubeadm-secret.yaml", "CAPI 1.14 v1beta2 KubeadmConfig", Check::CrdFragment("capi/v1beta2/kubeadmconfig.json", kc_v1beta2)),
    ("capi/secret.yaml", "Kubernetes 1.36 core/v1 Secret", Check::Crd("kubernetes/1.36/secret.json")),
    ("capi/cluster-values.yaml", "Giant Swarm cluster-values", Check::Uncovered("the cluster-values ConfigMap that chart-operator reads has no published schema")),
    ("cloud_init/user-data.yaml", "cloud-init (Debian's)", Check::CloudInit),
    ("cloud_init/user-data.yaml", "cloud-init 26.2 schema", Check::JsonSchema(CLOUD_INIT, whole)),
    ("docker_daemon/daemon.json", "Docker Engine 23.0 to 28.5", Check::Uncovered("Docker publishes no schema of daemon.json (its model is Go types, moby/moby daemon/config/config.go); render::docker_daemon's tests read `proxies` into that model's shape, unknown keys refused, and the E2E test parses the applied output")),
    ("docker_daemon/proxies-only.json", "Docker Engine 23.0 to 28.5", Check::Uncovered("Docker publishes no schema of daemon.json (its model is Go types, moby/moby daemon/config/config.go); render::docker_daemon's tests read `proxies` into that model's shape, unknown keys refused")),
    ("eksa/cluster-spec.yaml", "EKS-A v1alpha1 Cluster", Check::CrdFragment("eksa/v1alpha1/cluster.json", eksa_cluster)),
    ("helm/cert-manager.yaml", "cert-manager chart 1.16", Check::JsonSchema("cert-manager/1.16/values.schema.json", whole)),
    ("helm/cert-manager.yaml", "cert-manager chart 1.21", Check::JsonSchema("cert-manager/1.21/values.schema.json", whole)),
    ("helm/cert-manager-secret-ref.yaml", "cert-manager chart 1.16", Check::JsonSchema("cert-manager/1.16/values.schema.json", whole)),
    ("helm/cert-manager-secret-ref.yaml", "cert-manager chart 1.21", Check::JsonSchema("cert-manager/1.21/values.schema.json", whole)),
    ("helm/giantswarm-global.yaml", "Giant Swarm cluster-aws chart 9.0.0", Check::JsonSchema("giantswarm-cluster-aws/9.0.0/values.schema.json", giantswarm_values)),
    ("ignition/config.ign", "Ignition spec 3.3.0", Check::JsonSchema("ignition/3.3.0/ignition.json", whole)),
    ("ignition/config.ign", "Ignition spec 3.3.0 (ignition-validate)", Check::IgnitionValidate),
    ("ignition/config.ign", "Ignition spec 3.6.0, the newest stable (the same fields)", Check::JsonSchema("ignition/3.6.0/ignition.json", as_ignition_3_6)),
    ("ignition/butane.yaml", "Butane fcos 1.4.0", Check::Uncovered("coreos/butane publishes no schema (its specs are Go types and docs), and no package registry reachable here ships the butane binary (Debian 12 has none); ignition.rs translates it by Butane's documented rules into the Ignition config checked above")),
    ("kubespray/proxy.yml", "kubespray 2.29 sample inventory", Check::Variables(&["kubespray/2.29/group-vars-all.json"])),
    ("kubespray/proxy.yml", "kubespray 2.30 sample inventory", Check::Variables(&["kubespray/2.30/group-vars-all.json"])),
    ("kubespray/proxy.yml", "kubespray 2.31 sample inventory", Check::Variables(&["kubespray/2.31/group-vars-all.json"])),
    ("kubespray/no_proxy-2.29.txt", "-", Check::Uncovered("not a consumer document: the renderer's model of the no_proxy kubespray 2.29 generates, for review")),
    ("kubespray/no_proxy-2.30.txt", "-", Check::Uncovered("not a consumer document: the renderer's model of the no_proxy kubespray 2.30 generates, for review")),
    ("kubespray/no_proxy-2.31.txt", "-", Check::Uncovered("not a consumer document: the renderer's model of the no_proxy kubespray 2.31 generates, for review")),
    ("kyverno/cluster-policy.yaml", "Kyverno 1.13 kyverno.io/v1 ClusterPolicy", Check::Crd("kyverno/1.13/clusterpolicy-v1.json")),
    ("kyverno/cluster-policy.yaml", "Kyverno 1.19 kyverno.io/v1 ClusterPolicy", Check::Crd("kyverno/1.19/clusterpolicy-v1.json")),
    ("kyverno/cluster-policy.yaml", "Kyverno 1.13.4 ClusterPolicy models", Check::KyvernoModels),
    ("kyverno/cluster-policy-ca.yaml", "Kyverno 1.13 kyverno.io/v1 ClusterPolicy", Check::Crd("kyverno/1.13/clusterpolicy-v1.json")),
    ("kyverno/cluster-policy-ca.yaml", "Kyverno 1.19 kyverno.io/v1 ClusterPolicy", Check::Crd("kyverno/1.19/clusterpolicy-v1.json")),
    ("kyverno/cluster-policy-ca.yaml", "Kyverno 1.13.4 ClusterPolicy models", Check::KyvernoModels),
    ("kyverno/cluster-policy-secret-ref.yaml", "Kyverno 1.13 kyverno.io/v1 ClusterPolicy", Check::Crd("kyverno/1.13/clusterpolicy-v1.json")),
    ("kyverno/cluster-policy-secret-ref.yaml", "Kyverno 1.19 kyverno.io/v1 ClusterPolicy", Check::Crd("kyverno/1.19/clusterpolicy-v1.json")),
    ("kyverno/cluster-policy-secret-ref.yaml", "Kyverno 1.13.4 ClusterPolicy models", Check::KyvernoModels),
    ("kyverno/mutating-policy.yaml", "Kyverno 1.17 policies.kyverno.io/v1 MutatingPolicy", Check::Crd("kyverno/1.17/mutatingpolicies-v1.json")),
    ("kyverno/mutating-policy.yaml", "Kyverno 1.18 policies.kyverno.io/v1 MutatingPolicy", Check::Crd("kyverno/1.18/mutatingpolicies-v1.json")),
    ("kyverno/mutating-policy.yaml", "Kyverno 1.19 policies.kyverno.io/v1 MutatingPolicy", Check::Crd("kyverno/1.19/mutatingpolicies-v1.json")),
    ("kyverno/mutating-policy-ca.yaml", "Kyverno 1.17 policies.kyverno.io/v1 MutatingPolicy", Check::Crd("kyverno/1.17/mutatingpolicies-v1.json")),
    ("kyverno/mutating-policy-ca.yaml", "Kyverno 1.18 policies.kyverno.io/v1 MutatingPolicy", Check::Crd("kyverno/1.18/mutatingpolicies-v1.json")),
    ("kyverno/mutating-policy-ca.yaml", "Kyverno 1.19 policies.kyverno.io/v1 MutatingPolicy", Check::Crd("kyverno/1.19/mutatingpolicies-v1.json")),
    ("kyverno/mutating-policy-secret-ref.yaml", "Kyverno 1.17 policies.kyverno.io/v1 MutatingPolicy", Check::Crd("kyverno/1.17/mutatingpolicies-v1.json")),
    ("kyverno/mutating-policy-secret-ref.yaml", "Kyverno 1.18 policies.kyverno.io/v1 MutatingPolicy", Check::Crd("kyverno/1.18/mutatingpolicies-v1.json")),
    ("kyverno/mutating-policy-secret-ref.yaml", "Kyverno 1.19 policies.kyverno.io/v1 MutatingPolicy", Check::Crd("kyverno/1.19/mutatingpolicies-v1.json")),
    ("kyverno/generating-policy-ca.yaml", "Kyverno 1.18 policies.kyverno.io/v1 GeneratingPolicy", Check::Crd("kyverno/1.18/generatingpolicies-v1.json")),
    ("kyverno/generating-policy-ca.yaml", "Kyverno 1.19 policies.kyverno.io/v1 GeneratingPolicy", Check::Crd("kyverno/1.19/generatingpolicies-v1.json")),
    ("kyverno/generating-policy-secret-ref.yaml", "Kyverno 1.18 policies.kyverno.io/v1 GeneratingPolicy", Check::Crd("kyverno/1.18/generatingpolicies-v1.json")),
    ("kyverno/generating-policy-secret-ref.yaml", "Kyverno 1.19 policies.kyverno.io/v1 GeneratingPolicy", Check::Crd("kyverno/1.19/generatingpolicies-v1.json")),
    ("kyverno/generating-policy-secret-ref-1.17.yaml", "Kyverno 1.17 policies.kyverno.io/v1 GeneratingPolicy", Check::Crd("kyverno/1.17/generatingpolicies-v1.json")),
    ("openshift/proxy.yaml", "OpenShift config.openshift.io/v1 Proxy", Check::Crd("openshift/v1/proxy.json")),
    ("openshift/install-config.yaml", "OpenShift install-config v1", Check::Crd(INSTALL_CONFIG)),
    ("openshift/status-no-proxy.txt", "-", Check::Uncovered("not a consumer document: the renderer's model of the Proxy status.noProxy, for review")),
    ("pod_env/env.yaml", "Kubernetes 1.36 core/v1 PodSpec", Check::CrdFragment("kubernetes/1.36/podspec.json", pod_spec)),
    ("pod_env/ca-volumes.yaml", "Kubernetes 1.36 core/v1 PodSpec", Check::CrdFragment("kubernetes/1.36/podspec.json", pod_spec)),
    ("pod_env/env-secret-ref.yaml", "Kubernetes 1.36 core/v1 PodSpec", Check::CrdFragment("kubernetes/1.36/podspec.json", pod_spec)),
    ("pod_env/credentials-secret-redacted.yaml", "Kubernetes 1.36 core/v1 Secret", Check::Crd("kubernetes/1.36/secret.json")),
    ("rke2/all-redacted.env", "RKE2/k3s units' EnvironmentFile= (Debian's systemd)", Check::EnvironmentFile),
    ("rke2/containerd.env", "RKE2/k3s units' EnvironmentFile= (Debian's systemd)", Check::EnvironmentFile),
    ("systemd_dropin/containerd.conf", "systemd (Debian's)", Check::SystemdDropin),
    ("systemd_dropin/kubelet-redacted.conf", "systemd (Debian's)", Check::SystemdDropin),
    ("systemd_dropin/system.conf", "systemd (Debian's)", Check::SystemdManager),
    ("talos/patch.yaml", "Talos 1.10", Check::Talos("talos/1.10/config.schema.json")),
    ("talos/patch-1.9.yaml", "Talos 1.9", Check::Talos("talos/1.9/config.schema.json")),
    ("talos/patch-1.10.yaml", "Talos 1.10", Check::Talos("talos/1.10/config.schema.json")),
    ("talos/patch-1.13.yaml", "Talos 1.13", Check::Talos("talos/1.13/config.schema.json")),
    ("tkg/cluster-config.yaml", "TKG 2.2 cluster configuration variables", Check::Variables(TKG_2_2_VARIABLES)),
    ("tkg/cluster-class-variable.json", "TKG 2.1.0 vSphere ClusterClass `proxy` variable", Check::ClusterClassVariable("tkg/vsphere-0.28.0/proxy-variable.json")),
    ("tkg/cluster-class-variable.json", "TKG 2.2 vSphere ClusterClass `proxy` variable", Check::ClusterClassVariable("tkg/vsphere-0.29.0/proxy-variable.json")),
    ("tkg/cluster-class-variable.json", "TKG 2.2 AWS ClusterClass `proxy` variable", Check::ClusterClassVariable("tkg/aws-0.29.0/proxy-variable.json")),
    ("tkg/cluster-class-variable.json", "TKG 2.2 Azure ClusterClass `proxy` variable", Check::ClusterClassVariable("tkg/azure-0.29.0/proxy-variable.json")),
    ("tkg/cluster-class-variable-system-wide.json", "TKG 2.2 vSphere ClusterClass `proxy` variable", Check::ClusterClassVariable("tkg/vsphere-0.29.0/proxy-variable.json")),
    ("tkg/cluster-class-trust-variable.json", "TKG 2.1.0 vSphere ClusterClass `trust` variable", Check::ClusterClassVariable("tkg/vsphere-0.28.0/trust-variable.json")),
    ("tkg/cluster-class-trust-variable.json", "TKG 2.2 vSphere ClusterClass `trust` variable", Check::ClusterClassVariable("tkg/vsphere-0.29.0/trust-variable.json")),
    ("tkg/cluster-class-trust-variable.json", "TKG 2.2 AWS ClusterClass `trust` variable", Check::ClusterClassVariable("tkg/aws-0.29.0/trust-variable.json")),
    ("tkg/cluster-class-trust-variable.json", "TKG 2.2 Azure ClusterClass `trust` variable", Check::ClusterClassVariable("tkg/azure-0.29.0/trust-variable.json")),
];

/// The schema of the ConfigMaps that only fresh renders produce (the golden
/// files hold none).
const CONFIG_MAP: &str = "kubernetes/1.36/configmap.json";

/// The install-config keys OpenShift's renderer writes (`proxy`,
/// `additionalTrustBundle`), from the installer's InstallConfig CRD.
const INSTALL_CONFIG: &str = "openshift/install-config-v1/installconfig.json";

/// The Talos minor versions rendered fresh, and the schema of each.
const TALOS: [(u32, &str); 5] = [
    (9, "talos/1.9/config.schema.json"),
    (10, "talos/1.10/config.schema.json"),
    (11, "talos/1.11/config.schema.json"),
    (12, "talos/1.12/config.schema.json"),
    (13, "talos/1.13/config.schema.json"),
];

/// The cloud-config schema of the current cloud-init release (the
/// `cloud-init schema` on the test host is Debian's older one).
const CLOUD_INIT: &str = "cloud-init/26.2/schema-cloud-config-v1.json";

/// The kubespray releases we render for, and the variables of each one's
/// sample inventory.
const KUBESPRAY: [&[&str]; 3] = [
    &["kubespray/2.29/group-vars-all.json"],
    &["kubespray/2.30/group-vars-all.json"],
    &["kubespray/2.31/group-vars-all.json"],
];

/// The cluster configuration variables of TKG 2.2 (tanzu-framework v0.29.0,
/// the last public release): `config_default.yaml` and the CLI's own.
const TKG_2_2_VARIABLES: &[&str] = &[
    "tkg/2.2/config-default-variables.json",
    "tkg/2.2/cli-config-variables.json",
];

/// Checks that fail today: the label, the error they must fail with, and
/// the fix they wait for. A listed check that passes, or fails otherwise,
/// fails the test, so the list only shrinks.
const EXPECTED_FAILURES: &[(&str, &str, &str)] = &[];

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    let path = manifest_dir().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The schema at `relative` under tests/schemas.
fn schema(relative: &str) -> Value {
    serde_json::from_str(&read(&format!("tests/schemas/{relative}"))).unwrap()
}

/// Every YAML (or JSON) document of `text`.
fn documents(text: &str) -> Vec<Value> {
    serde_yaml_ng::Deserializer::from_str(text)
        .map(|document| Value::deserialize(document).unwrap())
        .collect()
}

/// A Kubernetes structural schema as a JSON Schema with the API server's
/// reading of the `x-kubernetes-*` extensions (see the module comment).
fn structural(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = serde_json::Map::new();
    for (key, value) in map {
        let converted = match key.as_str() {
            "properties" | "patternProperties" | "definitions" => Value::Object(
                value
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(name, sub)| (name.clone(), structural(sub)))
                    .collect(),
            ),
            "items" | "additionalProperties" | "not" => structural(value),
            "allOf" | "anyOf" | "oneOf" => {
                Value::Array(value.as_array().unwrap().iter().map(structural).collect())
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), converted);
    }
    let preserve = map.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    if map.contains_key("properties") && !map.contains_key("additionalProperties") && !preserve {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    if map.get("nullable") == Some(&Value::Bool(true)) {
        if let Some(Value::String(kind)) = map.get("type") {
            out.insert("type".into(), json!([kind, "null"]));
        }
    }
    if map.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true))
        && !map.contains_key("anyOf")
    {
        out.insert(
            "anyOf".into(),
            json!([{"type": "integer"}, {"type": "string"}]),
        );
    }
    if map.get("x-kubernetes-list-type") == Some(&json!("set")) {
        out.insert("uniqueItems".into(), Value::Bool(true));
    }
    out.into()
}

/// The validator of `schema`, in `draft` or the one it declares, formats
/// validated.
fn build(schema: &Value, draft: Option<Draft>) -> Validator {
    let mut options = jsonschema::options().should_validate_formats(true);
    if let Some(draft) = draft {
        options = options.with_draft(draft);
    }
    options
        .build(schema)
        .unwrap_or_else(|e| panic!("the schema does not compile: {e}"))
}

/// The validator of a vendored schema for a check.
fn validator(check: Check) -> Validator {
    match check {
        // The ARM definition has no Kubernetes extensions: `structural` only
        // closes its objects.
        Check::Crd(path)
        | Check::CrdFragment(path, _)
        | Check::ClusterClassVariable(path)
        | Check::Arm(path) => build(&structural(&schema(path)), Some(Draft::Draft4)),
        Check::JsonSchema(path, _) | Check::Talos(path) => build(&schema(path), None),
        _ => unreachable!("no schema for this check"),
    }
}

/// Every error of `document` against `validator`, one a line.
fn errors(validator: &Validator, document: &Value) -> Vec<String> {
    validator
        .iter_errors(document)
        .map(|e| format!("at {:?}: {e}", e.instance_path().as_str()))
        .collect()
}

/// The errors of `text` (the whole output of a renderer) under `check`.
fn run(check: Check, text: &str) -> Vec<String> {
    match check {
        Check::Crd(_) | Check::Arm(_) | Check::ClusterClassVariable(_) => {
            let v = validator(check);
            documents(text).iter().flat_map(|d| errors(&v, d)).collect()
        }
        Check::CrdFragment(_, embed) | Check::JsonSchema(_, embed) => {
            let v = validator(check);
            documents(text)
                .into_iter()
                .flat_map(|d| errors(&v, &embed(d)))
                .collect()
        }
        Check::Talos(path) => {
            let v = validator(check);
            documents(text)
                .iter()
                .enumerate()
                .flat_map(|(i, d)| {
                    talos_errors(path, &v, d)
                        .into_iter()
                        .map(move |e| format!("document {i} {e}"))
                })
                .collect()
        }
        Check::CloudInit => tool(&tools::CLOUD_INIT, &["schema", "--config-file"], text),
        Check::IgnitionValidate => tool(&tools::IGNITION_VALIDATE, &[], text),
        Check::KyvernoModels => kyverno_models(&[text]).remove(0),
        Check::SystemdDropin => systemd_verify(text),
        Check::SystemdManager => systemd_verify(&manager_as_dropin(text)),
        Check::EnvironmentFile => systemd_environment_file(text),
        Check::Variables(paths) => variables(paths, text),
        Check::Uncovered(_) => Vec::new(),
    }
}

/// The errors of one Talos config document: those of the whole schema (a
/// `oneOf` of every document kind), then, to say what is wrong, those of the
/// kind's own definition (`v1alpha1.Config` for a document without `kind`).
fn talos_errors(path: &str, whole: &Validator, document: &Value) -> Vec<String> {
    let mut found = errors(whole, document);
    if found.is_empty() {
        return found;
    }
    let mut schema = schema(path);
    let kind = document.get("kind").cloned();
    let definition = schema["$defs"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(_, def)| match &kind {
            Some(kind) => def["properties"]["kind"]["enum"]
                .as_array()
                .is_some_and(|e| e.contains(kind)),
            None => false,
        })
        .map_or("v1alpha1.Config".to_owned(), |(name, _)| name.clone());
    schema.as_object_mut().unwrap().remove("oneOf");
    schema["$ref"] = json!(format!("#/$defs/{definition}"));
    found.extend(
        errors(&build(&schema, None), document)
            .into_iter()
            .map(|e| format!("({definition}) {e}")),
    );
    found
}

/// `program args file` on `text` in a file: its output as the error when it
/// exits non-zero.
fn tool(program: &tools::Tool, args: &[&str], text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("document");
    std::fs::write(&file, text).unwrap();
    let out = program
        .command()
        .args(args)
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.name));
    if out.status.success() {
        Vec::new()
    } else {
        vec![format!(
            "{} exited {}: {}{}",
            program.name,
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )]
    }
}

/// Kyverno's ClusterPolicy as its own Python models read it (pydantic,
/// generated from the Kyverno 1.13.4 CRDs: PyPI `cloudcoil.models.kyverno`,
/// installed into `.tools/kyverno-python` by scripts/install-test-tools), in
/// one Python run: each manifest's errors, none when it validates and dumps
/// back to itself (so no field was unknown to the models).
fn kyverno_models(manifests: &[&str]) -> Vec<Vec<String>> {
    let site = tools::KYVERNO_MODELS.path();
    let script = r#"
import sys, json, yaml
from cloudcoil.models.kyverno import v1
def strip(d):
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items() if v not in ({}, [])}
    if isinstance(d, list):
        return [strip(v) for v in d]
    return d
for text in json.load(sys.stdin):
    doc = yaml.safe_load(text)
    try:
        policy = v1.ClusterPolicy.model_validate(doc)
    except Exception as e:
        print(json.dumps("invalid: " + str(e).replace("\n", " ")))
        continue
    back = json.loads(policy.model_dump_json(by_alias=True, exclude_unset=True))
    print(json.dumps("" if strip(back) == strip(doc) else "fields the models do not know were dropped"))
"#;
    use std::io::Write as _;
    let mut child = tools::PYTHON3
        .command()
        .arg("-c")
        .arg(script)
        .env("PYTHONPATH", &site)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let input = serde_json::to_vec(manifests).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let error: String = serde_json::from_str(line).unwrap();
            [error].into_iter().filter(|e| !e.is_empty()).collect()
        })
        .collect()
}

/// The errors of an `EnvironmentFile=` file: every warning systemd's parser
/// logs about it ([`systemd_reads`]), every line that is neither blank, a
/// comment nor an assignment systemd kept, and every value that differs from
/// the one POSIX `sh` reads from the line (a `$` left in a value shows as
/// such a difference).
fn systemd_environment_file(text: &str) -> Vec<String> {
    let (kept, mut found) = systemd_reads(text);
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let Some((name, _)) = line.split_once('=') else {
            found.push(format!("line {}: not an assignment: {line:?}", number + 1));
            continue;
        };
        let Some((_, systemd)) = kept.iter().find(|(k, _)| k == name) else {
            found.push(format!("line {}: systemd keeps no {name}", number + 1));
            continue;
        };
        let sh = sh_reads(line, name);
        if *systemd != sh {
            found.push(format!(
                "line {}: systemd reads {name}={systemd:?}, sh reads {sh:?}",
                number + 1
            ));
        }
    }
    found
}

/// The errors of Ansible variables `text` against the sample inventory's
/// variables at `path` (`{"variables": {name: value shown}}`).
fn variables(paths: &[&str], text: &str) -> Vec<String> {
    let mut known = serde_json::Map::new();
    for path in paths {
        for (name, shown) in schema(path)["variables"].as_object().unwrap() {
            if !shown.is_null() || !known.contains_key(name) {
                known.insert(name.clone(), shown.clone());
            }
        }
    }
    let kind = |v: &Value| match v {
        Value::String(_) => Some("a string"),
        Value::Bool(_) => Some("a boolean"),
        Value::Number(_) => Some("a number"),
        Value::Array(_) => Some("a list"),
        Value::Object(_) => Some("a mapping"),
        Value::Null => None,
    };
    let mut found = Vec::new();
    for document in documents(text) {
        let Value::Object(variables) = document else {
            found.push(format!("not a mapping of variables: {document}"));
            continue;
        };
        for (name, value) in &variables {
            match known.get(name) {
                None => found.push(format!(
                    "at \"/{name}\": not a variable of {}",
                    paths.join(", ")
                )),
                Some(shown) => {
                    if let (Some(want), got) = (kind(shown), kind(value)) {
                        if got != Some(want) {
                            found.push(format!("at \"/{name}\": {value} is not {want}"));
                        }
                    }
                }
            }
        }
    }
    found
}

/// A minimal core/v1 PodSpec with `fragment` in it: its `volumes` in the
/// pod, every other key (`env`, `volumeMounts`) in its one container.
fn pod_spec(fragment: Value) -> Value {
    let mut container = json!({"name": "app", "image": "registry.corp.example/app:1"});
    let mut spec = json!({});
    for (key, value) in fragment.as_object().cloned().unwrap_or_default() {
        if key == "volumes" {
            spec[key] = value;
        } else {
            container[key] = value;
        }
    }
    spec["containers"] = json!([container]);
    spec
}

/// A minimal KubeadmControlPlane v1beta1 with `fragment` as its
/// `spec.kubeadmConfigSpec`.
fn kcp_v1beta1(fragment: Value) -> Value {
    json!({
        "apiVersion": "controlplane.cluster.x-k8s.io/v1beta1",
        "kind": "KubeadmControlPlane",
        "metadata": {"name": "prod-control-plane"},
        "spec": {
            "kubeadmConfigSpec": fragment,
            "machineTemplate": {"infrastructureRef": {
                "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
                "kind": "DockerMachineTemplate",
                "name": "prod-control-plane",
            }},
            "version": "v1.34.0",
        },
    })
}

/// A minimal KubeadmControlPlane v1beta2 with `fragment` as its
/// `spec.kubeadmConfigSpec`.
fn kcp_v1beta2(fragment: Value) -> Value {
    json!({
        "apiVersion": "controlplane.cluster.x-k8s.io/v1beta2",
        "kind": "KubeadmControlPlane",
        "metadata": {"name": "prod-control-plane"},
        "spec": {
            "kubeadmConfigSpec": fragment,
            "machineTemplate": {"spec": {"infrastructureRef": {
                "apiGroup": "infrastructure.cluster.x-k8s.io",
                "kind": "DockerMachineTemplate",
                "name": "prod-control-plane",
            }}},
            "version": "v1.34.0",
        },
    })
}

/// A minimal KubeadmConfigTemplate of `api_version` with `fragment` as its
/// `spec.template.spec` (the same shape in v1beta1 and v1beta2).
fn kct(api_version: ApiVersion, fragment: Value) -> Value {
    json!({
        "apiVersion": api_version.bootstrap(),
        "kind": "KubeadmConfigTemplate",
        "metadata": {"name": "prod-md-0"},
        "spec": {"template": {"spec": fragment}},
    })
}

/// [`kct`] v1beta1.
fn kct_v1beta1(fragment: Value) -> Value {
    kct(ApiVersion::V1beta1, fragment)
}

/// [`kct`] v1beta2.
fn kct_v1beta2(fragment: Value) -> Value {
    kct(ApiVersion::V1beta2, fragment)
}

/// A minimal KubeadmConfig of `api_version` with `fragment` as its `spec`.
fn kc(api_version: ApiVersion, fragment: Value) -> Value {
    json!({
        "apiVersion": api_version.bootstrap(),
        "kind": "KubeadmConfig",
        "metadata": {"name": "prod-md-0-x7k2p"},
        "spec": fragment,
    })
}

/// [`kc`] v1beta1.
fn kc_v1beta1(fragment: Value) -> Value {
    kc(ApiVersion::V1beta1, fragment)
}

/// [`kc`] v1beta2.
fn kc_v1beta2(fragment: Value) -> Value {
    kc(ApiVersion::V1beta2, fragment)
}

/// How a fragment becomes the whole document a schema checks.
type Embedding = fn(Value) -> Value;

/// The CRDs of Cluster API 1.14 that take the pieces rendered for
/// `api_version`, each with the embedding of the pieces in an object of that
/// version: the KubeadmControlPlane's (`apiVersion` [`ApiVersion::control_plane`]),
/// then the KubeadmConfigTemplate's and the KubeadmConfig's
/// ([`ApiVersion::bootstrap`]).
fn capi_crds(api_version: ApiVersion) -> [(&'static str, Embedding); 3] {
    match api_version {
        ApiVersion::V1beta1 => [
            ("capi/v1beta1/kubeadmcontrolplane.json", kcp_v1beta1),
            ("capi/v1beta1/kubeadmconfigtemplate.json", kct_v1beta1),
            ("capi/v1beta1/kubeadmconfig.json", kc_v1beta1),
        ],
        ApiVersion::V1beta2 => [
            ("capi/v1beta2/kubeadmcontrolplane.json", kcp_v1beta2),
            ("capi/v1beta2/kubeadmconfigtemplate.json", kct_v1beta2),
            ("capi/v1beta2/kubeadmconfig.json", kc_v1beta2),
        ],
    }
}

/// A minimal EKS-A Cluster with `fragment` (a `spec:` with
/// `proxyConfiguration`) merged in.
fn eksa_cluster(fragment: Value) -> Value {
    merge(
        json!({
            "apiVersion": "anywhere.eks.amazonaws.com/v1alpha1",
            "kind": "Cluster",
            "metadata": {"name": "prod"},
            "spec": {"kubernetesVersion": "1.33"},
        }),
        fragment,
    )
}

/// The Ignition config as spec 3.6.0 (Ignition 2.26's newest stable spec):
/// the same document with `ignition.version` 3.6.0, which is how Ignition
/// reads an older config (it translates it forward), so its fields must be
/// valid as they are in the newest spec too.
fn as_ignition_3_6(mut config: Value) -> Value {
    config["ignition"]["version"] = json!("3.6.0");
    config
}

/// Minimal Giant Swarm cluster-aws values (the fields the schema requires)
/// with `fragment` (`global.connectivity.proxy`) merged in.
fn giantswarm_values(fragment: Value) -> Value {
    merge(
        json!({"global": {
            "managementCluster": "mc",
            "metadata": {"name": "prod", "organization": "acme"},
            "release": {"version": "31.0.0"},
            "connectivity": {"baseDomain": "example.com"},
        }}),
        fragment,
    )
}

/// `overlay` merged into `base`, objects key by key.
fn merge(mut base: Value, overlay: Value) -> Value {
    match (&mut base, overlay) {
        (Value::Object(b), Value::Object(o)) => {
            for (key, value) in o {
                let old = b.remove(&key).unwrap_or(Value::Null);
                b.insert(
                    key,
                    if old.is_null() {
                        value
                    } else {
                        merge(old, value)
                    },
                );
            }
            base
        }
        (_, overlay) => overlay,
    }
}

/// Fails listing every error, except that the failures in
/// [`EXPECTED_FAILURES`] must still fail.
fn report(results: Vec<(String, Vec<String>)>) {
    let mut problems = Vec::new();
    for (label, errs) in &results {
        let expected = EXPECTED_FAILURES.iter().find(|(l, _, _)| l == label);
        match (expected, errs.is_empty()) {
            (None, true) => {}
            (None, false) => problems.push(format!("{label}:\n  {}", errs.join("\n  "))),
            (Some((_, error, fix)), _) if !errs.iter().any(|e| e.ends_with(error)) => problems.push(format!(
                "{label}: expected to fail with {error:?} until fixed ({fix}); remove it from EXPECTED_FAILURES if fixed. Errors: {errs:?}"
            )),
            (Some(_), _) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs every check of [`GOLDEN`] whose golden file is under `dir`.
fn check_goldens(dir: &str) {
    let results: Vec<_> = GOLDEN
        .iter()
        .filter(|(golden, _, check)| {
            golden.starts_with(dir) && !matches!(check, Check::Uncovered(_))
        })
        .map(|&(golden, version, check)| {
            let text = read(&format!("tests/golden/{golden}"));
            (format!("{golden} as {version}"), run(check, &text))
        })
        .collect();
    assert!(!results.is_empty(), "no checks for {dir}");
    report(results);
}

#[test]
fn aks_against_the_arm_definition() {
    check_goldens("aks/");
}

#[test]
fn capi_against_the_kubeadm_crds() {
    check_goldens("capi/");
}

#[test]
fn cloud_init_against_cloud_init_schema() {
    check_goldens("cloud_init/");
}

#[test]
fn eksa_against_the_cluster_crd() {
    check_goldens("eksa/");
}

#[test]
fn helm_against_the_charts_values_schemas() {
    check_goldens("helm/");
}

#[test]
fn ignition_against_the_spec_schema_and_ignition_validate() {
    check_goldens("ignition/");
}

#[test]
fn kyverno_against_the_policy_crds() {
    check_goldens("kyverno/");
}

#[test]
fn openshift_against_the_proxy_crd() {
    check_goldens("openshift/");
}

#[test]
fn kubespray_against_the_sample_inventory_variables() {
    check_goldens("kubespray/");
}

#[test]
fn rke2_against_systemds_environment_file_parser() {
    check_goldens("rke2/");
}

/// The RKE2/k3s environment file's quoting reads back as the intended
/// values through systemd's parser and `sh`: the rendered variables (the
/// password with every character that needs care) and raw values with `"`,
/// `\`, space, `` ` ``, `'` and `%`; `sh` (OpenRC nodes source the file)
/// also for `$`, which percent-encoding keeps out of rendered values.
#[test]
fn rke2_values_read_back_through_systemd_and_sh() {
    let s = settings(false);
    let mut want = rke2::variables(&s, rke2::Scope::All, Secrets::Include);
    let mut content = rke2::env_file(&s, rke2::Scope::All, Secrets::Include);
    for (i, raw) in [r#"a"b"#, r"c\d e", "`id` 100%", "it's"].iter().enumerate() {
        content.push_str(&format!("RAW{i}={}\n", rke2::quote(raw)));
        want.push((format!("RAW{i}"), (*raw).to_owned()));
    }
    assert_eq!(run(Check::EnvironmentFile, &content), Vec::<String>::new());
    let (kept, _) = systemd_reads(&content);
    for (name, value) in &want {
        assert!(
            kept.contains(&(name.clone(), value.clone())),
            "{name}: {kept:?}"
        );
    }
    let dollar = format!("DOLLAR={}", rke2::quote("$HOME ${X}"));
    assert_eq!(sh_reads(&dollar, "DOLLAR"), "$HOME ${X}");
}

#[test]
fn tkg_against_the_cluster_class_variable_schema() {
    check_goldens("tkg/");
}

#[test]
fn systemd_against_systemd_analyze() {
    check_goldens("systemd_dropin/");
}

#[test]
fn talos_golden_against_its_version_schema() {
    check_goldens("talos/");
}

/// The password of [`settings`], as the renderers' golden tests use:
/// `%`, `"`, `\`, `$`, `'`, space and `@`.
pub(crate) const PASSWORD: &str = r#"p%40ss "w\rd" $HOME 'x'@y"#;

/// Settings like the renderers' golden tests use, with the fixture CA when
/// `with_ca`.
pub(crate) fn settings(with_ca: bool) -> ProxySettings {
    let credentials = ProxyCredentials::new("svc-proxy", PASSWORD).unwrap();
    let url = |field, text| {
        ProxyUrl::parse(field, text)
            .unwrap()
            .with_credentials(credentials.clone())
    };
    ProxySettings {
        http_proxy: Some(url(InputField::HttpProxy, "http://proxy.corp.example:3128")),
        https_proxy: Some(url(
            InputField::HttpsProxy,
            "http://proxy.corp.example:3129",
        )),
        no_proxy: [
            "registry.corp.example",
            "10.96.0.0/12",
            ".svc",
            "localhost",
            "127.0.0.1",
        ]
        .map(str::to_owned)
        .to_vec(),
        trusted_ca: with_ca
            .then(|| TrustedCa::parse(&read("tests/fixtures/import/aks/trusted-ca.pem")).unwrap()),
        revision: None,
    }
}

/// The Talos patch rendered now for each minor version, with and without a
/// trusted CA, against that version's config schema.
#[test]
fn talos_renders_against_each_version_schema() {
    let mut results = Vec::new();
    for (minor, path) in TALOS {
        let check = Check::Talos(path);
        for with_ca in [false, true] {
            let patch = talos::patch(&settings(with_ca), minor, Secrets::Include);
            let label = format!(
                "render talos 1.{minor}{}",
                if with_ca { " with a trusted CA" } else { "" }
            );
            results.push((label, run(check, &patch)));
        }
    }
    report(results);
}

/// `renderer`'s output for [`settings`] with the trusted CA (which the
/// golden files mostly lack), credentials included.
fn render<R: Renderer>(renderer: &R) -> R::Output {
    render_with(renderer, &settings(true))
}

/// `renderer`'s output for `settings`, credentials included.
pub(crate) fn render_with<R: Renderer>(renderer: &R, settings: &ProxySettings) -> R::Output {
    let cluster = Cluster::default();
    let input = Input {
        settings,
        cluster: &cluster,
        secrets: Secrets::Include,
    };
    renderer
        .render(input)
        .unwrap_or_else(|findings| panic!("{findings:?}"))
        .output
}

/// The renderers whose output changes with a trusted CA or the OS, rendered
/// now with a CA for every OS they take, against the same checks as their
/// golden files.
#[test]
fn renders_with_a_trusted_ca_against_their_checks() {
    let units = vec![
        "containerd.service".to_owned(),
        "kubelet.service".to_owned(),
    ];
    let os_families = [
        OsFamily::Debian,
        OsFamily::Rhel,
        OsFamily::Flatcar,
        OsFamily::Photon,
    ];
    let mut results = Vec::new();
    for variant in [Variant::Flatcar, Variant::Fcos] {
        let config = render(&Ignition {
            units: units.clone(),
            variant,
        })
        .config;
        assert!(config.contains(TRUST_UNIT), "the CA is rendered: {config}");
        for check in [
            Check::JsonSchema("ignition/3.3.0/ignition.json", whole),
            Check::JsonSchema("ignition/3.6.0/ignition.json", as_ignition_3_6),
            Check::IgnitionValidate,
        ] {
            results.push((format!("render ignition {variant:?}"), run(check, &config)));
        }
    }
    for os in os_families {
        let group_vars = kubespray::group_vars(&settings(true), os, Secrets::Include);
        assert!(group_vars.contains("https_proxy_cert_file"), "{group_vars}");
        for paths in KUBESPRAY {
            results.push((
                format!("render kubespray {os:?} against {}", paths[0]),
                run(Check::Variables(paths), &group_vars),
            ));
        }
        let user_data = render(&CloudInit {
            units: units.clone(),
            os,
        })
        .user_data;
        for check in [Check::CloudInit, Check::JsonSchema(CLOUD_INIT, whole)] {
            results.push((format!("render cloud-init {os:?}"), run(check, &user_data)));
        }
        for (cluster_name, base64_content) in [
            (None, false),
            (None, true),
            (Some("prod".to_owned()), false),
        ] {
            let capi = Capi {
                units: units.clone(),
                os,
                base64_content,
                cluster_name,
                namespace: "default".to_owned(),
            };
            let kubeadm = render(&capi).kubeadm.to_yaml();
            for api_version in [ApiVersion::V1beta2, ApiVersion::V1beta1] {
                let crds = capi_crds(api_version);
                // The objects the CRDs are checked with have the
                // `apiVersion` the data source names for this version.
                let api_versions: Vec<Value> = crds
                    .iter()
                    .map(|(_, embed)| embed(json!({}))["apiVersion"].clone())
                    .collect();
                assert_eq!(
                    api_versions,
                    [
                        json!(api_version.control_plane()),
                        json!(api_version.bootstrap()),
                        json!(api_version.bootstrap())
                    ]
                );
                for (path, embed) in crds {
                    assert!(
                        path.contains(&format!("/{}/", api_version.name())),
                        "{path}"
                    );
                    results.push((
                        format!(
                            "render capi {os:?} {capi:?} {api_version:?} as {path}",
                            capi = (&capi.cluster_name, capi.base64_content)
                        ),
                        run(Check::CrdFragment(path, embed), &kubeadm),
                    ));
                }
            }
        }
    }
    let helm = render(&Helm {
        config_map_name: "proxy-ca".to_owned(),
        namespace: None,
        credentials_secret: None,
    });
    for (label, check, values) in [
        (
            "render helm cert-manager 1.16",
            Check::JsonSchema("cert-manager/1.16/values.schema.json", whole),
            &helm.cert_manager,
        ),
        (
            "render helm cert-manager 1.21",
            Check::JsonSchema("cert-manager/1.21/values.schema.json", whole),
            &helm.cert_manager,
        ),
        (
            "render helm giantswarm",
            Check::JsonSchema(
                "giantswarm-cluster-aws/9.0.0/values.schema.json",
                giantswarm_values,
            ),
            &helm.giantswarm_global,
        ),
    ] {
        results.push((label.to_owned(), run(check, values)));
    }
    results.push((
        "render helm ConfigMap".to_owned(),
        run(
            Check::Crd(CONFIG_MAP),
            &helm.ca_config_map.expect("the CA ConfigMap"),
        ),
    ));
    // AKS takes no proxy credentials.
    let mut anonymous = settings(true);
    for url in [&mut anonymous.http_proxy, &mut anonymous.https_proxy] {
        *url = url.take().map(|u| u.with_credentials(None));
    }
    let aks = render_with(&Aks, &anonymous);
    assert!(aks.trusted_ca.is_some(), "the CA is rendered");
    for path in [
        "aks/2025-10-01/ManagedClusterHTTPProxyConfig.json",
        "aks/2026-01-01/ManagedClusterHTTPProxyConfig.json",
    ] {
        results.push((
            format!("render aks with a trusted CA as {path}"),
            run(Check::Arm(path), &aks.to_json_file()),
        ));
    }
    let pod_env = render(&PodEnv {
        config_map_name: "proxy-ca".to_owned(),
        namespace: Some("default".to_owned()),
        credentials_secret: None,
    });
    let (volumes, mounts) = pod_env.ca_volumes.expect("the CA volumes");
    for document in [pod_env.env_yaml, volumes, mounts] {
        results.push((
            "render pod env".to_owned(),
            run(
                Check::CrdFragment("kubernetes/1.36/podspec.json", pod_spec),
                &document,
            ),
        ));
    }
    results.push((
        "render pod env ConfigMap".to_owned(),
        run(
            Check::Crd(CONFIG_MAP),
            &pod_env.ca_config_map.expect("the CA ConfigMap"),
        ),
    ));
    let openshift = OpenShift {
        readiness_endpoints: vec!["https://quay.io/".to_owned()],
        ..OpenShift::default()
    };
    results.push((
        "render openshift Proxy".to_owned(),
        run(
            Check::Crd("openshift/v1/proxy.json"),
            &render(&openshift).proxy_manifest(),
        ),
    ));
    results.push((
        "render openshift install-config with a trusted CA".to_owned(),
        run(
            Check::Crd(INSTALL_CONFIG),
            &render(&openshift).install_config(),
        ),
    ));
    results.push((
        "render openshift user-ca-bundle ConfigMap".to_owned(),
        run(
            Check::Crd(CONFIG_MAP),
            &render(&openshift)
                .ca_config_map()
                .expect("the CA ConfigMap"),
        ),
    ));
    report(results);
}

/// Every file under tests/golden has a row in [`GOLDEN`] (a check, or the
/// reason why none exists), and every row names an existing file.
#[test]
fn every_golden_file_has_a_check() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let root = manifest_dir().join("tests/golden");
    let mut files = Vec::new();
    walk(&root, &mut files);
    let files: Vec<String> = files
        .iter()
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    let unchecked: Vec<_> = files
        .iter()
        .filter(|f| !GOLDEN.iter().any(|(g, _, _)| g == f))
        .collect();
    assert!(
        unchecked.is_empty(),
        "golden files without a schema check (add them to GOLDEN in tests/oracles/upstream_schemas.rs): {unchecked:?}"
    );
    let missing: Vec<_> = GOLDEN
        .iter()
        .filter(|(g, _, _)| !files.iter().any(|f| f == g))
        .map(|(g, _, _)| g)
        .collect();
    assert!(
        missing.is_empty(),
        "GOLDEN rows without a golden file: {missing:?}"
    );
    for (golden, version, check) in GOLDEN {
        if let Check::Uncovered(reason) = check {
            assert!(!reason.is_empty(), "{golden}: say why it has no check");
            eprintln!("not checked: {golden} ({version}): {reason}");
        }
    }
}

/// Every vendored schema is in PROVENANCE.md and used by a check, and every
/// Talos version rendered has its schema.
#[test]
fn every_schema_has_its_provenance_and_a_use() {
    let provenance = read("tests/schemas/PROVENANCE.md");
    let root = manifest_dir().join("tests/schemas");
    let mut used: Vec<String> = GOLDEN
        .iter()
        .flat_map(|(_, _, check)| match check {
            Check::Crd(p)
            | Check::CrdFragment(p, _)
            | Check::JsonSchema(p, _)
            | Check::Arm(p)
            | Check::ClusterClassVariable(p)
            | Check::Talos(p) => vec![(*p).to_owned()],
            Check::Variables(paths) => paths.iter().map(|p| (*p).to_owned()).collect(),
            _ => Vec::new(),
        })
        .collect();
    used.extend(TALOS.map(|(_, path)| path.to_owned()));
    used.push(CONFIG_MAP.to_owned());
    for consumer in std::fs::read_dir(&root).unwrap() {
        let consumer = consumer.unwrap().path();
        if !consumer.is_dir() {
            continue;
        }
        for version in std::fs::read_dir(&consumer).unwrap() {
            for file in std::fs::read_dir(version.unwrap().path()).unwrap() {
                let file = file.unwrap().path();
                let relative = file
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                assert!(
                    provenance.contains(&format!("| `{relative}` |")),
                    "{relative} is not in tests/schemas/PROVENANCE.md (run scripts/refresh-schemas)"
                );
                assert!(
                    used.contains(&relative),
                    "{relative} is vendored but no check uses it"
                );
            }
        }
    }
    for relative in &used {
        assert!(
            root.join(relative).is_file(),
            "{relative} is used but not vendored"
        );
    }
}

/// The supported-versions table of the platform guide names every version
/// of these consumers that a vendored schema checks (the directory under
/// tests/schemas, without an infrastructure prefix such as `vsphere-`), in
/// the row of the data source that renders for it.
#[test]
fn supported_versions_table_names_every_checked_version() {
    let guide = read("docs/guides/choosing-your-platform.md");
    let table = guide
        .split("## Supported versions")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a Supported versions section");
    for (consumer, data_source) in [
        ("tkg", "clusterproxy_tkg_config"),
        ("aks", "clusterproxy_aks_http_proxy_config"),
        ("openshift", "clusterproxy_openshift_proxy"),
        ("eksa", "clusterproxy_eksa_proxy_config"),
        ("kyverno", "clusterproxy_kyverno_policy"),
        ("cert-manager", "clusterproxy_helm_values"),
        ("giantswarm-cluster-aws", "clusterproxy_helm_values"),
    ] {
        let row = table
            .lines()
            .find(|line| line.starts_with(&format!("| `{data_source}` |")))
            .unwrap_or_else(|| panic!("no row for {data_source}"));
        for dir in std::fs::read_dir(manifest_dir().join("tests/schemas").join(consumer)).unwrap() {
            let dir = dir.unwrap().file_name().to_string_lossy().into_owned();
            let version = match dir.rsplit_once('-') {
                Some((prefix, version))
                    if prefix.chars().all(|c| c.is_ascii_lowercase() || c == '-') =>
                {
                    version.to_owned()
                }
                _ => dir.clone(),
            };
            assert!(
                row.contains(&version),
                "the {data_source} row of the supported-versions table does not name {version} ({consumer}/{dir}): {row}"
            );
        }
    }
}

/// Each kind of check fails on a document its consumer refuses.
mod known_bad {
    use super::*;

    fn fails(check: Check, text: &str, needle: &str) {
        let errs = run(check, text);
        assert!(
            errs.iter().any(|e| e.contains(needle)),
            "expected an error with {needle:?}, got {errs:?}"
        );
    }

    #[test]
    fn crd_rejects_a_wrong_type_and_an_unknown_field() {
        for (path, embed) in [
            (
                "capi/v1beta1/kubeadmcontrolplane.json",
                kcp_v1beta1 as fn(Value) -> Value,
            ),
            ("capi/v1beta2/kubeadmcontrolplane.json", kcp_v1beta2),
            ("capi/v1beta2/kubeadmconfigtemplate.json", kct_v1beta2),
            ("capi/v1beta1/kubeadmconfig.json", kc_v1beta1),
            ("capi/v1beta2/kubeadmconfig.json", kc_v1beta2),
        ] {
            let check = Check::CrdFragment(path, embed);
            fails(
                check,
                "files:\n- path: /etc/x\n  content: x\n  permissions: 384\n",
                "/files/0/permissions",
            );
            fails(check, "files:\n- path: /etc/x\n  contnet: x\n", "contnet");
            fails(
                check,
                "preKubeadmCommands:\n- ''\n",
                "/preKubeadmCommands/0",
            );
        }
        // The embeddings take a valid fragment: the errors above are the fragment's.
        for check in [
            Check::CrdFragment("capi/v1beta1/kubeadmcontrolplane.json", kcp_v1beta1),
            Check::CrdFragment("capi/v1beta2/kubeadmcontrolplane.json", kcp_v1beta2),
            Check::CrdFragment("capi/v1beta1/kubeadmconfigtemplate.json", kct_v1beta1),
            Check::CrdFragment("capi/v1beta2/kubeadmconfigtemplate.json", kct_v1beta2),
            Check::CrdFragment("capi/v1beta1/kubeadmconfig.json", kc_v1beta1),
            Check::CrdFragment("capi/v1beta2/kubeadmconfig.json", kc_v1beta2),
        ] {
            assert_eq!(
                run(check, "preKubeadmCommands: ['true']\n"),
                Vec::<String>::new()
            );
        }
        assert_eq!(
            run(
                Check::CrdFragment("eksa/v1alpha1/cluster.json", eksa_cluster),
                "{}"
            ),
            Vec::<String>::new()
        );
        fails(
            Check::CrdFragment("eksa/v1alpha1/cluster.json", eksa_cluster),
            "spec:\n  proxyConfiguration:\n    noProxy: a,b\n",
            "noProxy",
        );
        let kyverno = Check::Crd("kyverno/1.13/clusterpolicy-v1.json");
        fails(
            kyverno,
            "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: x}\nspec:\n  rules:\n  - name: r\n    match: {any: [{resources: {kind: [Pod]}}]}\n",
            "kind",
        );
        fails(
            Check::Crd("openshift/v1/proxy.json"),
            "apiVersion: config.openshift.io/v1\nkind: Proxy\nmetadata: {name: cluster}\nspec:\n  noProxy: [a, b]\n",
            "/spec/noProxy",
        );
    }

    /// [`structural`] reads each Kubernetes extension as the API server does.
    #[test]
    fn structural_reads_the_kubernetes_extensions() {
        let schema = json!({
            "type": "object",
            "properties": {
                "closed": {"type": "object", "properties": {"a": {"type": "string"}}},
                "open": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                    "x-kubernetes-preserve-unknown-fields": true,
                },
                "nullable": {"type": "string", "nullable": true},
                "port": {"x-kubernetes-int-or-string": true},
                "set": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            },
        });
        let v = build(&structural(&schema), Some(Draft::Draft4));
        let valid = json!({"closed": {"a": "x"}, "open": {"b": 1}, "nullable": null, "port": "http", "set": ["a", "b"]});
        assert_eq!(errors(&v, &valid), Vec::<String>::new());
        assert_eq!(errors(&v, &json!({"port": 80})), Vec::<String>::new());
        for (bad, path) in [
            (json!({"closed": {"b": "x"}}), "/closed"),
            (json!({"unknown": 1}), ""),
            (json!({"port": true}), "/port"),
            (json!({"set": ["a", "a"]}), "/set"),
            (json!({"nullable": 1}), "/nullable"),
        ] {
            let found = errors(&v, &bad);
            assert!(
                found.iter().any(|e| e.starts_with(&format!("at {path:?}"))),
                "{bad}: {found:?}"
            );
        }
    }

    #[test]
    fn kubernetes_core_rejects_a_wrong_type_and_an_unknown_field() {
        let pod = Check::CrdFragment("kubernetes/1.36/podspec.json", pod_spec);
        fails(
            pod,
            "env:\n- name: A\n  value: 1\n",
            "/containers/0/env/0/value",
        );
        fails(pod, "env:\n- nmae: A\n", "nmae");
        fails(
            pod,
            "env:\n- name: A\n  valueFrom: {secretKeyref: {name: x, key: A}}\n",
            "secretKeyref",
        );
        fails(
            pod,
            "env:\n- name: A\n  valueFrom: {secretKeyRef: {name: x}}\n",
            "key",
        );
        fails(pod, "volumes:\n- name: v\n  configMap: {nmae: x}\n", "nmae");
        assert_eq!(run(pod, "{}"), Vec::<String>::new());
        fails(
            Check::Crd("kubernetes/1.36/secret.json"),
            "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\nstringdata: {a: b}\n",
            "stringdata",
        );
        fails(
            Check::Crd("kubernetes/1.36/secret.json"),
            "apiVersion: v1\nkind: Secret\nmetadata: {name: x, namespaces: y}\n",
            "namespaces",
        );
    }

    /// `effectiveNoProxy` is in no stable API version: only the preview
    /// versions have it, read-only.
    #[test]
    fn arm_definition_rejects_a_wrong_type_and_an_unknown_property() {
        for path in [
            "aks/2025-10-01/ManagedClusterHTTPProxyConfig.json",
            "aks/2026-01-01/ManagedClusterHTTPProxyConfig.json",
        ] {
            let check = Check::Arm(path);
            fails(check, r#"{"noProxy": "a,b"}"#, "/noProxy");
            fails(
                check,
                r#"{"httpProxy": "http://p:1", "effectiveNoProxy": []}"#,
                "effectiveNoProxy",
            );
        }
    }

    /// TKG's cluster configuration: every variable we write, with a CA and
    /// system-wide, is one TKG 2.2 knows, with the type of its default; a
    /// misspelt variable and a wrong type are refused.
    #[test]
    fn tkg_cluster_config_takes_tkg_2_2_variables_only() {
        let tkg = Tkg {
            vsphere_server: None,
            system_wide: true,
        };
        let config = render_with(&tkg, &settings(true)).to_yaml();
        assert!(config.contains("TKG_PROXY_CA_CERT"), "{config}");
        assert_eq!(
            run(Check::Variables(TKG_2_2_VARIABLES), &config),
            Vec::<String>::new()
        );
        fails(
            Check::Variables(TKG_2_2_VARIABLES),
            "TKG_HTTP_PROXI: http://p:3128\n",
            "\"/TKG_HTTP_PROXI\": not a variable",
        );
        fails(
            Check::Variables(TKG_2_2_VARIABLES),
            "TKG_NODE_SYSTEM_WIDE_PROXY: \"yes\"\n",
            "is not a boolean",
        );
    }

    /// `systemWide` is in the vSphere class's `proxy` variable from
    /// tanzu-framework v0.28.1 (TKG 2.1.1) on, and in no other class.
    #[test]
    fn tkg_proxy_variable_takes_system_wide_on_vsphere_from_tkg_2_2() {
        let variable = r#"{"httpProxy": "http://p:1", "httpsProxy": "http://p:1", "noProxy": ["a"], "systemWide": true}"#;
        assert_eq!(
            run(
                Check::ClusterClassVariable("tkg/vsphere-0.29.0/proxy-variable.json"),
                variable
            ),
            Vec::<String>::new()
        );
        for path in [
            "tkg/vsphere-0.28.0/proxy-variable.json",
            "tkg/aws-0.29.0/proxy-variable.json",
            "tkg/azure-0.29.0/proxy-variable.json",
        ] {
            fails(Check::ClusterClassVariable(path), variable, "systemWide");
            fails(
                Check::ClusterClassVariable(path),
                r#"{"httpProxy": "http://p:1"}"#,
                "httpsProxy",
            );
        }
    }

    #[test]
    fn install_config_rejects_a_list_no_proxy_and_an_unknown_key() {
        let check = Check::Crd(INSTALL_CONFIG);
        fails(check, "proxy:\n  noProxy: [a, b]\n", "/proxy/noProxy");
        fails(check, "proxy:\n  noproxy: a\n", "noproxy");
        fails(
            check,
            "additionalTrustBundle: [x]\n",
            "/additionalTrustBundle",
        );
        fails(check, "trustedCA: x\n", "trustedCA");
    }

    #[test]
    fn values_schemas_reject_a_wrong_type() {
        fails(
            Check::JsonSchema("cert-manager/1.16/values.schema.json", whole),
            "no_proxy: [a, b]\n",
            "/no_proxy",
        );
        let giantswarm = Check::JsonSchema(
            "giantswarm-cluster-aws/9.0.0/values.schema.json",
            giantswarm_values,
        );
        fails(
            giantswarm,
            "global:\n  connectivity:\n    proxy:\n      noProxy: [a, b]\n",
            "/global/connectivity/proxy/noProxy",
        );
        assert_eq!(run(giantswarm, "{}"), Vec::<String>::new());
    }

    #[test]
    fn ignition_rejects_a_string_mode() {
        let config = r#"{"ignition":{"version":"3.3.0"},"storage":{"files":[{"path":"/etc/x","mode":"0600"}]}}"#;
        for check in [
            Check::JsonSchema("ignition/3.3.0/ignition.json", whole),
            Check::JsonSchema("ignition/3.6.0/ignition.json", as_ignition_3_6),
        ] {
            fails(check, config, "/storage/files/0/mode");
        }
        let relative = r#"{"ignition":{"version":"3.3.0"},"storage":{"files":[{"path":"etc/x"}]}}"#;
        fails(
            Check::IgnitionValidate,
            relative,
            "ignition-validate exited",
        );
    }

    #[test]
    fn talos_rejects_machine_env_from_1_13_and_accepts_it_before() {
        let patch = "machine:\n  env:\n    http_proxy: http://p:3128\n";
        fails(
            Check::Talos("talos/1.13/config.schema.json"),
            patch,
            "document 0",
        );
        assert_eq!(
            run(Check::Talos("talos/1.12/config.schema.json"), patch),
            Vec::<String>::new()
        );
        let environment = "apiVersion: v1alpha1\nkind: EnvironmentConfig\nvariables:\n  http_proxy: http://p:3128\n";
        assert_eq!(
            run(Check::Talos("talos/1.13/config.schema.json"), environment),
            Vec::<String>::new()
        );
        fails(
            Check::Talos("talos/1.12/config.schema.json"),
            environment,
            "document 0",
        );
        fails(
            Check::Talos("talos/1.10/config.schema.json"),
            "machine: {}\n---\napiVersion: v1alpha1\nkind: TrustedRootsConfig\ncertificates: x\n",
            "document 1",
        );
    }

    #[test]
    fn variables_reject_an_unknown_variable_and_a_wrong_type() {
        let check = Check::Variables(&["kubespray/2.31/group-vars-all.json"]);
        fails(
            check,
            "http_porxy: http://p:3128\n",
            "\"/http_porxy\": not a variable",
        );
        fails(
            check,
            "additional_no_proxy: [a, b]\n",
            "\"/additional_no_proxy\": [\"a\",\"b\"] is not a string",
        );
        fails(check, "- http_proxy: x\n", "not a mapping");
        assert_eq!(
            run(
                check,
                "http_proxy: http://p:3128\nadditional_no_proxy: a,b\n"
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn systemd_environment_file_rejects_what_systemd_drops_or_reads_otherwise() {
        fails(Check::EnvironmentFile, "1A=x\n", "invalid variable name");
        fails(Check::EnvironmentFile, "A x\n", "line 1: not an assignment");
        // Unquoted, systemd keeps `x y` where sh runs `y` with A set for it
        // alone: the two readers differ.
        fails(
            Check::EnvironmentFile,
            "# c\nA=x y\n",
            "line 2: systemd reads A=\"x y\", sh reads \"\"",
        );
        assert_eq!(
            run(
                Check::EnvironmentFile,
                "# c\nA=\"a b \\\"c\\\" \\\\ \\`d\\`\"\n"
            ),
            Vec::<String>::new()
        );
    }

    #[test]
    fn cloud_init_schema_rejects_a_bad_write_files_entry() {
        fails(
            Check::JsonSchema(CLOUD_INIT, whole),
            "#cloud-config\nwrite_files:\n- content: x\n  permissions: 420\n",
            "/write_files/0",
        );
        fails(
            Check::JsonSchema(CLOUD_INIT, whole),
            "#cloud-config\nruncmd: true\n",
            "/runcmd",
        );
        fails(
            Check::CloudInit,
            "#cloud-config\nwrite_files:\n- content: x\n  permissions: [1]\n",
            "cloud-init exited",
        );
    }

    #[test]
    fn systemd_analyze_rejects_a_bad_assignment() {
        fails(
            Check::SystemdDropin,
            "[Service]\nEnvironment=\"A=b\nBogus=1\n",
            "http-proxy.conf",
        );
        fails(
            Check::SystemdManager,
            "[Manager]\nDefaultEnvironment=\"A=b\nNope=1\n",
            "http-proxy.conf",
        );
        assert_eq!(
            run(Check::SystemdDropin, "[Service]\nEnvironment=\"A=b c\"\n"),
            Vec::<String>::new()
        );
    }
}

/// A Secret reference with its namespace, as the renderers that take one get it.
fn credentials_secret() -> CredentialsSecret {
    CredentialsSecret {
        name: "proxy-credentials".into(),
        namespace: Some("platform".into()),
    }
}

/// The policy options the Kyverno variant tests render for Kyverno
/// `version`: `kube-system` excluded; nothing excluded; nothing excluded and
/// the Secret cloned from its namespace; `kube-system` excluded and the
/// Secret read in place.
fn kyverno_variants(version: &str) -> [Kyverno; 4] {
    let base = Kyverno {
        version: version.into(),
        name: "clusterproxy-env".into(),
        excluded_namespaces: vec!["kube-system".into()],
        opt_out_annotation: "clusterproxy.io/no-proxy-env".into(),
        config_map_name: "clusterproxy-trusted-ca".into(),
        credentials_secret: None,
    };
    let reference = credentials_secret();
    let nothing_excluded = Kyverno {
        excluded_namespaces: Vec::new(),
        ..base.clone()
    };
    let cloned = Kyverno {
        credentials_secret: Some(reference.clone()),
        ..nothing_excluded.clone()
    };
    let in_place = Kyverno {
        credentials_secret: Some(CredentialsSecret {
            namespace: None,
            ..reference
        }),
        ..base.clone()
    };
    [base, nothing_excluded, cloned, in_place]
}

/// The policy's variants that no golden file holds (with the credentials,
/// nothing excluded, a Secret reference with and without its namespace)
/// against both Kyverno CRDs and Kyverno's models; a field Kyverno does not
/// know, a misspelt one and a wrong type are refused by both.
#[test]
fn kyverno_variants_against_the_crds_and_kyvernos_models() {
    let with_ca = settings(true);
    let [_, nothing_excluded, cloned, in_place] = kyverno_variants("1.16");
    let good: Vec<String> = [
        render_with(&nothing_excluded, &with_ca).policy,
        render_with(&cloned, &with_ca).policy,
        render_with(&cloned, &settings(false)).policy,
        render_with(&in_place, &settings(false)).policy,
    ]
    .into();
    let cloning = &good[1];
    assert!(
        cloning.contains("clone:") && cloning.contains("generateExisting: true"),
        "{cloning}"
    );
    let bad = [
        cloning.replace("synchronize:", "synchronise:"),
        cloning.replace("clone:", "klone:"),
        cloning.replace("generateExisting: true", "generateExisting: [x]"),
    ];
    let all: Vec<&str> = good.iter().chain(&bad).map(String::as_str).collect();
    let models = kyverno_models(&all);
    for (i, text) in all.iter().enumerate() {
        let expect_valid = i < good.len();
        for crd in [
            "kyverno/1.13/clusterpolicy-v1.json",
            "kyverno/1.19/clusterpolicy-v1.json",
        ] {
            let errors = run(Check::Crd(crd), text);
            assert_eq!(
                errors.is_empty(),
                expect_valid,
                "{crd}, variant {i}: {errors:?}\n{text}"
            );
        }
        assert_eq!(
            models[i].is_empty(),
            expect_valid,
            "Kyverno models, variant {i}: {:?}\n{text}",
            models[i]
        );
    }
}

/// The credentials Secret (with and without its namespace) and the env
/// entries pods and cert-manager's `extraEnv` get (plain, and with a Secret
/// reference), with and without the credentials, against Kubernetes 1.36
/// core/v1, read strictly: no golden file holds most of these variants.
#[test]
fn secret_and_env_variants_against_kubernetes_core_v1() {
    let s = settings(true);
    let in_namespace = credentials_secret();
    let bare = CredentialsSecret {
        namespace: None,
        ..in_namespace.clone()
    };
    let secret = Check::Crd("kubernetes/1.36/secret.json");
    let pod = Check::CrdFragment("kubernetes/1.36/podspec.json", pod_spec);
    let mut results = Vec::new();
    for secrets in [Secrets::Include, Secrets::Redact] {
        for reference in [&in_namespace, &bare] {
            let manifest = reference.render(&s, secrets).manifest;
            results.push((
                format!("Secret {reference:?} {secrets:?}"),
                run(secret, &manifest),
            ));
        }
        for reference in [None, Some(&in_namespace)] {
            let env = json!({"env": env_json(&s, secrets, reference)});
            results.push((
                format!("env {reference:?} {secrets:?}"),
                run(pod, &env.to_string()),
            ));
            let values = cert_manager(&s, &Cluster::default(), "proxy-ca", secrets, reference);
            let extra_env = json!({"env": documents(&values)[0]["extraEnv"]});
            assert!(
                extra_env["env"].as_array().is_some_and(|e| !e.is_empty()),
                "{values}"
            );
            results.push((
                format!("cert-manager extraEnv {reference:?} {secrets:?}"),
                run(pod, &extra_env.to_string()),
            ));
        }
    }
    report(results);
}

/// The CEL policies' variants that no golden file holds (with the
/// credentials, nothing excluded, a Secret reference with and without its
/// namespace), rendered for each Kyverno release that has them, against
/// that release's CRDs; a misspelt field and a wrong type are refused.
#[test]
fn kyverno_cel_policy_variants_against_each_releases_crds() {
    let (with_ca, without) = (settings(true), settings(false));
    let [base, nothing_excluded, cloned, in_place] = kyverno_variants("");
    let variants = [
        (&base, &with_ca),
        (&nothing_excluded, &with_ca),
        (&cloned, &with_ca),
        (&cloned, &without),
        (&in_place, &without),
    ];
    for (minor, mutating_crd, generating_crd) in [
        (
            "1.17",
            "kyverno/1.17/mutatingpolicies-v1.json",
            "kyverno/1.17/generatingpolicies-v1.json",
        ),
        (
            "1.18",
            "kyverno/1.18/mutatingpolicies-v1.json",
            "kyverno/1.18/generatingpolicies-v1.json",
        ),
        (
            "1.19",
            "kyverno/1.19/mutatingpolicies-v1.json",
            "kyverno/1.19/generatingpolicies-v1.json",
        ),
    ] {
        let mut documents = Vec::new();
        for (variant, settings) in variants {
            let variant = Kyverno {
                version: minor.into(),
                ..variant.clone()
            };
            let out = render_with(&variant, settings);
            documents.push((mutating_crd, out.policy));
            documents.extend(out.generating_policy.map(|g| (generating_crd, g)));
        }
        // Four generating policies: with a CA (three times) and the clone alone.
        assert_eq!(documents.len(), 9, "{documents:?}");
        let mutating = documents[0].1.clone();
        let generating = documents[1].1.clone();
        let bad = [
            (
                mutating_crd,
                mutating.replace("matchConditions:", "matchCondition:"),
            ),
            (mutating_crd, mutating.replace("jsonPatch:", "jsonpatch:")),
            (mutating_crd, mutating.replace("- CREATE", "- [CREATE]")),
            (
                generating_crd,
                generating.replace("synchronize:", "synchronise:"),
            ),
            (
                generating_crd,
                generating.replace("enabled: true", "enabled: [x]"),
            ),
        ];
        for (i, (crd, text)) in documents.iter().chain(&bad).enumerate() {
            let errors = run(Check::Crd(crd), text);
            assert_eq!(
                errors.is_empty(),
                i < documents.len(),
                "{crd}, variant {i}: {errors:?}\n{text}"
            );
        }
    }
}
