//! Rust reqwest 0.12's system proxy (hyper-util's `client::proxy::matcher`).

use std::net::IpAddr;

use ipnet::IpNet;

use super::client::{env_forms, Client, ClientTraits};
use super::shared::{split_at, whatwg_host, Pending};
use super::Dialect;
use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::{Entry, Host};
use crate::no_proxy::forms::{Forms, Remark};

/// reqwest.
pub(super) struct Reqwest;

impl Client for Reqwest {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }

    fn matches_cidr(&self, _ipv6: bool) -> bool {
        true
    }

    fn refuses(&self, destination: &Destination) -> bool {
        // reqwest's `url` crate (WHATWG) rejects zone IDs.
        destination.zone().is_some()
    }

    fn forms<'m>(&self, entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
        if entry.host == Host::Any {
            // `*` covers names only; the two blocks cover IP literals.
            for text in ["*", "0.0.0.0/0", "::/0"] {
                out.push(text);
            }
            return None;
        }
        env_forms(self, entry, text, out)
    }
}

/// What the client always answers: where it differs from [`ClientTraits::open`].
const TRAITS: ClientTraits = ClientTraits {
    doc_name: Some("Rust reqwest's system proxy"),
    understands_any: false,
    ignores_leading_dot: true,
    supports_ports: false,
    ..ClientTraits::open(
        "reqwest",
        "Rust reqwest 0.12's system proxy, hyper-util 0.1.21's matcher",
        direct,
    )
};

/// reqwest 0.12 (>= 0.12.15) reads NO_PROXY through hyper-util's
/// `client/proxy/matcher.rs` (hyper-util 0.1.21): `NO_PROXY`, else `no_proxy`;
/// the value splits at commas only, each element trimmed (`str::trim`), empty
/// ones skipped; an element that parses as an `IpNet` or `IpAddr` matches IP
/// hosts only (no IPv4-mapped equivalence), any other is a name. The host is
/// the `url` crate's (WHATWG: lowercase punycode, a trailing dot kept, IPv6 in
/// brackets, which `NoProxy::contains` strips). Names (`DomainMatcher::contains`)
/// match ignoring ASCII case: equal, equal after one leading `.`, or as a
/// tail that starts at a dot (the entry's own leading `.` counts, so `.`
/// matches every name with a trailing dot); `*` anywhere matches every name but
/// no IP. No ports: `host:port` never matches.
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    /// A host as the matcher sees it.
    enum Host {
        /// No URL: never direct.
        Unparsed,
        Ip(IpAddr),
        Name(String),
    }
    let hosts: Vec<Host> = ds
        .iter()
        .map(|d| {
            let Some(host) = whatwg_host(d) else {
                return Host::Unparsed;
            };
            let bare = host
                .strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .unwrap_or(&host);
            match bare.parse::<IpAddr>() {
                Ok(ip) => Host::Ip(ip),
                Err(_) => Host::Name(bare.to_owned()),
            }
        })
        .collect();
    let mut pending = Pending::new(vec![false; ds.len()]);
    for entry in split_at(list, b',').map(str::trim) {
        if pending.done() {
            break;
        }
        let net = entry.parse::<IpNet>().ok();
        let ip = entry.parse::<IpAddr>().ok();
        pending.mark(|i| match &hosts[i] {
            Host::Unparsed => false,
            Host::Ip(host) => match net {
                Some(net) => net.contains(host),
                None => ip == Some(*host),
            },
            Host::Name(host) => {
                !entry.is_empty() && net.is_none() && ip.is_none() && reqwest_name(entry, host)
            }
        });
    }
    pending.finish()
}

/// `DomainMatcher::contains` for one name entry.
fn reqwest_name(entry: &str, host: &str) -> bool {
    if entry.eq_ignore_ascii_case(host)
        || entry
            .strip_prefix('.')
            .is_some_and(|e| e.eq_ignore_ascii_case(host))
    {
        return true;
    }
    let tail = host.get(host.len().saturating_sub(entry.len())..);
    if tail.is_some_and(|t| t.eq_ignore_ascii_case(entry)) {
        return entry.starts_with('.')
            || host.as_bytes().get(host.len() - entry.len() - 1) == Some(&b'.');
    }
    entry == "*"
}

impl Dialect {
    /// Rust reqwest 0.12's system proxy (hyper-util's `client::proxy::matcher`).
    pub const REQWEST: Dialect = Dialect(&Reqwest);
}
