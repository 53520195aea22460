//! Go's net/http (x/net/http/httpproxy), which containerd, kubelet and most operators use.

use std::borrow::Cow;
use std::net::IpAddr;

use ipnet::IpNet;

use super::client::{Client, ClientTraits};
use super::shared::{ends_with_dotted, lowercase, split_at, Case, Pending};
use super::Dialect;
use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::Entry;
use crate::no_proxy::forms::{Forms, Remark};

/// Go's net/http.
pub(super) struct Go;

impl Client for Go {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }

    fn matches_cidr(&self, _ipv6: bool) -> bool {
        true
    }

    fn forms<'m>(&self, _entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
        // Go reads the canonical text.
        out.push(text);
        None
    }
}

/// What the client always answers: where it differs from [`ClientTraits::open`].
const TRAITS: ClientTraits = ClientTraits {
    in_default_set: true,
    ..ClientTraits::open("go", "net/http, x/net/http/httpproxy", direct)
};

/// Go (x/net/http/httpproxy): `*` anywhere bypasses all; CIDRs and IPs match
/// IP-literal hosts only, IPv4-mapped IPv6 addresses counting as IPv4; `x`
/// matches x and its subdomains, `.x` and `*.x` subdomains only, Unicode
/// entries and hosts converted to punycode; optional `:port`; the host as
/// written (case-sensitive) `localhost` and loopback addresses are always
/// direct; a trailing dot is part of the name on both sides.
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    /// A destination as Go compares it.
    struct Host<'a> {
        name: Cow<'a, str>,
        ip: Option<IpAddr>,
        port: u16,
    }
    let mut direct = Vec::with_capacity(ds.len());
    let hosts: Vec<Host> = ds
        .iter()
        .map(|d| {
            // url.Hostname(): the zone's `%25` unescaped, so `fe80::1%eth0` is no IP.
            let host = match d.zone() {
                Some(_) => Cow::Owned(go_idna(&d.written.replacen("%25", "%", 1)).into_owned()),
                None => go_idna(&d.written),
            };
            let ip = host.parse::<IpAddr>().ok().map(|ip| ip.to_canonical());
            direct.push(host == "localhost" || ip.is_some_and(|ip| ip.is_loopback()));
            let name = match host {
                Cow::Borrowed(host) => lowercase(host.trim()),
                Cow::Owned(host) => Cow::Owned(host.trim().to_lowercase()),
            };
            Host {
                name,
                ip,
                port: d.port(),
            }
        })
        .collect();
    let case = Case::of(list);
    let mut pending = Pending::new(direct);
    for raw in split_at(list, b',') {
        if pending.done() {
            break;
        }
        let entry = case.lower(raw.trim());
        if entry.is_empty() {
            continue;
        }
        if entry == "*" {
            pending.mark(|_| true);
            continue;
        }
        if let Some(net) = go_parse_cidr(&entry) {
            pending.mark(|i| hosts[i].ip.is_some_and(|ip| net.contains(&ip)));
            continue;
        }
        let (entry_host, entry_port) = match go_split_host_port(&entry) {
            Some(("", _)) => continue,
            Some((h, p)) => (h, p),
            None => (&*entry, ""),
        };
        // Go compares the ports as text: only the decimal form without
        // leading zeros equals a URL's port.
        let port = decimal_u16(entry_port);
        let port_ok = |host: &Host| entry_port.is_empty() || port == Some(host.port);
        if let Ok(entry_ip) = entry_host.parse::<IpAddr>() {
            let entry_ip = Some(entry_ip.to_canonical());
            pending.mark(|i| hosts[i].ip == entry_ip && port_ok(&hosts[i]));
            continue;
        }
        let entry_host = entry_host
            .strip_prefix('*')
            .filter(|h| h.starts_with('.'))
            .unwrap_or(entry_host);
        // The suffix is `.name`; an entry without its own leading dot also
        // matches `name` itself.
        let itself = !entry_host.starts_with('.');
        let bare = entry_host.strip_prefix('.').unwrap_or(entry_host);
        let name = if bare.is_ascii() {
            Cow::Borrowed(bare)
        } else {
            // IDNA keeps the leading (ASCII) dot: it only separates labels.
            let dotted = format!(".{bare}");
            let suffix = go_idna(&dotted);
            Cow::Owned(suffix.strip_prefix('.').unwrap_or(&suffix).to_owned())
        };
        pending.mark(|i| {
            let host = &hosts[i];
            port_ok(host)
                && (ends_with_dotted(&host.name, &name) || (itself && *host.name == *name))
        });
    }
    pending.finish()
}

/// Go's `idnaASCII`: ASCII text unchanged, other text through IDNA's lookup
/// profile (UTS 46 non-transitional, STD3 rules), unchanged when that fails.
fn go_idna(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    idna::uts46::Uts46::new()
        .to_ascii(
            text.as_bytes(),
            idna::uts46::AsciiDenyList::STD3,
            idna::uts46::Hyphens::Check,
            idna::uts46::DnsLength::Ignore,
        )
        .map_or(Cow::Borrowed(text), |ascii| Cow::Owned(ascii.into_owned()))
}

/// The port `text` names when it is written as Rust writes a `u16` (digits
/// only, no leading zero): the texts equal to a port's decimal form.
fn decimal_u16(text: &str) -> Option<u16> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text.len() == 1 || !text.starts_with('0'));
    canonical.then(|| text.parse().ok()).flatten()
}

/// Go's net.ParseCIDR accepts host bits (the network is what counts).
fn go_parse_cidr(entry: &str) -> Option<IpNet> {
    let (addr, prefix) = entry.split_once('/')?;
    let addr: IpAddr = addr.parse().ok()?;
    if prefix.is_empty() || !prefix.bytes().all(|b| b.is_ascii_digit()) || prefix.len() > 3 {
        return None;
    }
    let net = IpNet::new(addr, prefix.parse().ok()?).ok()?.trunc();
    // Go's IPNet.Contains reads an IPv4-mapped network as IPv4.
    match net {
        IpNet::V6(v6) if v6.prefix_len() >= 96 => match v6.network().to_ipv4_mapped() {
            Some(v4) => IpNet::new(IpAddr::V4(v4), v6.prefix_len() - 96).ok(),
            None => Some(net),
        },
        _ => Some(net),
    }
}

/// Go's net.SplitHostPort: `None` where Go reports an error.
fn go_split_host_port(entry: &str) -> Option<(&str, &str)> {
    if let Some(rest) = entry.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        let port = after.strip_prefix(':')?;
        if port.contains(':') || host.contains('[') {
            return None;
        }
        return Some((host, port));
    }
    let (host, port) = entry.rsplit_once(':')?;
    if host.contains(':') || host.contains('[') || host.contains(']') {
        return None;
    }
    Some((host, port))
}

impl Dialect {
    /// Go's net/http (containerd, kubelet, most operators).
    pub const GO: Dialect = Dialect(&Go);
}
