//! `clusterproxy_no_proxy_report`: what is behind one cluster's merged
//! NO_PROXY list (the destinations checked, the gaps, the entries left out as
//! covered, what each client cannot express), kept out of
//! `clusterproxy_no_proxy` so that a plan of many clusters does not carry it.

use std::collections::BTreeMap;

use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::data_sources::no_proxy::{CheckInputs, Config, Merging};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct NoProxyReportDataSource;

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
        pub checked: Vec<String> [computed("Every destination checked, once, sorted: `must_bypass`, and with `default_checks` the destinations derived from the inputs, each as a URL with the host as written and the port when one was written (`https://x/` and `https://x:443/` are two checks: some clients read them differently). Cost: one string per destination (about five for a cluster with the default checks).")],
        pub gaps_by_client: BTreeMap<String, Vec<String>> [computed("Per client, the destinations checked (`checked`) that it would still send through the proxy, sorted; a client that bypasses the proxy for every checked destination is left out, so `length(gaps_by_client) == 0` means no gap (a postcondition can hold a plan to it, or `fail_on_gap` on this data source or on `clusterproxy_no_proxy`). Cost: one string per client and destination it would proxy.")],
        pub subsumed_by: BTreeMap<String, String> [computed("Entries left out because another entry covers them for every client: each left-out entry (canonical) to the entry that covers it.")],
        pub client_warnings: Vec<ClientWarning> [computed("Per client the list is made for (those in `clients`, or the default eight when it is not set), what it cannot express or reads differently: one object per client and message (`client`, `message`, and the `entries` concerned, in the order of `clusterproxy_no_proxy`'s `entries`). Cost: one object per (client, kind of remark), plus each concerned entry once per client that lacks a feature the list uses (CIDR blocks, IPv6, ports, `.x`).")],
    }
}

impl DataSource for NoProxyReportDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_no_proxy_report"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "What is behind the NO_PROXY list `clusterproxy_no_proxy` makes from the same inputs: every destination the coverage check tried, the gaps, the entries left out as covered by another, and what each client cannot express or reads differently. It takes the same arguments and makes the same list and verdicts (`fail_on_gap` fails it in the same way); it is a separate data source so that a plan of many clusters carries only the lists and their renderings. Read it for the clusters you review, giving it the same arguments as their `clusterproxy_no_proxy` (from one `locals` object, as in the example, so that the two cannot drift apart) and the destinations to check: each instance costs a plan about as much as a `clusterproxy_no_proxy` with every client of the list named, plus one string per checked destination, one per gap, one per left-out entry and one object per (client, remark). Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        CheckInputs::of(config, diags).validate(diags);
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let merging = Merging::new(Config::get(value, diags)?, diags)?;
        let targets = &merging.options.targets;
        let coverage = merging.coverage(targets, merging.destinations(), diags)?;
        let client_warnings = coverage
            .warnings()
            .into_iter()
            .map(|group| ClientWarning {
                client: group.dialect.name().to_owned(),
                message: group.message,
                entries: group.entries.into_iter().map(str::to_owned).collect(),
            })
            .collect();
        let gaps_by_client = coverage
            .gaps_by_client()
            .into_iter()
            .map(|(dialect, gaps)| (dialect.name().to_owned(), gaps))
            .collect();
        Some(model::computed(State {
            checked: coverage.checked,
            gaps_by_client,
            client_warnings,
            subsumed_by: merging
                .merged
                .subsumed
                .into_iter()
                .map(|s| (s.entry, s.covered_by))
                .collect(),
        }))
    }
}
