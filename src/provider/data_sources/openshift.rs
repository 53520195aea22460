//! `clusterproxy_openshift_proxy`: OpenShift's install-config `proxy:` block,
//! the cluster `Proxy` object, the `user-ca-bundle` ConfigMap and the modelled
//! `status.noProxy`.

use crate::domain::no_proxy::typed::Kind;
use crate::domain::render::openshift::{self, OpenShift};
use crate::domain::render::Secrets;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field};
use crate::framework::schema::{NoNullElements, Schema};
use crate::framework::value::Value;
use crate::provider::inputs::{self, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};
use crate::provider::validators::Is;

#[derive(Debug, Clone, Copy)]
pub struct OpenShiftProxyDataSource;

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        pub readiness_endpoints: Vec<String> [optional("`spec.readinessEndpoints`: `http://` or `https://` URLs the operator probes through the proxy before it accepts the configuration.").validator(NoNullElements)],
        pub api_internal_host: Option<String> [optional("Host of the cluster's internal API URL (`api-int.<cluster name>.<base domain>`), which the operator adds to `status.noProxy`.").validator(Is(Kind::Host))],
        pub aws_region: Option<String> [optional("AWS region of the cluster (with `cloud = \"aws\"`): the operator adds `.<region>.compute.internal` (`.ec2.internal` in us-east-1).").validator(Is(Kind::AwsRegion))],
    }
}

crate::model! {
    pub struct State {
        pub install_config_yaml: String [computed("The `install-config.yaml` fragment: `proxy:` (`httpProxy`, `httpsProxy`, `noProxy`) and, with `trusted_ca`, `additionalTrustBundle`. Holds the credentials: OpenShift's proxy settings take no Secret reference.").sensitive()],
        pub install_config_yaml_redacted: String [computed("`install_config_yaml` with the proxy password replaced by `***`.")],
        pub proxy_yaml: String [computed("The `config.openshift.io/v1` `Proxy` named `cluster`: `httpProxy`, `httpsProxy`, `noProxy` (the merged list, comma-joined), `readinessEndpoints`, and with `trusted_ca` `trustedCA.name = user-ca-bundle`. Holds the credentials: OpenShift's proxy settings take no Secret reference.").sensitive()],
        pub proxy_yaml_redacted: String [computed("`proxy_yaml` with the proxy password replaced by `***`.")],
        pub ca_config_map_yaml: Option<String> [computed("With `trusted_ca`, the ConfigMap `user-ca-bundle` in `openshift-config` with the bundle under `ca-bundle.crt`; null without it.")],
        pub no_proxy: String [computed("`noProxy` as written: the merged list, comma-joined (a bare IPv6 address as its `/128` block, which the operator accepts).")],
        pub status_no_proxy: Vec<String> [computed("The `status.noProxy` the cluster-network-operator will compute: its own entries (127.0.0.1, localhost, .svc, .cluster.local, `node_cidrs` as machine networks, `api_internal_host`, `service_cidrs`, 169.254.169.254 on aws/azure/gcp, the AWS region's node domain, GCP's metadata names, `pod_cidrs` as cluster networks) and `noProxy`, as a sorted set.")],
    }
}

impl DataSource for OpenShiftProxyDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_openshift_proxy"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders OpenShift's proxy settings and enforces OpenShift's rules (installer and cluster-network-operator): `http://` httpProxy, `http://` or `https://` httpsProxy, no proxy IP inside the pod or service networks, noProxy entries that are IPs, CIDRs or domain names (no wildcards, no ports; `*` only alone), `http(s)://` readiness endpoints. Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let proxy = config.proxy.resolve(diags)?;
        // `noProxy` is written five times: both forms of `install_config_yaml`
        // and of `proxy_yaml`, and `no_proxy`.
        let least = 5 * openshift::no_proxy_value_len_at_least(&proxy.settings.no_proxy);
        inputs::refuse_oversized(least, proxy.settings_at, diags)?;
        let openshift = OpenShift {
            readiness_endpoints: config.readiness_endpoints,
            api_internal_host: config.api_internal_host,
            aws_region: config.aws_region,
        };
        // Rendered once: the redacted documents come from the same
        // settings, so a large list is held once.
        let secret = inputs::render(&openshift, &proxy, Secrets::Include, diags)?;
        drop(proxy);
        let install_config_yaml = secret.install_config();
        let proxy_yaml = secret.proxy_manifest();
        let ca_config_map_yaml = secret.ca_config_map();
        let redacted = secret.redacted();
        Some(model::computed(State {
            install_config_yaml,
            install_config_yaml_redacted: redacted.install_config(),
            proxy_yaml,
            proxy_yaml_redacted: redacted.proxy_manifest(),
            ca_config_map_yaml,
            no_proxy: redacted.no_proxy_value(),
            status_no_proxy: redacted.status_no_proxy,
        }))
    }
}

impl Platform for OpenShiftProxyDataSource {
    fn area(&self) -> Area {
        Area::Distributions
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "OpenShift",
            writes: "the install-config `proxy:` block, the cluster `Proxy`, the `user-ca-bundle` ConfigMap",
            pitfalls: "noProxy takes no wildcards or ports; `status.noProxy` is modelled (the operator adds the networks and `api-int`)",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "OpenShift 4.x install-config `proxy:` and `additionalTrustBundle` (checked against the installer's InstallConfig CRD) and `config.openshift.io/v1` `Proxy` (checked against openshift/api's CRD)",
            differences: "one format",
        }
    }

    fn summary(&self) -> &'static str {
        "OpenShift's install-config `proxy:` block, the cluster `Proxy`, the `user-ca-bundle` ConfigMap, OpenShift's rules and the modelled `status.noProxy`"
    }
}
