//! `clusterproxy_openshift_proxy`: OpenShift's install-config `proxy:` block,
//! the cluster `Proxy` object, the `user-ca-bundle` ConfigMap and the modelled
//! `status.noProxy`.

use crate::domain::render::openshift::OpenShift;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::schema::{Attribute, NoNullElements, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct OpenShiftProxySource;

impl DataSource for OpenShiftProxySource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_openshift_proxy"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::optional("readiness_endpoints", Type::list(Type::String), "`spec.readinessEndpoints`: `http://` or `https://` URLs the operator probes through the proxy before it accepts the configuration.").validator(NoNullElements),
            Attribute::optional("api_internal_host", Type::String, "Host of the cluster's internal API URL (`api-int.<cluster name>.<base domain>`), which the operator adds to `status.noProxy`."),
            Attribute::optional("aws_region", Type::String, "AWS region of the cluster (with `cloud = \"aws\"`): the operator adds `.<region>.compute.internal` (`.ec2.internal` in us-east-1)."),
            Attribute::computed("install_config_yaml", Type::String, "The `install-config.yaml` fragment: `proxy:` (`httpProxy`, `httpsProxy`, `noProxy`) and, with `trusted_ca`, `additionalTrustBundle`. Holds the credentials.").sensitive(),
            Attribute::computed("install_config_yaml_redacted", Type::String, "`install_config_yaml` with the proxy password replaced by `***`."),
            Attribute::computed("proxy_yaml", Type::String, "The `config.openshift.io/v1` `Proxy` named `cluster`: `httpProxy`, `httpsProxy`, `noProxy` (the merged list, comma-joined), `readinessEndpoints`, and with `trusted_ca` `trustedCA.name = user-ca-bundle`. Holds the credentials.").sensitive(),
            Attribute::computed("proxy_yaml_redacted", Type::String, "`proxy_yaml` with the proxy password replaced by `***`."),
            Attribute::computed("ca_config_map_yaml", Type::String, "With `trusted_ca`, the ConfigMap `user-ca-bundle` in `openshift-config` with the bundle under `ca-bundle.crt`; null without it."),
            Attribute::computed("no_proxy", Type::String, "`noProxy` as written: the merged list, comma-joined (a bare IPv6 address as its `/128` block, which the operator accepts)."),
            Attribute::computed("status_no_proxy", Type::list(Type::String), "The `status.noProxy` the cluster-network-operator will compute: its own entries (127.0.0.1, localhost, .svc, .cluster.local, `node_cidrs` as machine networks, `api_internal_host`, `service_cidrs`, 169.254.169.254 on aws/azure/gcp, the AWS region's node domain, GCP's metadata names, `pod_cidrs` as cluster networks) and `noProxy`, as a sorted set."),
        ]);
        Schema::new(
            "Renders OpenShift's proxy settings and enforces OpenShift's rules (installer and cluster-network-operator): `http://` httpProxy, `http://` or `https://` httpsProxy, no proxy IP inside the pod or service networks, noProxy entries that are IPs, CIDRs or domain names (no wildcards, no ports; `*` only alone), `http(s)://` readiness endpoints. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let proxy = inputs::read_proxy(config, diags)?;
        let openshift = OpenShift {
            readiness_endpoints: convert::strings(config, "readiness_endpoints"),
            api_internal_host: convert::string(config, "api_internal_host"),
            aws_region: convert::string(config, "aws_region"),
        };
        let (secret, redacted) = inputs::render_both(&openshift, &proxy, diags)?;
        let mut state = config.clone();
        for (name, rendered) in [
            ("install_config_yaml", &secret),
            ("install_config_yaml_redacted", &redacted),
        ] {
            state.set_attr(name, Value::string(rendered.install_config()));
        }
        for (name, rendered) in [("proxy_yaml", &secret), ("proxy_yaml_redacted", &redacted)] {
            state.set_attr(name, Value::string(rendered.proxy_manifest()));
        }
        state.set_attr(
            "ca_config_map_yaml",
            Value::opt_string(secret.ca_config_map()),
        );
        state.set_attr("no_proxy", Value::string(secret.no_proxy_value()));
        state.set_attr(
            "status_no_proxy",
            convert::string_list(&secret.status_no_proxy),
        );
        Some(state)
    }
}
