//! Ruby's URI / Net::HTTP (`URI::Generic.use_proxy?`).

use std::borrow::Cow;
use std::net::IpAddr;

use ipnet::IpNet;

use super::client::{env_forms, Client, ClientTraits};
use super::shared::{ends_with_dotted, lowercase, Case, Pending};
use super::Dialect;
use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::{Entry, Host};
use crate::no_proxy::forms::{Forms, Remark};

/// Ruby's URI.
pub(super) struct Ruby;

impl Client for Ruby {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }

    fn matches_cidr(&self, ipv6: bool) -> bool {
        !ipv6
    }

    fn refuses(&self, destination: &Destination) -> bool {
        // URI rejects non-ASCII hosts and zone IDs.
        !destination.written.is_ascii() || destination.zone().is_some()
    }

    fn forms<'m>(&self, entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
        match entry.host {
            Host::Any => Some(Remark::Own(NO_STAR)),
            Host::Ip(IpAddr::V6(_)) => Some(Remark::Own(NO_IPV6)),
            _ => env_forms(self, entry, text, out),
        }
    }
}

/// What the client always answers: where it differs from [`ClientTraits::open`].
const TRAITS: ClientTraits = ClientTraits {
    in_default_set: true,
    understands_any: false,
    ..ClientTraits::open("ruby", "URI#find_proxy; Net::HTTP decides the same", direct)
};

/// Ruby `URI::Generic.use_proxy?`: entries are runs of characters other than
/// `:`, `,` and blanks, with an optional `:port`; `.x` matches names ending in
/// `.x`; `x` matches x and its subdomains; an IP or CIDR entry matches the
/// destination's address. Ruby resolves host names to find that address; this
/// model only knows the addresses of IP literals (and that localhost, in any
/// case, is loopback). Non-ASCII hosts are refused by URI itself.
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    let hosts: Vec<Cow<str>> = ds.iter().map(|d| lowercase(&d.written)).collect();
    let direct = ds
        .iter()
        .zip(&hosts)
        .map(|(d, host)| host == "localhost" || d.ip().is_some_and(|ip| ip.is_loopback()))
        .collect();
    let case = Case::of(list);
    let mut pending = Pending::new(direct);
    let bytes = list.as_bytes();
    let separator = |b: u8| b == b':' || b == b',' || b.is_ascii_whitespace();
    let mut p = 0;
    while p < bytes.len() {
        if separator(bytes[p]) {
            p += 1;
            continue;
        }
        if pending.done() {
            break;
        }
        let start = p;
        while p < bytes.len() && !separator(bytes[p]) {
            p += 1;
        }
        let entry_host = case.lower(&list[start..p]);
        let mut entry_port = None;
        if p < bytes.len() && bytes[p] == b':' {
            let digits = bytes[p + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits > 0 {
                entry_port = Some(list[p + 1..p + 1 + digits].parse::<u64>().ok());
                p += 1 + digits;
            }
        }
        let net = ruby_ipaddr(&entry_host);
        pending.mark(|i| {
            let (d, host) = (ds[i], &*hosts[i]);
            if entry_port.is_some_and(|ep| ep != Some(u64::from(d.port()))) {
                return false;
            }
            // `.x` is a plain suffix; `x` matches `x` and below (`.host`
            // ending with `.x`).
            let named = if entry_host.starts_with('.') {
                host.ends_with(&*entry_host)
            } else {
                host == entry_host || ends_with_dotted(host, &entry_host)
            };
            named || matches!((d.ip(), net), (Some(ip), Some(net)) if net.contains(&ip))
        });
    }
    pending.finish()
}

/// Ruby's `IPAddr.new`: an address, optionally `/prefix` (host bits masked).
fn ruby_ipaddr(text: &str) -> Option<IpNet> {
    match text.split_once('/') {
        Some((addr, prefix)) => {
            let addr: IpAddr = addr.parse().ok()?;
            Some(IpNet::new(addr, prefix.parse().ok()?).ok()?.trunc())
        }
        None => Some(IpNet::from(text.parse::<IpAddr>().ok()?)),
    }
}

/// Ruby does not understand `*`.
const NO_STAR: &str = "Ruby does not understand `*`; the entry is left out.";

/// Ruby cannot write IPv6 entries.
const NO_IPV6: &str =
    "Ruby splits entries at `:`, so IPv6 addresses cannot be written; the entry is left out.";

impl Dialect {
    /// Ruby's URI / Net::HTTP.
    pub const RUBY: Dialect = Dialect(&Ruby);
}
