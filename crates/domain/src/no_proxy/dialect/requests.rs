//! Python requests (`should_bypass_proxies`): urllib's check plus IPv4 CIDRs and a raw suffix match.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr};

use ipnet::IpNet;

use super::client::{Client, ClientTraits};
use super::python::urllib;
use super::shared::{ends_with_dotted, host_port, lowercase, split_at, Pending};
use super::Dialect;
use crate::no_proxy::destination::Destination;

/// Python requests.
pub(super) struct Requests;

impl Client for Requests {
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
    ..ClientTraits::open("requests", "2.34", direct)
};

/// requests `should_bypass_proxies` (2.34): IPv4 hosts (as `socket.inet_aton`
/// reads them) match valid IPv4 CIDRs (prefix 1-32) or equal entries; other
/// hosts match entries (leading dots removed) exactly or as a dot-bounded
/// suffix of the host or host:port; then urllib's check on the bare host.
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    // urlparse's hostname: as written, lowercase, without brackets.
    let hosts: Vec<Cow<str>> = ds.iter().map(|d| lowercase(&d.written)).collect();
    let ipv4: Vec<Option<Ipv4Addr>> = hosts.iter().map(|h| inet_aton(h)).collect();
    let with_port: Vec<Cow<str>> = ds
        .iter()
        .zip(&hosts)
        .map(|(d, host)| match d.explicit_port {
            Some(port) => Cow::Owned(host_port(host, port)),
            None => Cow::Borrowed(&**host),
        })
        .collect();
    // Then urllib's check; either check bypasses.
    let mut pending = Pending::new(urllib(list, &hosts));
    let spaceless = match list.contains(' ') {
        true => Cow::Owned(list.replace(' ', "")),
        false => Cow::Borrowed(list),
    };
    for entry in split_at(&spaceless, b',') {
        if pending.done() {
            break;
        }
        if entry.is_empty() {
            continue;
        }
        let cidr = requests_cidr(entry);
        let name = entry.trim_start_matches('.');
        pending.mark(|i| match ipv4[i] {
            Some(ip) => match cidr {
                Some(net) => net.contains(&IpAddr::V4(ip)),
                None => entry == hosts[i],
            },
            None => {
                let (host, with_port) = (&*hosts[i], &*with_port[i]);
                host == name
                    || with_port == name
                    || ends_with_dotted(host, name)
                    || ends_with_dotted(with_port, name)
            }
        });
    }
    pending.finish()
}

/// requests `is_valid_cidr`: one `/`, a prefix from 1 to 32 as Python's
/// `int` reads it, an IPv4 address as `socket.inet_aton` reads it (so
/// `10.1.2.3\t;x/8` is `10.0.0.0/8`).
fn requests_cidr(entry: &str) -> Option<IpNet> {
    let (addr, prefix) = entry.split_once('/')?;
    if prefix.contains('/') {
        return None;
    }
    let prefix = python_int(prefix).filter(|p| (1..=32).contains(p))?;
    let addr = inet_aton(addr)?;
    IpNet::new(IpAddr::V4(addr), u8::try_from(prefix).ok()?)
        .ok()
        .map(|n| n.trunc())
}

/// Python's `int(text)` for the values a prefix check needs: surrounding
/// Unicode white space (not the `\x1c`-`\x1f` separators, which `int`
/// keeps although `str.isspace` counts them), an optional sign, ASCII digits
/// with single `_` between them. Other decimal digits Python also takes
/// (`٨`) read as no number.
fn python_int(text: &str) -> Option<i64> {
    let text = text.trim();
    let (negative, digits) = match text.as_bytes().first()? {
        b'+' => (false, &text[1..]),
        b'-' => (true, &text[1..]),
        _ => (false, text),
    };
    if digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    let mut value: i64 = 0;
    let mut any = false;
    for b in digits.bytes().filter(|&b| b != b'_') {
        if !b.is_ascii_digit() {
            return None;
        }
        any = true;
        // Past i64, far past any prefix: one too large value is as invalid.
        value = value.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    any.then_some(if negative { -value } else { value })
}

/// glibc `inet_aton`, which Python's `socket.inet_aton` calls: one to four
/// parts joined by `.`, each a C number (`0x` hex, a leading `0` octal,
/// else decimal), the last one filling the bytes left (`10.1` is
/// 10.0.0.1); the address ends at the text's end or at an ASCII space
/// character, after which anything may follow.
fn inet_aton(text: &str) -> Option<Ipv4Addr> {
    let bytes = text.as_bytes();
    let mut leading = [0u8; 3];
    let mut count = 0;
    let mut at = 0;
    let last = loop {
        if !bytes.get(at)?.is_ascii_digit() {
            return None;
        }
        let (value, end) = c_number(bytes, at)?;
        at = end;
        if bytes.get(at) != Some(&b'.') {
            break value;
        }
        if count == leading.len() {
            return None;
        }
        leading[count] = u8::try_from(value).ok()?;
        count += 1;
        at += 1;
    };
    if bytes
        .get(at)
        .is_some_and(|&c| !matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
    {
        return None;
    }
    let room = 8 * (4 - count as u32);
    if room < 32 && last >> room != 0 {
        return None;
    }
    let high = leading[..count]
        .iter()
        .fold(0u32, |word, &byte| (word << 8) | u32::from(byte));
    let word = if count == 0 {
        last
    } else {
        (high << room) | last
    };
    Some(Ipv4Addr::from(word))
}

/// `strtoul(text + at, &end, 0)` on a part that starts with a digit: the
/// value (`None` past 32 bits, where `inet_aton` fails) and where it ends.
fn c_number(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
    let hex = bytes[at] == b'0'
        && matches!(bytes.get(at + 1), Some(b'x' | b'X'))
        && bytes.get(at + 2).is_some_and(u8::is_ascii_hexdigit);
    let (radix, start) = match (hex, bytes[at]) {
        (true, _) => (16, at + 2),
        (false, b'0') => (8, at),
        _ => (10, at),
    };
    let mut value: u64 = 0;
    let mut end = start;
    while let Some(digit) = bytes.get(end).and_then(|&b| char::from(b).to_digit(radix)) {
        value = value * u64::from(radix) + u64::from(digit);
        if value > u64::from(u32::MAX) {
            return None;
        }
        end += 1;
    }
    Some((u32::try_from(value).ok()?, end))
}

impl Dialect {
    /// Python requests (urllib plus IPv4 CIDRs and a raw suffix match).
    pub const REQUESTS: Dialect = Dialect(&Requests);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::Dialect;

    /// requests reads CIDR entries with glibc's `inet_aton` and Python's
    /// `int` (results checked against CPython 3.11's `socket.inet_aton` and
    /// `int` on glibc): `10.1.2.3\t;fd00::/8` is `10.0.0.0/8` to it.
    #[test]
    fn requests_reads_cidrs_as_python_does() {
        let addresses = [
            ("10.1", Some("10.0.0.1")),
            ("0x0a.1", Some("10.0.0.1")),
            ("012.1.2.3", Some("10.1.2.3")),
            ("10.1.2.3\t;x", Some("10.1.2.3")),
            ("1.2.3.4 ", Some("1.2.3.4")),
            ("10.0x1ffff", Some("10.1.255.255")),
            ("1.2.65535", Some("1.2.255.255")),
            ("0xA.0X0b.014.1", Some("10.11.12.1")),
            ("4294967295", Some("255.255.255.255")),
            ("10.1.2.3;", None),
            ("256.1.1.1", None),
            ("1.2.3.256", None),
            ("1.2.65536", None),
            ("4294967296", None),
            ("08", None),
            ("0x", None),
            ("", None),
            ("1..2", None),
            ("1.2.3.4.5", None),
            (".1", None),
        ];
        for (text, expected) in addresses {
            let expected = expected.map(|a| a.parse::<Ipv4Addr>().unwrap());
            assert_eq!(inet_aton(text), expected, "{text:?}");
        }
        let numbers = [
            (" 8\t", Some(8)),
            ("+8", Some(8)),
            ("-8", Some(-8)),
            ("0_8", Some(8)),
            ("1_6", Some(16)),
            ("\u{a0}8\u{3000}", Some(8)),
            ("1__6", None),
            ("_8", None),
            ("8_", None),
            ("\x1c8", None),
            ("", None),
            ("-", None),
            ("3 2", None),
        ];
        for (text, expected) in numbers {
            assert_eq!(python_int(text), expected, "{text:?}");
        }
        let list = " [::ffff:10.0.0.0/104]:8080,,B.A.EXAMPLE.COM:8080\t,10.1.2.3\t;fd00::/8\t";
        let bypasses = |url| Dialect::REQUESTS.bypasses(list, &Destination::parse(url).unwrap());
        assert!(bypasses("https://10.1.2.3:8080/"));
        assert!(!bypasses("https://11.1.2.3:8080/"));
    }
}
