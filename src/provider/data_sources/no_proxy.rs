//! `clusterproxy_no_proxy`: the merged NO_PROXY list of one cluster and its
//! per-client renderings, held to the coverage check with `fail_on_gap`;
//! the merge and checks it shares with `clusterproxy_no_proxy_report`.

use std::collections::{BTreeMap, BTreeSet};

use crate::domain::no_proxy::coverage::Coverage;
use crate::domain::no_proxy::{Cluster, Destination, Dialect, MergeOptions, Merged};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::{NoNullElements, Schema};
use crate::framework::value::Value;
use crate::provider::attributes::Aggregation;
use crate::provider::convert::SettingsAt;
use crate::provider::inputs::{self, Clients, ClusterConfig, Needed, Settings};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct NoProxyDataSource;

crate::model! {
    pub(crate) struct Config {
        /// A profile's settings, whose `no_proxy` replaces `installation`.
        pub profile: Maybe<Settings> [optional(
            "The `settings` of a `clusterproxy_profile`, as every renderer takes them: its `no_proxy` entries replace `installation`, and findings about them point at `profile.no_proxy[<index>]`. Only the NO_PROXY entries are read; the proxy URLs, the CA and the password (never carried by a profile's settings) are not.",
        )
        .sensitive()
        .conflicts_with(&[ClusterConfig::installation])],
        /// The NO_PROXY inputs.
        pub cluster: ClusterConfig [embed],
        /// The clients.
        pub clients: Clients [embed],
        /// CIDR aggregation.
        pub aggregation: Aggregation [embed],
        pub must_bypass: Vec<Maybe<String>> [optional("Destinations that must never go through the proxy, checked by `clusterproxy_no_proxy_report` and, with `fail_on_gap = true`, by `clusterproxy_no_proxy` (without it, an error there): URLs (`https://host:port/`), `host`, `host:port` or IP addresses (zone-scoped IPv6 as `[fe80::1%25eth0]`); without a scheme `https` is assumed. Each is checked as written, since clients differ on case, a trailing dot, the IDN spelling and IPv4-mapped addresses (see the NO_PROXY clients guide).").validator(NoNullElements)],
        pub default_checks: bool [with_default(Value::bool(true), "Also check (as `must_bypass` is checked) the destinations derived from the inputs: the `kubernetes` Service by ClusterIP and by name, an address in each pod and node CIDR, the apiserver and control-plane endpoint, the cloud metadata endpoints. On `clusterproxy_no_proxy`, setting it (even to `true`) without `fail_on_gap = true` is an error.")],
        pub fail_on_gap: bool [with_default(Value::bool(false), "Check `must_bypass` and, with `default_checks`, the destinations derived from the inputs, and fail with an error naming each client and destination when one would go through the proxy for a client (`clusterproxy_no_proxy_report` gives the same gaps as `gaps_by_client`, without failing). `clusterproxy_no_proxy` runs the check only with `fail_on_gap = true`, so there `must_bypass` and `default_checks` are errors without it. With `default_checks = false` and no `must_bypass` there is nothing to check: an error.")],
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

/// The attributes that shape the coverage check, as configured (each may be
/// unknown at validation).
pub(crate) struct CheckInputs {
    must_bypass: Maybe<Vec<Maybe<String>>>,
    fail_on_gap: Maybe<bool>,
    default_checks: Maybe<bool>,
}

impl CheckInputs {
    /// The attributes of `config`; a mistyped one is an error on it.
    pub fn of(config: &Value, diags: &mut Diagnostics) -> Self {
        Self {
            must_bypass: model::attribute(config, Config::must_bypass, diags),
            fail_on_gap: model::attribute(config, Config::fail_on_gap, diags),
            default_checks: model::attribute(config, Config::default_checks, diags),
        }
    }

    /// Errors on the `must_bypass` elements that are no destination and on
    /// a `fail_on_gap` left with nothing to check; shared with
    /// `clusterproxy_no_proxy_report`.
    pub fn validate(&self, diags: &mut Diagnostics) {
        for (index, item) in self.must_bypass.known().into_iter().flatten().enumerate() {
            if let Some(Err(why)) = item.known().map(|d| Destination::parse(d)) {
                diags.push(
                    Diagnostic::error("Invalid destination", format!("{why}."))
                        .at(AttributePath::attribute(Config::must_bypass).index(index)),
                );
            }
        }
        let no_destination = match &self.must_bypass {
            Maybe::Null => true,
            Maybe::Known(items) => items.is_empty(),
            Maybe::Unknown => false,
        };
        if matches!(self.fail_on_gap, Maybe::Known(true))
            && matches!(self.default_checks, Maybe::Known(false))
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
    }

    /// The list runs the check only for `fail_on_gap`: what shapes the
    /// check is an error without `fail_on_gap = true`.
    fn require_fail_on_gap(&self, diags: &mut Diagnostics) {
        inputs::reject_without(
            &Needed {
                name: "fail_on_gap = true",
                absent: matches!(self.fail_on_gap, Maybe::Null | Maybe::Known(false)),
                remedy: "set `fail_on_gap = true` (or read the gaps from `clusterproxy_no_proxy_report`)",
            },
            &[
                (Config::must_bypass, self.must_bypass.known().is_some()),
                (Config::default_checks, self.default_checks.known().is_some()),
            ],
            diags,
        );
    }
}

/// The inputs merged: what both `clusterproxy_no_proxy` and
/// `clusterproxy_no_proxy_report` evaluate, so both give the same list and
/// verdicts.
pub(crate) struct Merging {
    /// The clients.
    clients: Clients,
    /// The merge options, the target clients among them.
    pub options: MergeOptions,
    /// `must_bypass`.
    must_bypass: Vec<Maybe<String>>,
    /// `default_checks`.
    default_checks: bool,
    /// `fail_on_gap`.
    fail_on_gap: bool,
    /// The cluster inputs.
    cluster: Cluster,
    /// Where the installation list came from.
    settings_at: SettingsAt,
    /// The merge.
    pub merged: Merged,
}

impl Merging {
    /// Merges `config`; errors are reported and give none.
    pub fn new(config: Config, diags: &mut Diagnostics) -> Option<Self> {
        let options = config
            .clients
            .merge_options(config.aggregation.aggregate_cidrs);
        let mut cluster = config.cluster;
        let settings_at = match config.profile.known() {
            Some(profile) => {
                cluster.installation.clone_from(&profile.no_proxy);
                SettingsAt::RendererProfile
            }
            None => SettingsAt::Renderer,
        };
        let mut cluster = cluster.cluster();
        let merged = inputs::merge_cluster(&cluster, &options, settings_at, diags)?;
        // Merged, the installation list is no longer needed (the checked
        // destinations come from the other inputs): freed before the
        // renderings are made, a large list is not held twice.
        cluster.installation = Vec::new();
        Some(Self {
            clients: config.clients,
            options,
            must_bypass: config.must_bypass,
            default_checks: config.default_checks,
            fail_on_gap: config.fail_on_gap,
            cluster,
            settings_at,
            merged,
        })
    }

    /// The destinations to check: `must_bypass` and, with
    /// `default_checks`, those derived from the inputs.
    pub fn destinations(&self) -> Vec<Destination> {
        let mut destinations: Vec<Destination> = self
            .must_bypass
            .iter()
            .filter_map(|d| Destination::parse(d.known()?).ok())
            .collect();
        if self.default_checks {
            destinations.extend(self.cluster.default_destinations());
        }
        destinations
    }

    /// The clients of `rendered` rendered and `destinations` checked for
    /// every target client (see [`Coverage::evaluate`]). A gap with
    /// `fail_on_gap` set is an error, and gives none.
    pub fn coverage(
        &self,
        rendered: &BTreeSet<Dialect>,
        destinations: Vec<Destination>,
        diags: &mut Diagnostics,
    ) -> Option<Coverage<'_>> {
        let coverage =
            Coverage::evaluate(&self.merged, &self.options.targets, rendered, destinations);
        if self.fail_on_gap && !coverage.gaps.is_empty() {
            let lines: Vec<String> = coverage
                .gaps
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
        Some(coverage)
    }
}

impl DataSource for NoProxyDataSource {
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
        let checks = CheckInputs::of(config, diags);
        checks.validate(diags);
        checks.require_fail_on_gap(diags);
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let merging = Merging::new(Config::get(value, diags)?, diags)?;
        // `entries` and `no_proxy` each hold every entry of the list (an
        // element takes at least a byte beside its text, as a comma does);
        // the renderings are not counted.
        let list = &merging.merged.list;
        let least = 2 * (list.iter().map(String::len).sum::<usize>() + list.len());
        inputs::refuse_oversized(least.saturating_sub(1), merging.settings_at, diags)?;
        let destinations = if merging.fail_on_gap {
            merging.destinations()
        } else {
            Vec::new()
        };
        let coverage = merging.coverage(&merging.clients.named(), destinations, diags)?;
        let renderings = coverage
            .renderings
            .into_iter()
            .map(|r| (r.dialect.name().to_owned(), r.value))
            .collect();
        Some(model::computed(State {
            no_proxy: coverage.no_proxy,
            renderings,
            entries: merging.merged.list,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::server::Server;

    /// A config of the data source with `set` and null elsewhere.
    fn config(server: &Server, set: &[(&str, Value)]) -> Value {
        let schema = &server.registry().data_sources()["clusterproxy_no_proxy"].schema;
        assert!(set.iter().all(|(name, _)| schema.attribute(name).is_some()));
        Value::object(schema.attributes.iter().map(|a| {
            let value = set
                .iter()
                .find(|(name, _)| *name == a.name)
                .map_or_else(Value::null, |(_, value)| value.clone());
            (a.name.clone(), value)
        }))
    }

    fn profile(no_proxy: &[&str]) -> Value {
        Settings {
            http_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            https_proxy: None,
            username: None,
            password: None,
            no_proxy: no_proxy.iter().map(|e| (*e).to_owned()).collect(),
            trusted_ca: Maybe::Null,
            password_required: false,
            revision: Some(2),
        }
        .value()
    }

    /// A list whose `entries` and `no_proxy` alone could not fit a response
    /// is refused once merged, before the renderings are built: an error on
    /// `installation` naming the size and the limit.
    #[test]
    fn a_result_too_large_is_refused_before_it_is_built() {
        let server = Server::new(&crate::provider::ClusterProxy);
        // 100k names of 200 bytes, each followed by its `.x` form for node:
        // `entries` and `no_proxy` take 80 MB.
        let labels = format!("{}.{}.{}", "a".repeat(54), "b".repeat(63), "c".repeat(63));
        let names = (0..100_000).map(|i| Value::string(format!("{i:08}-{labels}.example")));
        let set = [(ClusterConfig::installation, Value::list(names.collect()))];
        let mut diags = Diagnostics::new();
        let state =
            server.read_data_source("clusterproxy_no_proxy", config(&server, &set), &mut diags);
        assert!(state.is_none(), "the result was built");
        let limit = crate::framework::proto::MAX_VALUE_SIZE.to_string();
        let error: Vec<(String, bool)> = diags
            .iter()
            .map(|d| {
                let path = d.path.as_ref().map(ToString::to_string).unwrap_or_default();
                (
                    path,
                    d.detail.starts_with(&format!(
                        "The result would take more than the {limit} bytes (63 MiB) a response may hold (at least "
                    )),
                )
            })
            .collect();
        assert_eq!(error, [("installation".to_owned(), true)], "{diags:?}");
    }

    /// `profile` gives the installation entries as every renderer takes
    /// them: the list is the one `installation` gives, a finding about a
    /// profile entry points at `profile.no_proxy[<index>]`, and setting both
    /// is an error.
    #[test]
    fn takes_a_profile_like_every_renderer() {
        let server = Server::new(&crate::provider::ClusterProxy);
        let entries = ["registry.corp.example", "10.0.0.0/8"];
        let list = Value::list(entries.iter().map(|e| Value::string(*e)).collect());
        let read = |set: &[(&str, Value)]| {
            let mut diags = Diagnostics::new();
            let state =
                server.read_data_source("clusterproxy_no_proxy", config(&server, set), &mut diags);
            (state, diags)
        };
        let (direct, diags) = read(&[(ClusterConfig::installation, list.clone())]);
        assert!(diags.is_empty(), "{diags:?}");
        let (from_profile, diags) = read(&[(Config::profile, profile(&entries))]);
        assert!(diags.is_empty(), "{diags:?}");
        let no_proxy = |state: Option<Value>| state.unwrap().get_attr("no_proxy").cloned();
        let from_profile = no_proxy(from_profile);
        assert_eq!(from_profile, no_proxy(direct));
        assert!(from_profile
            .as_ref()
            .and_then(Value::as_str)
            .is_some_and(|v| v.contains("registry.corp.example")));
        let (state, diags) = read(&[(
            Config::profile,
            profile(&["ok.example", "bad host.example"]),
        )]);
        assert!(state.is_none());
        let paths: Vec<String> = diags
            .iter()
            .filter_map(|d| d.path.as_ref().map(ToString::to_string))
            .collect();
        assert_eq!(paths, ["profile.no_proxy[1]"], "{diags:?}");
        let mut diags = Diagnostics::new();
        let both = config(
            &server,
            &[
                (Config::profile, profile(&entries)),
                (ClusterConfig::installation, list),
            ],
        );
        server.validate_data_resource_config("clusterproxy_no_proxy", &both, &mut diags);
        assert!(!diags.is_empty(), "installation and profile together");
    }
}
