//! `clusterproxy_no_proxy`: the merged NO_PROXY list of one cluster and its
//! per-client renderings, held to the coverage check with `fail_on_gap`;
//! the evaluation it shares with `clusterproxy_no_proxy_report`.

use std::collections::BTreeMap;

use crate::domain::no_proxy::{gaps_with, group_warnings, render, Destination, Merged};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::{NoNullElements, Schema};
use crate::framework::value::Value;
use crate::provider::convert::SettingsAt;
use crate::provider::inputs::{self, Clients, ClusterConfig, Needed};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct NoProxy;

crate::model! {
    pub(crate) struct Config {
        /// The NO_PROXY inputs.
        pub cluster: ClusterConfig [embed],
        /// The clients.
        pub clients: Clients [embed],
        pub aggregate_cidrs: bool [with_default(Value::bool(false), "Aggregate addresses and CIDR blocks into the fewest blocks. Only applied when every client is `go` or `curl`.")],
        pub must_bypass: Vec<Maybe<String>> [optional("Destinations that must never go through the proxy, checked by `clusterproxy_no_proxy_report` and, with `fail_on_gap = true`, by `clusterproxy_no_proxy` (without it, an error there): URLs (`https://host:port/`), `host`, `host:port` or IP addresses (zone-scoped IPv6 as `[fe80::1%25eth0]`); without a scheme `https` is assumed. Each is checked as written, since clients differ on case, a trailing dot, the IDN spelling and IPv4-mapped addresses (see the NO_PROXY clients guide).").validator(NoNullElements)],
        pub default_checks: bool [with_default(Value::bool(true), "Also check (as `must_bypass` is checked) the destinations derived from the inputs: the `kubernetes` Service by ClusterIP and by name, an address in each pod and node CIDR, the apiserver and control-plane endpoint, the cloud metadata endpoints. On `clusterproxy_no_proxy`, setting it (even to `true`) without `fail_on_gap = true` is an error.")],
        pub fail_on_gap: bool [with_default(Value::bool(false), "Check `must_bypass` and, with `default_checks`, the destinations derived from the inputs, and fail with an error naming each client and destination when one would go through the proxy for a client (`clusterproxy_no_proxy_report` gives the same gaps as `gaps_by_client`, without failing). `clusterproxy_no_proxy` runs the check only with `fail_on_gap = true`, so there `must_bypass` and `default_checks` are errors without it. With `default_checks = false` and no `must_bypass` there is nothing to check: an error.")],
    }
}

crate::object! {
    /// Entries a client cannot express or reads differently, with one message
    /// (`clusterproxy_no_proxy_report`'s `client_warnings`).
    pub(crate) struct ClientWarning {
        /// Client name.
        pub client: String,
        /// What the client does.
        pub message: String,
        /// The entries concerned, in the order of `entries`.
        pub entries: Vec<String>,
    }
}

crate::model! {
    pub(crate) struct State {
        pub entries: Vec<String> [computed(ENTRIES)],
        pub no_proxy: String [computed("`entries` joined with commas: the value for `NO_PROXY` and `no_proxy`.")],
        pub renderings: BTreeMap<String, String> [computed("Per client named in `clients`, the setting that gives it the intended meaning as closely as it can express: a NO_PROXY value, or for `java` the `http.nonProxyHosts` value (`|`-separated, `*.x` patterns, octet-aligned IPv4 blocks as `a.b.*`). Empty when `clients` is not set: the list is still made for the default clients, but only named clients are rendered. What each client cannot express or reads differently is in `clusterproxy_no_proxy_report`. Cost: one string about the size of `no_proxy` per named client, in the state and in every plan.")],
    }
}

/// The description of `entries`.
const ENTRIES: &str = "The merged NO_PROXY list of the inputs (installation, pod, service and node CIDRs, cluster domain, apiserver host and IP, control-plane endpoint host, `localhost`, `127.0.0.1`, `::1` (IPv6 clusters), `.svc`, the `kubernetes` Service ClusterIP, cloud metadata endpoints, extra). Entries are normalised (trimmed, lowercased, punycode, no trailing dot, `*.x` as `.x`, canonical addresses and CIDRs), semantic duplicates removed, entries covered by another entry for every client dropped, and the extra forms some clients need added right after their entry (`.x` after `x` for `node`, `[v6]` for `python`, `node` and `undici` unless `httpx` is listed, which rejects a value holding one). The list is in one canonical order, stable across releases, so that no reordering, duplicate, or equivalent spelling of any input changes it: `*` first; host names and domains by name (byte order), `x` before `.x` before `x:port` before `.x:port` (so the `.x` form some clients need stands right after its entry); then IPv4 and then IPv6 addresses and blocks numerically by network address, a block before the addresses it starts with.";

/// What a read evaluates besides the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    /// `clusterproxy_no_proxy`: the clients named in `clients` rendered,
    /// and the coverage check only for `fail_on_gap`.
    List,
    /// `clusterproxy_no_proxy_report`: every client the list is made for
    /// rendered, their remarks, the destinations checked and the gaps.
    Report,
}

/// One read of the inputs: the merged list, the renderings and the coverage
/// check. Shared by `clusterproxy_no_proxy` and
/// `clusterproxy_no_proxy_report`, so both give the same list and verdicts.
pub(crate) struct Evaluation {
    /// The merge.
    pub merged: Merged,
    /// `entries` joined with commas.
    pub no_proxy: String,
    /// Each rendered client's setting, by client name.
    pub renderings: BTreeMap<String, String>,
    /// With [`Detail::Report`], the rendered clients' remarks, grouped by
    /// client and remark; empty otherwise.
    pub client_warnings: Vec<ClientWarning>,
    /// With [`Detail::Report`], every destination checked, sorted, once;
    /// empty otherwise.
    pub checked: Vec<String>,
    /// With [`Detail::Report`], per client, the checked destinations it
    /// would proxy; empty otherwise.
    pub gaps_by_client: BTreeMap<String, Vec<String>>,
}

/// Errors on the `must_bypass` elements that are no destination, on a
/// `fail_on_gap` left with nothing to check and, for the list (which runs
/// the check only for `fail_on_gap`), on what shapes the check set without
/// `fail_on_gap = true` (the report always checks).
pub(crate) fn validate_config(config: &Value, detail: Detail, diags: &mut Diagnostics) {
    let must_bypass: Maybe<Vec<Maybe<String>>> =
        model::attribute(config, Config::must_bypass, diags);
    let fail_on_gap: Maybe<bool> = model::attribute(config, Config::fail_on_gap, diags);
    let default_checks: Maybe<bool> = model::attribute(config, Config::default_checks, diags);
    for (index, item) in must_bypass.known().into_iter().flatten().enumerate() {
        if let Some(Err(why)) = item.known().map(|d| Destination::parse(d)) {
            diags.push(
                Diagnostic::error("Invalid destination", format!("{why}."))
                    .at(AttributePath::attribute(Config::must_bypass).index(index)),
            );
        }
    }
    let no_destination = match &must_bypass {
        Maybe::Null => true,
        Maybe::Known(items) => items.is_empty(),
        Maybe::Unknown => false,
    };
    if matches!(fail_on_gap, Maybe::Known(true))
        && matches!(default_checks, Maybe::Known(false))
        && no_destination
    {
        diags.push(
            Diagnostic::error(
                "Nothing to check",
                "`fail_on_gap` checks `must_bypass` and, with `default_checks`, the destinations derived from the inputs: with `default_checks = false` and no `must_bypass` it would check nothing. Set `must_bypass`, remove `default_checks = false`, or remove `fail_on_gap`.",
            )
            .at(AttributePath::attribute(Config::fail_on_gap)),
        );
    }
    if detail == Detail::List {
        inputs::reject_without(
            &Needed {
                name: "fail_on_gap = true",
                absent: matches!(fail_on_gap, Maybe::Null | Maybe::Known(false)),
                remedy: "set `fail_on_gap = true` (or read the gaps from `clusterproxy_no_proxy_report`)",
            },
            &[
                (Config::must_bypass, must_bypass.known().is_some()),
                (Config::default_checks, default_checks.known().is_some()),
            ],
            diags,
        );
    }
}

/// Merges `config` and, for the report or `fail_on_gap`, checks it, with
/// `detail`. A gap with `fail_on_gap` set is an error, and gives no
/// evaluation.
pub(crate) fn evaluate(
    config: Config,
    detail: Detail,
    diags: &mut Diagnostics,
) -> Option<Evaluation> {
    let options = config.clients.merge_options(config.aggregate_cidrs);
    let cluster = config.cluster.cluster();
    let merged = inputs::merge_cluster(&cluster, &options, SettingsAt::Renderer, diags)?;
    let report = detail == Detail::Report;
    let check = report || config.fail_on_gap;
    let mut destinations: Vec<Destination> = Vec::new();
    if check {
        destinations.extend(
            config
                .must_bypass
                .iter()
                .filter_map(|d| Destination::parse(d.known()?).ok()),
        );
        if config.default_checks {
            destinations.extend(cluster.default_destinations());
        }
    }
    // One order whatever the order or repetitions of `must_bypass`: by the
    // URL each is shown as (one text per destination), each written once.
    let mut shown: Vec<(String, Destination)> = destinations
        .into_iter()
        .map(|d| (d.to_string(), d))
        .collect();
    shown.sort_by(|a, b| a.0.cmp(&b.0));
    shown.dedup_by(|a, b| a.0 == b.0);
    let (texts, destinations): (Vec<String>, Vec<Destination>) = shown.into_iter().unzip();
    // The coverage check reuses the renderings, and renders Java's own
    // setting if it is not among them.
    let rendered = match detail {
        Detail::List => config.clients.named(),
        Detail::Report => options.targets.clone(),
    };
    let renderings: Vec<_> = rendered
        .iter()
        .map(|d| render(*d, &merged.entries))
        .collect();
    let no_proxy = merged.no_proxy();
    let found = if check {
        gaps_with(
            &merged,
            &options.targets,
            &no_proxy,
            &renderings,
            &destinations,
        )
    } else {
        Vec::new()
    };
    if config.fail_on_gap && !found.is_empty() {
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
            .at(AttributePath::attribute(Config::fail_on_gap)),
        );
        return None;
    }
    let client_warnings = if report {
        group_warnings(renderings.iter().flat_map(|r| &r.warnings))
            .into_iter()
            .map(|group| ClientWarning {
                client: group.dialect.name().to_owned(),
                message: group.message,
                entries: group.entries.into_iter().map(str::to_owned).collect(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let checked = if report { texts } else { Vec::new() };
    let renderings = renderings
        .into_iter()
        .map(|r| (r.dialect.name().to_owned(), r.value))
        .collect();
    Some(Evaluation {
        no_proxy,
        renderings,
        client_warnings,
        checked,
        gaps_by_client: found.into_iter().fold(BTreeMap::new(), |mut gaps, gap| {
            gaps.entry(gap.dialect.name().to_owned())
                .or_insert_with(Vec::new)
                .push(gap.destination);
            gaps
        }),
        merged,
    })
}

impl DataSource for NoProxy {
    fn type_name(&self) -> &'static str {
        "clusterproxy_no_proxy"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Merges installation-wide and cluster-specific NO_PROXY entries into one normalised list that every client in the cluster reads as intended and renders it per client; with `fail_on_gap`, fails when a client would still send a checked destination through the proxy (`clusterproxy_no_proxy_report` gives those gaps and the detail behind the list). Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        validate_config(config, Detail::List, diags);
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let found = evaluate(Config::get(value, diags)?, Detail::List, diags)?;
        Some(model::computed(State {
            entries: found.merged.list,
            no_proxy: found.no_proxy,
            renderings: found.renderings,
        }))
    }
}
