//! Node.js proxy-from-env (axios, npm, ...).

use std::borrow::Cow;

use super::client::{Client, ClientTraits};
use super::shared::{js_host_port, whatwg_host, Case, Pending};
use super::Dialect;
use crate::no_proxy::destination::Destination;

/// Node proxy-from-env.
pub(super) struct Node;

impl Client for Node {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }
}

/// What the client always answers: where it differs from [`ClientTraits::open`].
const TRAITS: ClientTraits = ClientTraits {
    doc_name: Some("proxy-from-env"),
    in_default_set: true,
    needs_bracketed_ipv6: true,
    needs_dot_form: true,
    ..ClientTraits::open("node", "proxy-from-env 2", direct)
};

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

impl Dialect {
    /// Node.js proxy-from-env (axios, npm, ...).
    pub const NODE: Dialect = Dialect(&Node);
}
