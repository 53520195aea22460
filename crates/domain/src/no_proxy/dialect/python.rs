//! CPython's urllib (`proxy_bypass_environment`).

use std::borrow::Cow;

use super::client::{Client, ClientTraits};
use super::shared::{ends_with_dotted, host_port, lowercase, split_at, Case, Pending};
use super::Dialect;
use crate::no_proxy::destination::Destination;

/// CPython's urllib.
pub(super) struct Python;

impl Client for Python {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }
}

/// What the client always answers: where it differs from [`ClientTraits::open`].
const TRAITS: ClientTraits = ClientTraits {
    doc_name: Some("urllib"),
    in_default_set: true,
    needs_bracketed_ipv6: true,
    ignores_leading_dot: true,
    ..ClientTraits::open("python", "urllib", direct)
};

/// The `host[:port]` urllib passes to its bypass check: the URL's netloc as
/// written and percent-decoded (IPv6 in brackets, a zone's `%25` as `%`,
/// Unicode as written, port only when written).
fn request_host(d: &Destination) -> Cow<'_, str> {
    let host = d.written_url_host();
    let host = match host.contains('%') {
        true => Cow::Owned(host.replacen("%25", "%", 1)),
        false => host,
    };
    match d.explicit_port {
        Some(port) => Cow::Owned(host_port(&host, port)),
        None => host,
    }
}

/// CPython urllib `proxy_bypass_environment`: `*` only as the whole value;
/// non-blank entries lose leading dots and match the host (with or without
/// port) exactly or as a dot-bounded suffix, compared as written (no IDNA, a
/// trailing dot kept), ignoring case. No CIDRs.
pub(super) fn urllib(list: &str, hosts: &[Cow<'_, str>]) -> Vec<bool> {
    if list == "*" {
        return vec![true; hosts.len()];
    }
    let hosts: Vec<Cow<str>> = hosts.iter().map(|h| lowercase(h)).collect();
    let host_only: Vec<&str> = hosts.iter().map(|h| python_split_port(h)).collect();
    let case = Case::of(list);
    let mut pending = Pending::new(vec![false; hosts.len()]);
    for raw in split_at(list, b',') {
        if pending.done() {
            break;
        }
        let name = raw.trim();
        if name.is_empty() {
            continue;
        }
        // Emptiness is tested before the dots go: `.` matches every name
        // written with a trailing dot.
        let name = case.lower(name.trim_start_matches('.'));
        pending.mark(|i| {
            let (host, host_only) = (&*hosts[i], host_only[i]);
            host_only == name
                || host == name
                || ends_with_dotted(host_only, &name)
                || ends_with_dotted(host, &name)
        });
    }
    pending.finish()
}

/// urllib's `_splitport`: `(.*):([0-9]*)` must match the whole string.
fn python_split_port(host: &str) -> &str {
    match host.rfind(':') {
        Some(i) if host[i + 1..].bytes().all(|b| b.is_ascii_digit()) => &host[..i],
        _ => host,
    }
}

/// urllib's decision for each of `ds`, given the `host[:port]` urllib passes
/// to its bypass check ([`request_host`]).
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    let hosts: Vec<Cow<str>> = ds.iter().map(|d| request_host(d)).collect();
    urllib(list, &hosts)
}

impl Dialect {
    /// Python's urllib.
    pub const PYTHON: Dialect = Dialect(&Python);
}
