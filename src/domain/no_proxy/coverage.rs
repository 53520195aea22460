//! The coverage check: which destinations that must bypass the proxy would
//! still go through it, per target client.

use std::collections::BTreeSet;

use super::destination::Destination;
use super::dialect::Dialect;
use super::merge::Merged;
use super::render::render;
use crate::domain::cancel;

/// A destination one client would still send through the proxy.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Gap {
    /// The client.
    pub dialect: Dialect,
    /// The destination, as a URL with its port.
    pub destination: String,
}

/// The setting `dialect` reads for a merged list: the shared NO_PROXY value,
/// or for Java its `http.nonProxyHosts` rendering.
pub fn setting_for(dialect: Dialect, merged: &Merged) -> String {
    if dialect.reads_no_proxy() {
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
    let mut out = Vec::new();
    for dialect in targets {
        let setting = setting_for(*dialect, merged);
        for destination in destinations {
            if cancel::requested() {
                return out;
            }
            if !dialect.bypasses(&setting, destination) {
                out.push(Gap {
                    dialect: *dialect,
                    destination: destination.to_string(),
                });
            }
        }
    }
    out
}
