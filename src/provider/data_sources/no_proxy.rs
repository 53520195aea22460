//! `clusterproxy_no_proxy`: the merged NO_PROXY list of one cluster, its
//! per-client renderings and the coverage check.

use crate::domain::no_proxy::{gaps, render, Destination};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::schema::{Attribute, NoNullElements, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct NoProxy;

fn client_warning_type() -> Type {
    Type::object([
        ("client", Type::String),
        ("entry", Type::String),
        ("message", Type::String),
    ])
}

fn gap_type() -> Type {
    Type::object([("client", Type::String), ("destination", Type::String)])
}

fn subsumed_type() -> Type {
    Type::object([("entry", Type::String), ("covered_by", Type::String)])
}

impl DataSource for NoProxy {
    fn type_name(&self) -> &'static str {
        "clusterproxy_no_proxy"
    }

    fn schema(&self) -> Schema {
        let mut attributes = inputs::cluster_attributes();
        attributes.extend([
            inputs::clients_attribute(),
            Attribute::with_default(
                "aggregate_cidrs",
                Type::Bool,
                Value::bool(false),
                "Aggregate addresses and CIDR blocks into the fewest blocks. Only applied when every client is `go` or `curl`.",
            ),
            Attribute::optional(
                "must_bypass",
                Type::list(Type::String),
                "Destinations that must never go through the proxy: URLs (`https://host:port/`), `host`, `host:port` or IP addresses (zone-scoped IPv6 as `[fe80::1%25eth0]`); without a scheme `https` is assumed. Each is checked as written, since clients differ on case, a trailing dot, the IDN spelling and IPv4-mapped addresses (see the NO_PROXY clients guide).",
            )
            .validator(NoNullElements),
            Attribute::with_default(
                "default_checks",
                Type::Bool,
                Value::bool(true),
                "Also check the destinations derived from the inputs: the `kubernetes` Service by ClusterIP and by name, an address in each pod and node CIDR, the apiserver and control-plane endpoint, the cloud metadata endpoints.",
            ),
            Attribute::with_default(
                "fail_on_gap",
                Type::Bool,
                Value::bool(false),
                "Fail with an error, instead of reporting in `gaps`, when a checked destination would go through the proxy for a client.",
            ),
            Attribute::computed(
                "entries",
                Type::list(Type::String),
                "The merged NO_PROXY list of the inputs (installation, pod, service and node CIDRs, cluster domain, apiserver host and IP, control-plane endpoint host, `localhost`, `127.0.0.1`, `::1` (IPv6 clusters), `.svc`, the `kubernetes` Service ClusterIP, cloud metadata endpoints, extra). Entries are normalised (trimmed, lowercased, punycode, no trailing dot, `*.x` as `.x`, canonical addresses and CIDRs), semantic duplicates removed, entries covered by another entry for every client dropped, and the extra forms some clients need added right after their entry (`.x` after `x` for `node`, `[v6]` for `python`, `node` and `undici` unless `httpx` is listed, which rejects a value holding one). The list is in one canonical order, stable across releases, so that no reordering, duplicate, or equivalent spelling of any input changes it: `*` first; host names and domains by name (byte order), `x` before `.x` before `x:port` before `.x:port` (so the `.x` form some clients need stands right after its entry); then IPv4 and then IPv6 addresses and blocks numerically by network address, a block before the addresses it starts with.",
            ),
            Attribute::computed("no_proxy", Type::String, "`entries` joined with commas: the value for `NO_PROXY` and `no_proxy`."),
            Attribute::computed(
                "renderings",
                Type::map(Type::String),
                "Per client listed in `clients`, the setting that gives it the intended meaning as closely as it can express: a NO_PROXY value, or for `java` the `http.nonProxyHosts` value (`|`-separated, `*.x` patterns, octet-aligned IPv4 blocks as `a.b.*`). Cost: one string about the size of `no_proxy` per listed client in the state and every plan; list only the clients that run in the cluster to keep them small.",
            ),
            Attribute::computed(
                "client_warnings",
                Type::list(client_warning_type()),
                "Per client listed in `clients`, the entries it cannot express or reads differently (`client`, `entry`, `message`), in the order of `entries`. Cost: one object per (client, entry) concerned, so it grows with the number of listed clients that lack a feature the list uses (CIDR blocks, IPv6, ports, `.x`).",
            ),
            Attribute::computed(
                "subsumed",
                Type::list(subsumed_type()),
                "Entries left out because another entry covers them for every client (`entry`, `covered_by`).",
            ),
            Attribute::computed("checked", Type::list(Type::String), "Every destination checked, as a URL with its port."),
            Attribute::computed(
                "gaps",
                Type::list(gap_type()),
                "Checked destinations a client would still send through the proxy (`client`, `destination`).",
            ),
        ]);
        Schema::new(
            "Merges installation-wide and cluster-specific NO_PROXY entries into one normalised list that every client in the cluster reads as intended, renders it per client, and checks which destinations would still go through the proxy. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        if let Some(items) = config.get_attr("must_bypass").and_then(Value::elements) {
            for (index, item) in items.iter().enumerate() {
                if let Some(Err(why)) = item.as_str().map(Destination::parse) {
                    diags.push(
                        Diagnostic::error("Invalid destination", format!("{why}."))
                            .at(AttributePath::attribute("must_bypass").index(index)),
                    );
                }
            }
        }
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let options = inputs::merge_options(config);
        let targets = options.targets.clone();
        let cluster = inputs::read_cluster(config);
        let merged = inputs::merge_cluster(&cluster, &options, false, diags)?;
        let mut destinations: Vec<Destination> = convert::strings(config, "must_bypass")
            .iter()
            .filter_map(|d| Destination::parse(d).ok())
            .collect();
        if convert::boolean(config, "default_checks") {
            for destination in cluster.default_destinations() {
                if !destinations.contains(&destination) {
                    destinations.push(destination);
                }
            }
        }
        let found = gaps(&merged, &targets, &destinations);
        if convert::boolean(config, "fail_on_gap") && !found.is_empty() {
            let lines: Vec<String> = found
                .iter()
                .map(|g| format!("  - {} would proxy {}", g.dialect, g.destination))
                .collect();
            diags.push(
                Diagnostic::error(
                    "NO_PROXY coverage gap",
                    format!(
                        "These destinations must bypass the proxy but would not:\n{}\nAdd entries that cover them (e.g. `extra`), or drop the clients that cannot express them from `clients`.",
                        lines.join("\n")
                    ),
                )
                .at(AttributePath::attribute("fail_on_gap")),
            );
            return None;
        }
        let renderings: Vec<_> = targets
            .iter()
            .map(|d| render(*d, &merged.entries))
            .collect();
        let warnings = renderings.iter().flat_map(|r| &r.warnings).map(|w| {
            Value::object([
                ("client".to_owned(), Value::string(w.dialect.name())),
                ("entry".to_owned(), Value::string(&w.entry)),
                ("message".to_owned(), Value::string(&w.message)),
            ])
        });
        let mut state = config.clone();
        state.set_attr("entries", convert::string_list(&merged.list));
        state.set_attr("no_proxy", Value::string(merged.no_proxy()));
        state.set_attr(
            "renderings",
            Value::map(
                renderings
                    .iter()
                    .map(|r| (r.dialect.name().to_owned(), Value::string(&r.value))),
            ),
        );
        state.set_attr("client_warnings", Value::list(warnings.collect()));
        state.set_attr(
            "subsumed",
            Value::list(
                merged
                    .subsumed
                    .iter()
                    .map(|s| {
                        Value::object([
                            ("entry".to_owned(), Value::string(&s.entry)),
                            ("covered_by".to_owned(), Value::string(&s.covered_by)),
                        ])
                    })
                    .collect(),
            ),
        );
        state.set_attr(
            "checked",
            Value::list(
                destinations
                    .iter()
                    .map(|d| Value::string(d.to_string()))
                    .collect(),
            ),
        );
        state.set_attr(
            "gaps",
            Value::list(
                found
                    .iter()
                    .map(|g| {
                        Value::object([
                            ("client".to_owned(), Value::string(g.dialect.name())),
                            ("destination".to_owned(), Value::string(&g.destination)),
                        ])
                    })
                    .collect(),
            ),
        );
        Some(state)
    }
}
