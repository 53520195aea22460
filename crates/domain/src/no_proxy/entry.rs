//! NO_PROXY entries: what an entry matches, its canonical text and the
//! canonical order; parsed and normalised by [`Entry::parse`].
//!
//! Canonical order (the order of every merged list, stable across releases):
//! `*` first; then host names and domains, by name (byte order of the
//! lowercase punycode text), then by port (none first, then ascending), then
//! `name` before `.name` (so `name`, `.name`, `name:80`, `.name:80`: the `.name`
//! form some clients need stands right after its entry); then IPv4 addresses and blocks, then IPv6 ones,
//! each numerically by network address, a block before the addresses and
//! longer prefixes it starts with (shorter prefix first), without a port before with one.

use std::cmp::Ordering;
use std::fmt;
use std::net::IpAddr;
use std::ops::Deref;

use ipnet::IpNet;

use super::write::{write_decimal, write_ipv4, write_port};

mod parse;

pub(crate) use parse::label_errors;
pub use parse::{parse_cidr, Parsed, Rejection};

/// What an entry matches, before any port restriction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Host {
    /// `*`: every destination.
    Any,
    /// A host name or domain, lowercase ASCII (punycode), no trailing dot.
    Domain {
        /// The name without a leading dot.
        name: String,
        /// True for `.name`: only names below it, not `name` itself.
        subdomains_only: bool,
    },
    /// One IP address.
    Ip(IpAddr),
    /// A CIDR block in canonical form (no host bits, prefix shorter than the address).
    Cidr(IpNet),
}

/// One normalised NO_PROXY entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Entry {
    /// What it matches.
    pub host: Host,
    /// Port restriction (`host:port`); CIDRs and `*` never carry one.
    pub port: Option<u16>,
}

/// Entries with their canonical texts, each formatted once into one buffer:
/// the renderings borrow the texts instead of formatting every entry again.
/// Dereferences to the entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entries {
    entries: Vec<Entry>,
    /// The canonical texts joined with commas.
    joined: String,
    /// Where each text ends in `joined`.
    ends: Vec<usize>,
}

impl Entries {
    /// Formats the canonical text of every entry.
    pub fn new(entries: Vec<Entry>) -> Self {
        // Most canonical texts are short: one allocation for all of them.
        let mut joined = String::with_capacity(entries.len() * 24);
        let mut ends = Vec::with_capacity(entries.len());
        for entry in &entries {
            if !joined.is_empty() {
                joined.push(',');
            }
            // Writing into a String cannot fail.
            let _ = entry.write_text(&mut joined);
            ends.push(joined.len());
        }
        Self {
            entries,
            joined,
            ends,
        }
    }

    /// The canonical text of entry `index`.
    pub fn text(&self, index: usize) -> &str {
        let start = match index {
            0 => 0,
            // Past the comma after the previous text.
            _ => self.ends[index - 1] + 1,
        };
        &self.joined[start..self.ends[index]]
    }

    /// Each entry with its canonical text.
    pub fn with_texts(&self) -> impl Iterator<Item = (&Entry, &str)> {
        self.entries
            .iter()
            .enumerate()
            .map(|(index, entry)| (entry, self.text(index)))
    }

    /// The canonical texts joined with commas (Go's rendering).
    pub fn joined(&self) -> &str {
        &self.joined
    }
}

impl Deref for Entries {
    type Target = [Entry];

    fn deref(&self) -> &[Entry] {
        &self.entries
    }
}

impl FromIterator<Entry> for Entries {
    fn from_iter<I: IntoIterator<Item = Entry>>(entries: I) -> Self {
        Self::new(entries.into_iter().collect())
    }
}
impl Entry {
    /// The canonical text of the entry without its port, given its canonical
    /// text `text` (a slice of it: `[v6]:port` → `v6`, `host:port` → `host`).
    pub fn host_text<'t>(&self, text: &'t str) -> &'t str {
        match (&self.host, self.port) {
            (_, None) => text,
            (Host::Ip(IpAddr::V6(_)), Some(_)) => text
                .strip_prefix('[')
                .and_then(|rest| rest.split_once(']'))
                .map_or(text, |(address, _)| address),
            (_, Some(_)) => text.rsplit_once(':').map_or(text, |(host, _)| host),
        }
    }

    /// True when the entry is a plain IP address or CIDR block of IPv6.
    pub fn is_ipv6(&self) -> bool {
        matches!(
            self.host,
            Host::Ip(IpAddr::V6(_)) | Host::Cidr(IpNet::V6(_))
        )
    }

    /// The entry of the CIDR block `net` (no host bits): a plain address for
    /// a `/32` or `/128` block.
    pub fn network(net: IpNet) -> Self {
        let host = if net.prefix_len() == net.max_prefix_len() {
            Host::Ip(net.addr())
        } else {
            Host::Cidr(net)
        };
        Entry { host, port: None }
    }
}

impl Entry {
    /// Writes the canonical text into `out`: into a `String` without going
    /// through the formatting machinery for names, most of a long list.
    pub fn write_text<W: fmt::Write>(&self, out: &mut W) -> fmt::Result {
        match (&self.host, self.port) {
            (Host::Any, _) => out.write_str("*"),
            // IPv4 digit by digit: most entries of large lists are addresses.
            (Host::Cidr(IpNet::V4(net)), _) => {
                write_ipv4(out, net.addr())?;
                out.write_str("/")?;
                write_decimal(out, u16::from(net.prefix_len()))
            }
            (Host::Ip(IpAddr::V4(ip)), port) => {
                write_ipv4(out, *ip)?;
                write_port(out, port)
            }
            (Host::Cidr(net), _) => write!(out, "{net}"),
            (Host::Ip(ip), Some(port)) => write!(out, "[{ip}]:{port}"),
            (Host::Ip(ip), None) => write!(out, "{ip}"),
            (
                Host::Domain {
                    name,
                    subdomains_only,
                },
                port,
            ) => {
                if *subdomains_only {
                    out.write_str(".")?;
                }
                out.write_str(name)?;
                write_port(out, port)
            }
        }
    }
}

impl fmt::Display for Entry {
    /// The canonical text, readable by Go (and, where they can, by every other client).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f)
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The sort key of the canonical order (see the module documentation);
/// variants compare in declaration order. Equal keys mean equal entries.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum OrderKey<'a> {
    Any,
    Domain(&'a str, Option<u16>, bool),
    V4(u32, u8, Option<u16>),
    V6(u128, u8, Option<u16>),
}

impl Entry {
    /// The entry's place in the canonical order.
    pub(super) fn order_key(&self) -> OrderKey<'_> {
        let net = |addr: IpAddr, prefix: u8| match addr {
            IpAddr::V4(a) => OrderKey::V4(u32::from(a), prefix, self.port),
            IpAddr::V6(a) => OrderKey::V6(u128::from(a), prefix, self.port),
        };
        match &self.host {
            Host::Any => OrderKey::Any,
            Host::Domain {
                name,
                subdomains_only,
            } => OrderKey::Domain(name, self.port, *subdomains_only),
            Host::Ip(ip) => net(*ip, if ip.is_ipv4() { 32 } else { 128 }),
            Host::Cidr(block) => net(block.network(), block.prefix_len()),
        }
    }
}

impl Ord for Entry {
    /// The canonical order.
    fn cmp(&self, other: &Self) -> Ordering {
        self.order_key().cmp(&other.order_key())
    }
}

#[cfg(test)]
mod tests {
    use super::parse::tests::canon;
    use super::*;

    /// Pins the canonical order: changing it changes every rendered output,
    /// so it must stay the same across releases.
    #[test]
    fn canonical_order_is_pinned() {
        let mut list: Vec<Entry> = [
            "fd00::1",
            "10.0.0.1:80",
            "b.example",
            "10.0.0.1",
            "*",
            ".a.example",
            "a.example:443",
            "10.0.0.0/8",
            "fd00::/8",
            "9.255.255.255",
            "a.example",
            "[fd00::1]:80",
            "a-b.example",
            "10.0.0.0/24",
            "::1",
            "127.0.0.1",
        ]
        .iter()
        .map(|raw| Entry::parse(raw).unwrap().entry)
        .collect();
        list.sort();
        let texts: Vec<String> = list.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "*",
                "a-b.example",
                "a.example",
                ".a.example",
                "a.example:443",
                "b.example",
                "9.255.255.255",
                "10.0.0.0/8",
                "10.0.0.0/24",
                "10.0.0.1",
                "10.0.0.1:80",
                "127.0.0.1",
                "::1",
                "fd00::/8",
                "fd00::1",
                "[fd00::1]:80",
            ]
        );
    }

    /// Each text is the entry's canonical text, and the host text drops
    /// exactly the port.
    #[test]
    fn entries_keep_each_canonical_text_and_its_host_part() {
        let raw = [
            "a.example:80",
            ".b.example:8080",
            "[fd00::1]:443",
            "10.0.0.1:8443",
            "fd00::2",
            "*",
        ];
        let hosts = [
            "a.example",
            ".b.example",
            "fd00::1",
            "10.0.0.1",
            "fd00::2",
            "*",
        ];
        let list: Entries = raw.iter().map(|r| Entry::parse(r).unwrap().entry).collect();
        assert_eq!(list.joined(), raw.join(","));
        for (index, (entry, text)) in list.with_texts().enumerate() {
            assert_eq!(text, raw[index]);
            assert_eq!(entry.host_text(text), hosts[index]);
        }
    }

    #[test]
    fn canonical_text_parses_back_to_itself() {
        for raw in [
            "a.example",
            ".a.example",
            "10.0.0.0/8",
            "[fd00::1]:80",
            "fd00::1",
            "x.example:8080",
        ] {
            let once = canon(raw);
            assert_eq!(canon(&once), once);
        }
    }
}
