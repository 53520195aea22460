//! curl and libcurl >= 7.86 (lib/noproxy.c).

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr};

use super::client::{Client, ClientTraits};
use super::shared::{longest_zero_run, Pending};
use super::Dialect;
use crate::no_proxy::destination::{Destination, DestinationHost};

/// curl and libcurl.
pub(super) struct Curl;

impl Client for Curl {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }

    fn matches_cidr(&self, ipv6: bool) -> bool {
        !ipv6
    }
}

/// What the client always answers: where it differs from [`ClientTraits::open`].
const TRAITS: ClientTraits = ClientTraits {
    in_default_set: true,
    ignores_leading_dot: true,
    supports_ports: false,
    ..ClientTraits::open("curl", "libcurl 7.88", direct)
};

/// curl (lib/noproxy.c): `*` only as the whole value; tokens are separated by
/// blanks and commas (7.88 warns about blanks but keeps reading); the host is
/// the punycode name curl connects to; host tokens lose
/// one leading and one trailing dot and match the name or a dot-bounded tail;
/// IPv4 tokens (with optional `/bits`) and exact IPv6 tokens match IP-literal
/// hosts (IPv6 CIDR tokens never match in curl 7.88); no ports.
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    if list.is_empty() {
        return vec![false; ds.len()];
    }
    if list.eq_ignore_ascii_case("*") {
        return vec![true; ds.len()];
    }
    let names: Vec<Cow<str>> = ds
        .iter()
        .map(|d| match &d.host {
            // Normalised: no trailing dot.
            DestinationHost::Name(name) => Cow::Borrowed(name.as_str()),
            // curl keeps a zone ID apart (scope id), so only the address is compared.
            DestinationHost::Ip(IpAddr::V6(ip)) => {
                Cow::Owned(curl_ipv6_name(*ip, d.written_address()))
            }
            // Matched by address, never by name (`CurlToken::matches`).
            DestinationHost::Ip(IpAddr::V4(_)) => Cow::Borrowed(""),
        })
        .collect();
    let mut pending = Pending::new(vec![false; ds.len()]);
    let bytes = list.as_bytes();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut p = 0;
    while p < bytes.len() && !pending.done() {
        while p < bytes.len() && blank(bytes[p]) {
            p += 1;
        }
        let start = p;
        while p < bytes.len() && !blank(bytes[p]) && bytes[p] != b',' {
            p += 1;
        }
        let token = &list[start..p];
        if !token.is_empty() {
            let token = CurlToken::parse(token);
            pending.mark(|i| token.matches(&names[i], ds[i].ip()));
        }
        while p < bytes.len() && blank(bytes[p]) {
            p += 1;
        }
        while p < bytes.len() && bytes[p] == b',' {
            p += 1;
        }
    }
    pending.finish()
}

/// A curl token, read once as a host name and as an IPv4 address or block.
struct CurlToken<'a> {
    /// The token without one trailing and then one leading dot.
    name: &'a str,
    /// The IPv4 address before any `/`, with the bits after it (0 if none).
    ipv4: Option<(Ipv4Addr, u32)>,
}

impl<'a> CurlToken<'a> {
    fn parse(token: &'a str) -> Self {
        let name = token.strip_suffix('.').unwrap_or(token);
        let name = name.strip_prefix('.').unwrap_or(name);
        let (addr, bits) = match token.split_once('/') {
            Some((addr, bits)) => (addr, c_atoi(bits)),
            None => (token, 0),
        };
        let ipv4 = match addr.parse::<IpAddr>() {
            Ok(IpAddr::V4(net)) => Some((net, bits)),
            _ => None,
        };
        Self { name, ipv4 }
    }

    /// True when the token matches a host: `name` (without its trailing dot)
    /// for names and IPv6 literals, `ip` for IPv4 literals.
    fn matches(&self, name: &str, ip: Option<IpAddr>) -> bool {
        match ip {
            None | Some(IpAddr::V6(_)) => {
                let token = self.name;
                if token.len() == name.len() {
                    token.eq_ignore_ascii_case(name)
                } else if token.len() < name.len() {
                    let tail = &name[name.len() - token.len()..];
                    name.as_bytes()[name.len() - token.len() - 1] == b'.'
                        && tail.eq_ignore_ascii_case(token)
                } else {
                    false
                }
            }
            Some(IpAddr::V4(ip)) => match self.ipv4 {
                Some((_, bits)) if bits > 32 => false,
                Some((net, 0 | 32)) => ip == net,
                Some((net, bits)) => {
                    let mask = u32::MAX << (32 - bits);
                    (u32::from(ip) ^ u32::from(net)) & mask == 0
                }
                None => false,
            },
        }
    }
}

/// The name curl checks for an IPv6 host: its URL parser rewrites the address
/// with `inet_ntop` into the buffer of the written text, so the normal form
/// replaces the written one only when it is shorter; noproxy.c then compares
/// it as a host name (which is why IPv6 CIDR tokens never match).
fn curl_ipv6_name(ip: std::net::Ipv6Addr, written: &str) -> String {
    let normal = inet_ntop6(ip);
    if normal.len() < written.len() {
        normal
    } else {
        written.to_owned()
    }
}

/// glibc's `inet_ntop(AF_INET6)`: the first longest run of two or more zero
/// groups compressed, IPv4-mapped and IPv4-compatible addresses dotted.
fn inet_ntop6(ip: std::net::Ipv6Addr) -> String {
    let w = ip.segments();
    let (start, len) = longest_zero_run(&w);
    let mut out = String::new();
    let mut i = 0;
    while i < 8 {
        if len > 0 && i == start {
            out.push(':');
            if i == 0 {
                out.push(':');
            }
            i += len;
            continue;
        }
        if i == 6
            && start == 0
            && (len == 6 || (len == 7 && w[7] != 1) || (len == 5 && w[5] == 0xffff))
        {
            let [a, b] = w[6].to_be_bytes();
            let [c, e] = w[7].to_be_bytes();
            out.push_str(&format!("{a}.{b}.{c}.{e}"));
            break;
        }
        out.push_str(&format!("{:x}", w[i]));
        if i < 7 {
            out.push(':');
        }
        i += 1;
    }
    out
}

/// C `atoi` for the digits curl reads after `/`.
fn c_atoi(text: &str) -> u32 {
    text.bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0u32, |n, b| {
            n.saturating_mul(10).saturating_add(u32::from(b - b'0'))
        })
}

impl Dialect {
    /// curl and libcurl >= 7.86.
    pub const CURL: Dialect = Dialect(&Curl);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inet_ntop6_serialisation() {
        for (ip, written) in [
            ("::ffff:a01:203", "::ffff:10.1.2.3"),
            ("::a01:203", "::10.1.2.3"),
            ("::1", "::1"),
            ("fd00:0:0:1::", "fd00:0:0:1::"),
            ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
        ] {
            assert_eq!(inet_ntop6(ip.parse().unwrap()), written, "{ip}");
        }
    }
}
