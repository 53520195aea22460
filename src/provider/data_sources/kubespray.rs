//! `clusterproxy_kubespray`: kubespray `group_vars` and the `no_proxy` it generates.

use crate::domain::render::kubespray;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::schema::{Attribute, NotBlank, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct Kubespray;

/// The inventory hosts as (name, address), unknown addresses left out, and
/// the load balancer address.
fn inventory_inputs(config: &Value) -> (Vec<(String, String)>, Option<String>) {
    let entries = config.get_attr("inventory_hosts").and_then(Value::entries);
    let hosts = entries
        .into_iter()
        .flatten()
        .filter(|(_, value)| !value.is_unknown())
        .map(|(name, value)| (name.clone(), value.as_str().unwrap_or_default().to_owned()))
        .collect();
    (
        hosts,
        convert::string(config, "loadbalancer_apiserver_address"),
    )
}

/// The inventory, checked by kubespray's rules; errors as diagnostics.
fn checked_inventory(config: &Value, diags: &mut Diagnostics) -> Option<Vec<(String, String)>> {
    let (hosts, loadbalancer) = inventory_inputs(config);
    let findings = kubespray::check_inventory(&hosts, loadbalancer.as_deref());
    convert::push_findings(&findings, &AttributePath::root(), diags);
    findings.is_empty().then_some(hosts)
}

impl DataSource for Kubespray {
    fn type_name(&self) -> &'static str {
        "clusterproxy_kubespray"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            Attribute::optional("inventory_hosts", Type::map(Type::String), "Hosts of the `k8s_cluster`, `etcd` and `calico_rr` groups: inventory name to `access_ip` (or `ip`), an IP address. Only shapes `effective_no_proxy`: kubespray adds these itself."),
            Attribute::optional("loadbalancer_apiserver_address", Type::String, "`loadbalancer_apiserver.address` (an IP address), when the inventory defines `loadbalancer_apiserver`; kubespray then adds it and `apiserver_loadbalancer_domain_name`."),
            Attribute::with_default("apiserver_loadbalancer_domain_name", Type::String, Value::string("lb-apiserver.kubernetes.local"), "`apiserver_loadbalancer_domain_name` (kubespray's default `lb-apiserver.kubernetes.local`); used with `loadbalancer_apiserver_address`.").validator(NotBlank),
            Attribute::computed(
                "group_vars",
                Type::String,
                "A `group_vars` YAML file (e.g. `inventory/<cluster>/group_vars/all/proxy.yml`) with `http_proxy`, `https_proxy` and `additional_no_proxy`, the merged NO_PROXY. It leaves `no_proxy` unset on purpose: a `no_proxy` variable replaces kubespray's generated list, and with it every node and the load balancer. Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed("group_vars_redacted", Type::String, "`group_vars` with the proxy password replaced by `***`, for review."),
            inputs::os_family_attribute(),
            super::rke2::ca_files_attribute(),
            Attribute::computed("ca_commands", Type::list(Type::String), "With `trusted_ca`, the trust store update of `os_family` to run on every node after writing `ca_files` (e.g. with Ansible's `copy` and `command` modules before `cluster.yml`: kubespray has no variable for a proxy CA); empty without it."),
            Attribute::computed(
                "effective_no_proxy",
                Type::String,
                "The `no_proxy` kubespray will generate (roles/kubespray-defaults/tasks/no_proxy.yml): with `loadbalancer_apiserver_address` the domain name and the address, then per inventory host (in name order here) its address, name and `<name>.<cluster_domain>`, then `additional_no_proxy`, then `127.0.0.1`, `localhost`, `kube_service_addresses` (the first `service_cidrs` entry, kubespray's default `10.233.0.0/18` without), `kube_pods_subnet` (the first `pod_cidrs` entry, default `10.233.64.0/18`), `svc` and `svc.<cluster_domain>`. Hosts whose `ansible_hostname` differs from the inventory name also get that name; not modelled.",
            ),
        ]);
        Schema::new(
            "Renders kubespray `group_vars` for a proxy with the merged NO_PROXY as `additional_no_proxy`, and models the `no_proxy` kubespray generates from the inventory, so that what the nodes get can be reviewed before a run. With `trusted_ca`, the CA bundle file for `os_family` and its trust command, for a play of your own (kubespray has no proxy CA variable). Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        checked_inventory(config, diags);
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let hosts = checked_inventory(config, diags);
        let proxy = inputs::read_proxy(config, diags)?;
        let settings = &proxy.settings;
        let kubespray = kubespray::Kubespray {
            hosts: hosts?,
            loadbalancer: convert::string(config, "loadbalancer_apiserver_address").map(
                |address| {
                    let name = convert::string(config, "apiserver_loadbalancer_domain_name")
                        .unwrap_or_default();
                    (name, address)
                },
            ),
        };
        let (secret, redacted) = inputs::render_both(&kubespray, &proxy, diags)?;
        let mut state = config.clone();
        state.set_attr("group_vars", Value::string(secret.group_vars));
        state.set_attr("group_vars_redacted", Value::string(redacted.group_vars));
        let os = inputs::read_os_family(config);
        state.set_attr("ca_files", super::rke2::ca_files(settings, os));
        let trust_command = settings.trusted_ca.as_ref().map(|_| os.trust_command());
        state.set_attr(
            "ca_commands",
            convert::string_list(&Vec::from_iter(trust_command)),
        );
        state.set_attr(
            "effective_no_proxy",
            Value::string(secret.effective_no_proxy),
        );
        Some(state)
    }
}
