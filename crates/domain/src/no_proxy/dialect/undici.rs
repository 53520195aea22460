//! Node's fetch through undici's `EnvHttpProxyAgent` (undici >= 6.14).

use std::borrow::Cow;

use ipnet::IpNet;

use super::client::{Client, ClientTraits, Decision};
use super::shared::{
    decide_by, ends_with_dotted, env_forms, js_host_port, whatwg_host, Case, Pending,
};
use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::Entry;
use crate::no_proxy::forms::{Forms, Remark};

/// undici's EnvHttpProxyAgent.
pub(super) struct Undici;

/// What the client always answers.
const TRAITS: ClientTraits = ClientTraits {
    name: "undici",
    doc_name: Some("Node fetch through undici's EnvHttpProxyAgent"),
    modelled: "Node fetch through undici's EnvHttpProxyAgent",
    in_default_set: false,
    reads_no_proxy: true,
    separator: ",",
    understands_any: true,
    needs_bracketed_ipv6: true,
    needs_dot_form: false,
    ignores_leading_dot: true,
    supports_ports: true,
};

impl Client for Undici {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }

    fn matches_cidr(&self, _ipv6: bool) -> bool {
        false
    }

    fn keeps_cover(&self, _cover: &IpNet, _net: &IpNet) -> bool {
        true
    }

    fn rejects_whole_setting(&self, _entry: &str) -> bool {
        false
    }

    fn refuses(&self, destination: &Destination) -> bool {
        // The WHATWG URL parser rejects zone IDs.
        destination.zone().is_some()
    }

    fn decide_all(&self, list: &str, destinations: &[Destination]) -> Vec<Decision> {
        decide_by(self, list, destinations, direct)
    }

    fn forms<'m>(&self, entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
        env_forms(self, entry, text, out)
    }
}

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
