//! `clusterproxy_no_proxy`: the merged NO_PROXY list of one cluster.

use crate::domain::no_proxy::{merge, Source, LOOPBACK_DEFAULTS};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostics};
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::convert;

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct NoProxy;

const LIST_INPUTS: [(&str, &str); 4] = [
    ("installation", "Installation-wide entries shared by every cluster (registry, corporate domains and ranges)."),
    ("pod_cidrs", "Pod network CIDR blocks of the cluster."),
    ("service_cidrs", "Service network CIDR blocks of the cluster."),
    ("node_cidrs", "Node or machine network CIDR blocks of the cluster."),
];

impl DataSource for NoProxy {
    fn type_name(&self) -> &'static str {
        "clusterproxy_no_proxy"
    }

    fn schema(&self) -> Schema {
        let mut attributes: Vec<Attribute> = LIST_INPUTS
            .iter()
            .map(|(name, description)| {
                Attribute::optional(name, Type::list(Type::String), description)
            })
            .collect();
        attributes.extend([
            Attribute::with_default(
                "cluster_domain",
                Type::String,
                Value::string("cluster.local"),
                "Cluster DNS domain; it covers every in-cluster service name. Defaults to `cluster.local`.",
            ),
            Attribute::optional("apiserver_host", Type::String, "Host name or IP address of the Kubernetes API server endpoint."),
            Attribute::optional("extra", Type::list(Type::String), "Further entries, appended last."),
            Attribute::computed(
                "entries",
                Type::list(Type::String),
                "The merged entries: normalised (trimmed, lowercased, trailing dot removed, canonical CIDRs), duplicates removed, in source order: installation, pod, service and node CIDRs, cluster domain, apiserver host, `localhost`, `127.0.0.1`, extra.",
            ),
            Attribute::computed("no_proxy", Type::String, "The merged entries joined with commas, the form Go, curl and Python read from `NO_PROXY`."),
        ]);
        Schema::new(
            "Merges installation-wide and cluster-specific NO_PROXY entries into one normalised, de-duplicated list in a deterministic order. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        for name in LIST_INPUTS.iter().map(|(n, _)| *n).chain(["extra"]) {
            convert::null_elements(config, name, diags);
        }
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let lists: Vec<Vec<String>> = LIST_INPUTS
            .iter()
            .map(|(name, _)| convert::strings(config, name))
            .collect();
        let cluster_domain: Vec<String> = convert::string(config, "cluster_domain")
            .into_iter()
            .collect();
        let apiserver: Vec<String> = convert::string(config, "apiserver_host")
            .into_iter()
            .collect();
        let defaults: Vec<String> = LOOPBACK_DEFAULTS.iter().map(|s| (*s).to_owned()).collect();
        let extra = convert::strings(config, "extra");
        let mut sources: Vec<Source<'_>> = LIST_INPUTS
            .iter()
            .zip(&lists)
            .map(|((field, _), entries)| Source { field, entries })
            .collect();
        sources.extend([
            Source {
                field: "cluster_domain",
                entries: &cluster_domain,
            },
            Source {
                field: "apiserver_host",
                entries: &apiserver,
            },
            Source {
                field: "",
                entries: &defaults,
            },
            Source {
                field: "extra",
                entries: &extra,
            },
        ]);
        let entries = match merge(&sources) {
            Ok(entries) => entries,
            Err(findings) => {
                // Single-value inputs carry no index.
                let findings: Vec<_> = findings
                    .into_iter()
                    .map(|mut f| {
                        if f.field == "cluster_domain" || f.field == "apiserver_host" {
                            f.index = None;
                        }
                        f
                    })
                    .collect();
                convert::push_findings(&findings, &AttributePath::root(), diags);
                return None;
            }
        };
        let mut state = config.clone();
        state.set_attr("no_proxy", Value::string(entries.join(",")));
        state.set_attr("entries", convert::string_list(&entries));
        Some(state)
    }
}
