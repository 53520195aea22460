//! Node's fetch through undici's `EnvHttpProxyAgent` (undici >= 6.14).

use std::borrow::Cow;

use super::client::{Client, ClientTraits};
use super::shared::{ends_with_dotted, js_host_port, whatwg_host, Case, Pending};
use crate::no_proxy::destination::Destination;

/// undici's EnvHttpProxyAgent.
pub(super) struct Undici;

impl Client for Undici {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }

    fn refuses(&self, destination: &Destination) -> bool {
        // The WHATWG URL parser rejects zone IDs.
        destination.zone().is_some()
    }
}

/// What the client always answers: where it differs from [`ClientTraits::open`].
const TRAITS: ClientTraits = ClientTraits {
    doc_name: Some("Node fetch through undici's EnvHttpProxyAgent"),
    needs_bracketed_ipv6: true,
    ignores_leading_dot: true,
    ..ClientTraits::open(
        "undici",
        "Node fetch through undici's EnvHttpProxyAgent",
        direct,
    )
};

/// undici `EnvHttpProxyAgent`: the whole value `*` bypasses all; entries split
/// at commas and white space, `host:port` (the port being the digits after the
/// last `:`) restricts the port, a leading `.` or `*.` is removed; an entry
/// matches the host or a dot-bounded tail of it. The host is the WHATWG URL's
/// (lowercase punycode, a trailing dot kept, IPv6 compressed in brackets).
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    let hosts: Vec<Option<Cow<str>>> = ds.iter().map(|d| whatwg_host(d)).collect();
    let mut entries = list
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|e| !e.is_empty())
        .peekable();
    if entries.peek().is_none() {
        return vec![false; ds.len()];
    }
    if list == "*" {
        return hosts.iter().map(Option::is_some).collect();
    }
    let case = Case::of(list);
    let mut pending = Pending::new(vec![false; ds.len()]);
    for entry in entries {
        if pending.done() {
            break;
        }
        let (name, entry_port) = js_host_port(entry);
        let name = name
            .strip_prefix("*.")
            .or_else(|| name.strip_prefix('.'))
            .unwrap_or(name);
        let name = case.lower(name);
        pending.mark(|i| {
            let Some(host) = &hosts[i] else {
                return false;
            };
            (entry_port == 0 || entry_port == u32::from(ds[i].port()))
                && (*host == name || ends_with_dotted(host, &name))
        });
    }
    pending.finish()
}
