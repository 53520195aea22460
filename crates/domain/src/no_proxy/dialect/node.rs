//! Node.js proxy-from-env (axios, npm, ...).

use std::borrow::Cow;

use ipnet::IpNet;

use super::client::{Client, ClientTraits, Decision};
use super::shared::{decide_by, env_forms, js_host_port, whatwg_host, Case, Pending};
use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::Entry;
use crate::no_proxy::forms::{Forms, Remark};

/// Node proxy-from-env.
pub(super) struct Node;

/// What the client always answers.
const TRAITS: ClientTraits = ClientTraits {
    name: "node",
    doc_name: Some("proxy-from-env"),
    modelled: "proxy-from-env 2",
    in_default_set: true,
    reads_no_proxy: true,
    separator: ",",
    understands_any: true,
    needs_bracketed_ipv6: true,
    needs_dot_form: true,
    ignores_leading_dot: false,
    supports_ports: true,
};

impl Client for Node {
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

    fn refuses(&self, _destination: &Destination) -> bool {
        false
    }

    fn decide_all(&self, list: &str, destinations: &[Destination]) -> Vec<Decision> {
        decide_by(self, list, destinations, direct)
    }

    fn forms<'m>(&self, entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
        env_forms(self, entry, text, out)
    }
}

/// Node proxy-from-env: `*` as the whole value bypasses all; entries split at
/// commas and blanks; `host:port` restricts the port; entries starting with `.`
/// or `*` match as raw suffixes (a leading `*` removed), others match the host
/// exactly. The host is the WHATWG URL's (proxy-from-env 2 parses with `new URL`).
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    let hosts: Vec<Option<Cow<str>>> = ds.iter().map(|d| whatwg_host(d)).collect();
    // proxy-from-env answers "no proxy" for a URL that does not parse,
    // whatever the setting.
    let direct: Vec<bool> = hosts.iter().map(Option::is_none).collect();
    let list = Case::of(list).lower(list);
    if list.is_empty() {
        return direct;
    }
    if list == "*" {
        return vec![true; ds.len()];
    }
    let mut pending = Pending::new(direct);
    for entry in list.split(|c: char| c == ',' || c.is_whitespace()) {
        if pending.done() {
            break;
        }
        if entry.is_empty() {
            continue;
        }
        let (entry_host, entry_port) = js_host_port(entry);
        let raw_suffix = entry_host
            .starts_with(['.', '*'])
            .then(|| entry_host.strip_prefix('*').unwrap_or(entry_host));
        pending.mark(|i| {
            let Some(host) = &hosts[i] else {
                return true;
            };
            if entry_port != 0 && entry_port != u32::from(ds[i].port()) {
                return false;
            }
            match raw_suffix {
                Some(suffix) => host.ends_with(suffix),
                None => *host == entry_host,
            }
        });
    }
    pending.finish()
}
