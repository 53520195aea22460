//! The coverage check: which destinations that must bypass the proxy would
//! still go through it, per target client. Each destination is handed to the
//! client's model as written; only the model normalises it, and only as the
//! client does. [`Coverage`] is one evaluation of a merged list: the
//! renderings of the clients asked for, the destinations checked and the gaps.

use std::collections::{BTreeMap, BTreeSet};

use super::destination::Destination;
use super::dialect::{Decision, Dialect};
use super::merge::Merged;
use super::render::{group_warnings, render, Rendering, WarningGroup};
use clusterproxy_cancel as cancel;

/// A destination one client would still send through the proxy.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Gap {
    /// The client that would use the proxy.
    pub dialect: Dialect,
    /// The destination, as a URL with its port.
    pub destination: String,
}

/// The setting `dialect` reads for a merged list: the shared NO_PROXY value,
/// or for Java its `http.nonProxyHosts` rendering.
pub fn setting_for(dialect: Dialect, merged: &Merged) -> String {
    if dialect.client().traits().reads_no_proxy {
        merged.no_proxy()
    } else {
        render(dialect, &merged.entries).value
    }
}

/// Every (client, destination) pair in which the destination would be proxied,
/// ordered by client then by the order of `destinations`. Stops early when the
/// computation is cancelled ([`cancel::requested`]).
pub fn gaps(
    merged: &Merged,
    targets: &BTreeSet<Dialect>,
    destinations: &[Destination],
) -> Vec<Gap> {
    gaps_with(merged, targets, &merged.no_proxy(), &[], destinations)
}

/// [`gaps`] reusing what the caller already made: `shared` is the merged
/// list's NO_PROXY value, and a client with a setting of its own (Java) reads
/// its rendering from `renderings`, rendered here when not among them.
pub fn gaps_with(
    merged: &Merged,
    targets: &BTreeSet<Dialect>,
    shared: &str,
    renderings: &[Rendering<'_>],
    destinations: &[Destination],
) -> Vec<Gap> {
    let mut out = Vec::new();
    for &dialect in targets {
        if cancel::requested() {
            return out;
        }
        let made;
        let setting = if dialect.client().traits().reads_no_proxy {
            shared
        } else if let Some(own) = renderings.iter().find(|r| r.dialect == dialect) {
            &own.value
        } else {
            made = setting_for(dialect, merged);
            &made
        };
        let decisions = dialect.decide_all(setting, destinations);
        out.extend(
            destinations
                .iter()
                .zip(decisions)
                .filter(|(_, decision)| *decision != Decision::Direct)
                .map(|(destination, _)| Gap {
                    dialect,
                    destination: destination.to_string(),
                }),
        );
    }
    out
}

/// One evaluation of a merged list: the clients asked for rendered, and the
/// destinations checked for every target client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage<'m> {
    /// The merged list's NO_PROXY value (the entries joined with commas).
    pub no_proxy: String,
    /// The setting of each client asked for, in client order.
    pub renderings: Vec<Rendering<'m>>,
    /// Every destination checked, once, sorted by the URL each is shown as,
    /// so that neither the order nor repetitions of the input change it.
    pub checked: Vec<String>,
    /// Each (client, destination) pair in which the destination would be
    /// proxied, by client and then in the order of `checked` (see [`gaps`]).
    pub gaps: Vec<Gap>,
}

impl<'m> Coverage<'m> {
    /// Renders the clients of `rendered` and checks `destinations` for every
    /// client of `targets`, reusing the renderings (no destination: no
    /// check, no gap).
    pub fn evaluate(
        merged: &'m Merged,
        targets: &BTreeSet<Dialect>,
        rendered: &BTreeSet<Dialect>,
        destinations: Vec<Destination>,
    ) -> Self {
        let mut shown: Vec<(String, Destination)> = destinations
            .into_iter()
            .map(|d| (d.to_string(), d))
            .collect();
        shown.sort_by(|a, b| a.0.cmp(&b.0));
        shown.dedup_by(|a, b| a.0 == b.0);
        let (checked, destinations): (Vec<String>, Vec<Destination>) = shown.into_iter().unzip();
        let renderings: Vec<Rendering<'m>> = rendered
            .iter()
            .map(|&dialect| render(dialect, &merged.entries))
            .collect();
        let no_proxy = merged.no_proxy();
        let gaps = if destinations.is_empty() {
            Vec::new()
        } else {
            gaps_with(merged, targets, &no_proxy, &renderings, &destinations)
        };
        Self {
            no_proxy,
            renderings,
            checked,
            gaps,
        }
    }

    /// The rendered clients' remarks, grouped by client and remark (see
    /// [`group_warnings`]).
    pub fn warnings(&self) -> Vec<WarningGroup<'_>> {
        group_warnings(self.renderings.iter().flat_map(|r| &r.warnings))
    }

    /// Per client with a gap, the destinations it would proxy, in the order
    /// of `checked`.
    pub fn gaps_by_client(&self) -> BTreeMap<Dialect, Vec<String>> {
        let mut out: BTreeMap<Dialect, Vec<String>> = BTreeMap::new();
        for gap in &self.gaps {
            out.entry(gap.dialect)
                .or_default()
                .push(gap.destination.clone());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::{merge, MergeOptions, Source};
    use crate::InputField;

    fn gaps_for(entries: &[&str], targets: &[Dialect], url: &str) -> Vec<Gap> {
        let options = MergeOptions {
            targets: targets.iter().copied().collect(),
            ..MergeOptions::default()
        };
        let merged = merge(
            &[Source::list(InputField::Extra, entries.iter().copied())],
            &options,
        )
        .unwrap();
        gaps(
            &merged,
            &options.targets,
            &[Destination::parse(url).unwrap()],
        )
    }

    /// The destinations are checked once each in one order whatever the
    /// input's order and repetitions; only the clients asked for are
    /// rendered, while every target is checked.
    #[test]
    fn an_evaluation_checks_each_destination_once_for_every_target() {
        let options = MergeOptions {
            targets: [Dialect::GO, Dialect::CURL, Dialect::JAVA]
                .into_iter()
                .collect(),
            ..MergeOptions::default()
        };
        let merged = merge(
            &[Source::list(
                InputField::Extra,
                ["10.0.0.0/8", "example.com"],
            )],
            &options,
        )
        .unwrap();
        let destinations = |urls: &[&str]| -> Vec<Destination> {
            urls.iter()
                .map(|u| Destination::parse(u).unwrap())
                .collect()
        };
        let rendered: BTreeSet<Dialect> = [Dialect::CURL].into_iter().collect();
        let urls = [
            "http://other.example/",
            "http://[::ffff:10.0.0.1]/",
            "http://other.example/",
        ];
        let coverage =
            Coverage::evaluate(&merged, &options.targets, &rendered, destinations(&urls));
        assert_eq!(coverage.no_proxy, merged.no_proxy());
        assert_eq!(
            coverage.checked,
            ["http://[::ffff:10.0.0.1]/", "http://other.example/"]
        );
        let rendered_clients: Vec<Dialect> =
            coverage.renderings.iter().map(|r| r.dialect).collect();
        assert_eq!(rendered_clients, [Dialect::CURL]);
        let by_client = coverage.gaps_by_client();
        assert_eq!(
            by_client.keys().copied().collect::<Vec<_>>(),
            [Dialect::GO, Dialect::CURL, Dialect::JAVA]
        );
        assert_eq!(
            by_client[&Dialect::CURL],
            ["http://[::ffff:10.0.0.1]/", "http://other.example/"]
        );
        assert_eq!(by_client[&Dialect::GO], ["http://other.example/"]);
        let reversed: Vec<&str> = urls.iter().rev().copied().collect();
        let again = Coverage::evaluate(
            &merged,
            &options.targets,
            &rendered,
            destinations(&reversed),
        );
        assert_eq!(again, coverage);
        let unchecked = Coverage::evaluate(&merged, &options.targets, &rendered, Vec::new());
        assert!(unchecked.checked.is_empty() && unchecked.gaps.is_empty());
        assert_eq!(unchecked.renderings, coverage.renderings);
    }

    /// Go proxies a name written with a trailing dot even when its domain is
    /// listed: the check reports it instead of normalising the dot away.
    #[test]
    fn trailing_dot_destination_is_a_gap_for_go() {
        let url = "https://kubernetes.default.svc.cluster.local./";
        assert_eq!(
            gaps_for(&[".cluster.local"], &[Dialect::GO], url),
            [Gap {
                dialect: Dialect::GO,
                destination: "https://kubernetes.default.svc.cluster.local./".into(),
            }]
        );
        assert!(gaps_for(&[".cluster.local"], &[Dialect::CURL], url).is_empty());
        let plain = "https://kubernetes.default.svc.cluster.local/";
        assert!(gaps_for(&[".cluster.local"], &[Dialect::GO], plain).is_empty());
    }

    /// Case, IDN spelling and IPv4-mapped addresses reach each model as written.
    #[test]
    fn destinations_reach_the_models_as_written() {
        // Go's loopback shortcut compares the host as written.
        assert_eq!(
            gaps_for(&["example.com"], &[Dialect::GO], "http://LOCALHOST/").len(),
            1
        );
        assert_eq!(
            gaps_for(&["example.com"], &[Dialect::GO], "http://localhost/").len(),
            0
        );
        assert_eq!(
            gaps_for(&["10.0.0.0/8"], &[Dialect::GO], "http://[::ffff:10.0.0.1]/").len(),
            0
        );
        assert_eq!(
            gaps_for(
                &["10.0.0.0/8"],
                &[Dialect::CURL],
                "http://[::ffff:10.0.0.1]/"
            )
            .len(),
            1
        );
        assert_eq!(
            gaps_for(
                &["bücher.example"],
                &[Dialect::PYTHON],
                "http://bücher.example/"
            )
            .len(),
            1
        );
    }
}
