//! The coverage check: which destinations that must bypass the proxy would
//! still go through it, per target client. Each destination is handed to the
//! client's model as written; only the model normalises it, and only as the
//! client does.

use std::collections::BTreeSet;

use super::destination::Destination;
use super::dialect::{Decision, Dialect};
use super::merge::Merged;
use super::render::{render, Rendering};
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
    if dialect.client().reads_no_proxy() {
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
        let setting = if dialect.client().reads_no_proxy() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::{merge, MergeOptions, Source};
    use crate::Field;

    fn gaps_for(entries: &[&str], targets: &[Dialect], url: &str) -> Vec<Gap> {
        let options = MergeOptions {
            targets: targets.iter().copied().collect(),
            ..MergeOptions::default()
        };
        let merged = merge(
            &[Source::list(Field::Extra, entries.iter().copied())],
            &options,
        )
        .unwrap();
        gaps(
            &merged,
            &options.targets,
            &[Destination::parse(url).unwrap()],
        )
    }

    /// Go proxies a name written with a trailing dot even when its domain is
    /// listed: the check reports it instead of normalising the dot away.
    #[test]
    fn trailing_dot_destination_is_a_gap_for_go() {
        let url = "https://kubernetes.default.svc.cluster.local./";
        assert_eq!(
            gaps_for(&[".cluster.local"], &[Dialect::Go], url),
            [Gap {
                dialect: Dialect::Go,
                destination: "https://kubernetes.default.svc.cluster.local./".into(),
            }]
        );
        assert!(gaps_for(&[".cluster.local"], &[Dialect::Curl], url).is_empty());
        let plain = "https://kubernetes.default.svc.cluster.local/";
        assert!(gaps_for(&[".cluster.local"], &[Dialect::Go], plain).is_empty());
    }

    /// Case, IDN spelling and IPv4-mapped addresses reach each model as written.
    #[test]
    fn destinations_reach_the_models_as_written() {
        // Go's loopback shortcut compares the host as written.
        assert_eq!(
            gaps_for(&["example.com"], &[Dialect::Go], "http://LOCALHOST/").len(),
            1
        );
        assert_eq!(
            gaps_for(&["example.com"], &[Dialect::Go], "http://localhost/").len(),
            0
        );
        assert_eq!(
            gaps_for(&["10.0.0.0/8"], &[Dialect::Go], "http://[::ffff:10.0.0.1]/").len(),
            0
        );
        assert_eq!(
            gaps_for(
                &["10.0.0.0/8"],
                &[Dialect::Curl],
                "http://[::ffff:10.0.0.1]/"
            )
            .len(),
            1
        );
        assert_eq!(
            gaps_for(
                &["bücher.example"],
                &[Dialect::Python],
                "http://bücher.example/"
            )
            .len(),
            1
        );
    }
}
