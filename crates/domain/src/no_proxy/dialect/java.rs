//! Java: OpenJDK's DefaultProxySelector reading `http.nonProxyHosts` (not
//! NO_PROXY), and the `a.b.*` patterns that express an IPv4 block in it.

use std::borrow::Cow;
use std::fmt;
use std::net::IpAddr;

use ipnet::{IpNet, Ipv4Net};

use super::client::{Client, ClientTraits};
use super::shared::{lowercase, split_at, Case, Pending};
use super::Dialect;
use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::{Entry, Host};
use crate::no_proxy::forms::{Forms, Remark};
use crate::no_proxy::write::write_decimal;

/// Java's `http.nonProxyHosts`.
pub(super) struct Java;

impl Client for Java {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }

    fn keeps_cover(&self, cover: &IpNet, net: &IpNet) -> bool {
        match (cover, net) {
            (IpNet::V4(cover), IpNet::V4(net)) => java_expresses(cover) || !java_expresses(net),
            _ => true,
        }
    }

    fn forms<'m>(&self, entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
        java_forms(entry, text, out)
    }
}

/// What the client always answers: where it differs from [`ClientTraits::open`].
const TRAITS: ClientTraits = ClientTraits {
    doc_name: Some("`http.nonProxyHosts`"),
    in_default_set: true,
    reads_no_proxy: false,
    separator: "|",
    supports_ports: false,
    ..ClientTraits::open("java", "OpenJDK DefaultProxySelector", direct)
};

/// The patterns OpenJDK always appends to `http.nonProxyHosts`.
pub const JAVA_DEFAULT_NON_PROXY_HOSTS: &str = "localhost|127.*|[::1]|0.0.0.0|[::0]";

/// OpenJDK DefaultProxySelector: `|`-separated patterns, each an exact,
/// case-insensitive match of the URI host as written (IPv6 in brackets), with `*` allowed at
/// the start and/or end; the JDK defaults are appended to a non-empty value (an
/// empty value disables them too).
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    if list.is_empty() {
        return vec![false; ds.len()];
    }
    let hosts: Vec<Cow<str>> = ds
        .iter()
        .map(|d| match d.written_url_host() {
            Cow::Borrowed(host) => lowercase(host),
            Cow::Owned(host) => Cow::Owned(host.to_lowercase()),
        })
        .collect();
    let mut pending = Pending::new(vec![false; ds.len()]);
    // The defaults are lowercase ASCII: the setting's case covers them.
    let case = Case::of(list);
    let patterns = split_at(list, b'|')
        .chain(split_at(JAVA_DEFAULT_NON_PROXY_HOSTS, b'|'))
        .filter(|p| !p.is_empty());
    for pattern in patterns {
        if pending.done() {
            break;
        }
        let pattern = case.lower(pattern);
        let (lead, rest) = match pattern.strip_prefix('*') {
            Some(rest) => (true, rest),
            None => (false, &*pattern),
        };
        let (trail, core) = match rest.strip_suffix('*') {
            Some(core) => (true, core),
            None => (false, rest),
        };
        pending.mark(|i| {
            let host = &hosts[i];
            match (lead, trail) {
                (true, true) => host.contains(core),
                (true, false) => host.ends_with(core),
                (false, true) => host.starts_with(core),
                (false, false) => host == core,
            }
        });
    }
    pending.finish()
}

/// The most patterns one CIDR block may expand to in Java's syntax.
pub const JAVA_MAX_EXPANSION: u32 = 256;

/// One Java `http.nonProxyHosts` pattern for an IPv4 block: its leading
/// octets, then `*` (`10.96.*`; `*` alone for `0.0.0.0/0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JavaPattern {
    octets: [u8; 4],
    spelled: usize,
}

impl JavaPattern {
    /// Writes the pattern into `out`, digit by digit (no formatting machinery).
    pub(crate) fn write_into(self, out: &mut impl fmt::Write) -> fmt::Result {
        for &octet in &self.octets[..self.spelled] {
            write_decimal(out, u16::from(octet))?;
            out.write_char('.')?;
        }
        out.write_char('*')
    }
}

impl fmt::Display for JavaPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_into(f)
    }
}

/// `10.0.0.0/8` → `10.*`; `10.96.0.0/12` → `10.96.*` ... `10.111.*`; `None`
/// when Java cannot express the block.
pub fn java_cidr_patterns(net: &Ipv4Net) -> Option<impl Iterator<Item = JavaPattern>> {
    let (octets, count) = if net.prefix_len() == 0 {
        (0, 1)
    } else {
        java_cidr_expansion(net)?
    };
    let base = u32::from(net.network());
    let step = 1u64 << (32 - octets * 8);
    Some((0..count).map(move |i| JavaPattern {
        // At most 256 patterns of at least one octet: no overflow.
        octets: (base + (u64::from(i) * step) as u32).to_be_bytes(),
        spelled: octets as usize,
    }))
}

/// How many leading octets the `a.b.*` patterns of `net` spell and how many
/// patterns it takes; `None` when Java cannot express the block.
fn java_cidr_expansion(net: &Ipv4Net) -> Option<(u32, u32)> {
    let prefix = u32::from(net.prefix_len());
    let octets = prefix.div_ceil(8);
    let count = 1u32 << (octets * 8 - prefix);
    (count <= JAVA_MAX_EXPANSION && octets < 4).then_some((octets, count))
}

/// Whether [`java_cidr_patterns`] can express `net` (without building the patterns).
pub fn java_expresses(net: &Ipv4Net) -> bool {
    net.prefix_len() == 0 || java_cidr_expansion(net).is_some()
}

/// Java has no ports.
const PORTS: &str = "Java's http.nonProxyHosts has no ports; the entry applies to every port.";
/// The block does not expand to few enough patterns ([`JAVA_MAX_EXPANSION`]).
const CIDR: &str = "Java has no CIDR syntax and the block does not expand to at most 256 `a.b.*` patterns; the entry is left out.";
/// Java has no IPv6 blocks.
const IPV6_CIDR: &str = "Java has no CIDR syntax for IPv6; the entry is left out.";

/// Java `http.nonProxyHosts` patterns for one entry.
fn java_forms<'m>(entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
    let port_note = entry.port.map(|_| Remark::Own(PORTS));
    match &entry.host {
        Host::Any => out.push("*"),
        Host::Domain {
            name,
            subdomains_only,
        } => {
            if !subdomains_only {
                out.push(name);
            }
            out.build(&["*.", name]);
        }
        Host::Ip(IpAddr::V6(_)) => {
            out.build(&["[", entry.host_text(text), "]"]);
        }
        Host::Ip(_) => out.push(entry.host_text(text)),
        Host::Cidr(IpNet::V4(net)) => match java_cidr_patterns(net) {
            Some(patterns) => {
                for pattern in patterns {
                    // Writing into a String cannot fail.
                    out.add(|built| {
                        let _ = pattern.write_into(built);
                    });
                }
            }
            None => return Some(Remark::Own(CIDR)),
        },
        Host::Cidr(IpNet::V6(_)) => return Some(Remark::Own(IPV6_CIDR)),
    }
    port_note
}

impl Dialect {
    /// Java: `http.nonProxyHosts`, not NO_PROXY.
    pub const JAVA: Dialect = Dialect(&Java);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_expands_octet_aligned_blocks() {
        let patterns = |net: &str| -> Option<Vec<String>> {
            java_cidr_patterns(&net.parse().unwrap()).map(|p| p.map(|p| p.to_string()).collect())
        };
        let twelve = patterns("10.96.0.0/12").unwrap();
        assert_eq!(twelve.len(), 16);
        assert_eq!(twelve[0], "10.96.*");
        assert_eq!(twelve[15], "10.111.*");
        assert_eq!(patterns("10.0.0.0/8").unwrap(), ["10.*"]);
        assert_eq!(patterns("10.0.0.0/7").unwrap(), ["10.*", "11.*"]);
        assert_eq!(patterns("0.0.0.0/0").unwrap(), ["*"]);
        assert_eq!(patterns("255.255.255.0/24").unwrap(), ["255.255.255.*"]);
        assert_eq!(patterns("128.0.0.0/1").unwrap().len(), 128);
        assert_eq!(patterns("128.0.0.0/1").unwrap()[127], "255.*");
        assert!(patterns("10.0.0.0/30").is_none());
    }

    /// The message names the expansion limit.
    #[test]
    fn cidr_message_names_the_limit() {
        assert!(CIDR.contains(&format!("at most {JAVA_MAX_EXPANSION} `a.b.*`")));
    }

    /// `java_expresses` agrees with the patterns.
    #[test]
    fn java_expression_agrees_with_the_patterns() {
        for prefix in 0..=32 {
            let net = Ipv4Net::new(std::net::Ipv4Addr::new(10, 0, 0, 0), prefix).unwrap();
            assert_eq!(java_expresses(&net), java_cidr_patterns(&net).is_some());
        }
    }
}
