//! `clusterproxy_kubespray`: kubespray `group_vars` and the `no_proxy` it generates.

use std::collections::BTreeMap;

use crate::domain::no_proxy::typed::Kind;
use crate::domain::render::kubespray;

use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::model::{self, Field as _, Maybe};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::convert::{self, SettingsAt};
use crate::provider::inputs;
use crate::provider::inputs::{CaFile, Needed, OsFamilyInput, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};
use crate::provider::validators::{Is, KeysAre};

#[derive(Debug, Clone, Copy)]
pub struct KubesprayDataSource;

/// `kubespray_version` when unset: the current stable kubespray minor.
pub const DEFAULT_VERSION: &str = "2.31";

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        pub inventory_hosts: BTreeMap<String, Maybe<String>> [optional("Hosts of the `k8s_cluster`, `etcd` and `calico_rr` groups: inventory name to `access_ip` (or `ip`), an IP address. Only shapes `effective_no_proxy`: kubespray adds these itself.").validator(KeysAre(Kind::Host))],
        pub loadbalancer_apiserver_address: Maybe<String> [optional("`loadbalancer_apiserver.address` (an IP address), when the inventory defines `loadbalancer_apiserver`; kubespray then adds it and `apiserver_loadbalancer_domain_name`.")],
        pub apiserver_loadbalancer_domain_name: Maybe<String> [optional("`apiserver_loadbalancer_domain_name`, a host name, with `loadbalancer_apiserver_address`; setting it without one is an error. Unset, kubespray's default for `kubespray_version`: `lb-apiserver.kubernetes.local` until 2.29, the load balancer address from 2.30.").validator(Is(Kind::Host))],
        pub kubespray_version: Maybe<String> [with_default(Value::string(DEFAULT_VERSION), "kubespray release of the inventory (`2.30`, `v2.31.0`...): decides how `effective_no_proxy` is modelled. Until 2.29 the load balancer is named `lb-apiserver.kubernetes.local` by default, from 2.30 by its address; until 2.30 kubespray joins its template's entries as they come, from 2.31 it groups host addresses, names and qualified names and keeps each entry once. Defaults to `2.31`, the current stable release.")],
        /// The OS family.
        pub os_family: OsFamilyInput [embed],
    }
}

crate::model! {
    pub struct State {
        pub group_vars: String [computed("A `group_vars` YAML file (e.g. `inventory/<cluster>/group_vars/all/proxy.yml`) with `http_proxy`, `https_proxy` and `additional_no_proxy`, the merged NO_PROXY, and with `trusted_ca` `https_proxy_cert_file`: the system trust store of `os_family`, which `ca_commands` add the CA to (kubespray sets it as `SSL_CERT_FILE` for its own downloads, in place of their default trust store). It leaves `no_proxy` unset on purpose: a `no_proxy` variable replaces kubespray's generated list, and with it every node and the load balancer. Holds the credentials: kubespray's variables take no Secret reference.").sensitive()],
        pub group_vars_redacted: String [computed("`group_vars` with the proxy password replaced by `***`, for review.")],
        /// The CA bundle file.
        pub ca_files: Vec<CaFile> [computed(inputs::OS_TRUST_CA_FILES)],
        pub ca_commands: Vec<String> [computed("With `trusted_ca`, the trust store update of `os_family` to run on every node after writing `ca_files` (e.g. with Ansible's `copy` and `command` modules before `cluster.yml`: kubespray's `https_proxy_cert_file` names a file already on the nodes and does not install it); empty without it.")],
        pub effective_no_proxy: String [computed("The `no_proxy` that `kubespray_version` will generate (roles/network_facts): until 2.30, with `loadbalancer_apiserver_address` the domain name and the address, then per inventory host (in name order here, names written canonical) its address, name and `<name>.<cluster_domain>`, then `additional_no_proxy`, then `127.0.0.1`, `localhost`, `kube_service_addresses` (the first `service_cidrs` entry, kubespray's default `10.233.0.0/18` without), `kube_pods_subnet` (the first `pod_cidrs` entry, default `10.233.64.0/18`), `svc` and `svc.<cluster_domain>`; from 2.31 the domain name (`localhost` without a load balancer), the address, every host address, every name, every `<name>.<cluster_domain>`, the `additional_no_proxy` entries and the same tail, each entry once where it first occurs. Hosts whose `ansible_hostname` differs from the inventory name also get that name; not modelled.")],
    }
}

impl Config {
    /// The renderer's inventory (unknown addresses left out; a version not
    /// known yet, at validation, read as the default), checked by kubespray's rules; errors
    /// as diagnostics, but for the host names, which the schema's host
    /// grammar reports on their key or attribute.
    fn checked_inventory(&self, diags: &mut Diagnostics) -> Option<kubespray::Kubespray> {
        let version = self
            .kubespray_version
            .known()
            .map_or(DEFAULT_VERSION, String::as_str)
            .to_owned();
        let inventory = kubespray::Kubespray {
            version,
            hosts: self
                .inventory_hosts
                .iter()
                .filter(|(_, address)| !address.is_unknown())
                .map(|(name, address)| (name.clone(), address.known().cloned().unwrap_or_default()))
                .collect(),
            loadbalancer: self.loadbalancer_apiserver_address.known().map(|address| {
                (
                    address.clone(),
                    self.apiserver_loadbalancer_domain_name.known().cloned(),
                )
            }),
            os_family: self.os_family.family(),
        };
        match inventory.checked() {
            Ok(_) => Some(inventory),
            Err(mut findings) => {
                findings.retain(|f| match f.location.map(|l| l.field) {
                    Some(kubespray::INVENTORY_HOSTS) => f.summary == kubespray::HOST_ADDRESS_NOT_IP,
                    Some(kubespray::APISERVER_LOADBALANCER_DOMAIN_NAME) => false,
                    _ => true,
                });
                let root = AttributePath::root();
                convert::push_findings(&findings, &root, SettingsAt::Renderer, diags);
                None
            }
        }
    }
}

impl DataSource for KubesprayDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_kubespray"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders kubespray `group_vars` for a proxy with the merged NO_PROXY as `additional_no_proxy`, and models the `no_proxy` kubespray generates from the inventory, so that what the nodes get can be reviewed before a run. With `trusted_ca`, `https_proxy_cert_file`, the CA bundle file for `os_family` and its trust command, for a play of your own. Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let Some(config) = Config::get_planned(config, diags) else {
            return;
        };
        config.checked_inventory(diags);
        let needed = Needed {
            name: Config::loadbalancer_apiserver_address,
            absent: config.loadbalancer_apiserver_address.is_null(),
            remedy: "set `loadbalancer_apiserver_address` (kubespray adds the name only with `loadbalancer_apiserver`)",
        };
        let name_set = config.apiserver_loadbalancer_domain_name.known().is_some();
        inputs::reject_without(
            &needed,
            &[(Config::apiserver_loadbalancer_domain_name, name_set)],
            diags,
        );
        config
            .proxy
            .validate_ca_only_inputs(&[config.os_family.ca_only()], diags);
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let renderer = config.checked_inventory(diags);
        let proxy = config.proxy.resolve(diags)?;
        let renderer = renderer?;
        let settings = &proxy.settings;
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        let os = renderer.os_family;
        let trust_command = settings.trusted_ca.as_ref().map(|_| os.trust_command());
        Some(model::computed(State {
            group_vars: secret.group_vars,
            group_vars_redacted: redacted.group_vars,
            ca_files: inputs::ca_files(settings, os),
            ca_commands: trust_command.into_iter().map(str::to_owned).collect(),
            effective_no_proxy: secret.effective_no_proxy,
        }))
    }
}

impl Platform for KubesprayDataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "kubespray",
            writes: "`group_vars`: `http_proxy`, `https_proxy`, `additional_no_proxy`, with a CA `https_proxy_cert_file`",
            pitfalls: "a user-set `no_proxy` replaces the list kubespray generates, so it is left unset; `effective_no_proxy` models the list `kubespray_version` generates",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: Some(Config::kubespray_version),
            consumers: "kubespray 2.x; modelled on 2.29, 2.30 and 2.31; `group_vars` checked against the variables of each one's sample inventory",
            differences: "the load balancer name defaults to `lb-apiserver.kubernetes.local` until 2.29 and to its address from 2.30; until 2.30 `no_proxy` is a template joined as it comes, from 2.31 a list grouped by kind with each entry once. `group_vars` is the same for all (`https_proxy_cert_file` exists in all of them)",
        }
    }

    fn summary(&self) -> &'static str {
        "kubespray `group_vars` and a model of the `no_proxy` kubespray generates"
    }
}
