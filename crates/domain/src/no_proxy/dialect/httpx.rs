//! Python httpx 0.28.1 (`httpx.Client()` with `trust_env`, the default).
//!
//! httpx turns NO_PROXY into URL patterns when the client is constructed and
//! matches each request URL against them with its own URL parser. Sources
//! (httpx 0.28.1): `httpx/_utils.py` `get_environment_proxies` and
//! `URLPattern`, `httpx/_client.py` `_get_proxy_map`, `__init__` (mounts
//! sorted by priority) and `_transport_for_url`, `httpx/_urlparse.py`
//! `urlparse`, `encode_host`, `normalize_port`, `validate_path` and `quote`,
//! `httpx/_urls.py` `URL.host` (IDNA decoding). What follows from them:
//! - entries are split at `,` only and stripped; `*` as any entry bypasses
//!   every host; empty entries are skipped;
//! - an IPv4 entry (or an IPv4 address before `/`) becomes `all://<entry>`:
//!   a CIDR matches only its network address (the `/bits` is the path);
//! - an IPv6 entry becomes `all://[<entry>]` and matches only a URL that
//!   writes the address the same way (case included); an IPv6 CIDR or a
//!   bracketed IPv6 entry (`[fd00::1]`, `[fd00::1]:80`) is no valid URL, so
//!   `httpx.Client()` raises `InvalidURL` and no request can be made;
//! - `localhost` (any case) matches `localhost` only;
//! - any other entry `x` becomes `all://*x`: it matches `x` and dot-bounded
//!   subdomains of it; so `.x` matches subdomains only, and `*.x` (`**.x`)
//!   never matches; a non-ASCII entry is no valid IDNA name after the `*`, so
//!   the client cannot be constructed; a tab breaks it too, other separators
//!   become part of the name;
//! - an entry's `:port` restricts the port, compared after the URL's port is
//!   dropped when it is its scheme's default: `x:443` never matches an https
//!   URL, whether the URL writes `:443` or not;
//! - hosts compare lowercase, a trailing dot kept, IDN names in punycode
//!   except a host whose first label is IDN, which compares in Unicode.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

use super::client::{Client, ClientTraits, Decision};
use super::shared::ends_with_dotted;
use super::Dialect;
use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::{Entry, Host};
use crate::no_proxy::forms::{Forms, Remark};

/// Python httpx.
pub(super) struct Httpx;

impl Client for Httpx {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }

    fn rejects_whole_setting(&self, entry: &str) -> bool {
        breaks_client(entry)
    }

    fn forms<'m>(&self, entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
        httpx_forms(entry, text, out)
    }
}

/// What the client always answers: where it differs from [`ClientTraits::all`].
const TRAITS: ClientTraits = ClientTraits {
    doc_name: Some("Python httpx"),
    // httpx can also refuse every URL (a setting it cannot read).
    ..ClientTraits::all("httpx", "Python httpx 0.28, `httpx.Client()`", decide_all)
};

/// The proxy settings the oracle and a cluster give: one proxy for `http://`
/// and one for `https://` URLs (`get_environment_proxies` order).
const PROXY_KEYS: [&str; 2] = ["http://", "https://"];

/// What httpx does with a request for each of `ds` when NO_PROXY is `list`:
/// the client is constructed once, then each URL is matched.
fn decide_all(list: &str, ds: &[Destination]) -> Vec<Decision> {
    // Client construction: mount keys, then patterns (any failure raises).
    let Some(keys) = mount_keys(list) else {
        return ds.iter().map(direct_if_url_parses).collect();
    };
    let mut mounts = Vec::with_capacity(keys.len());
    for (key, proxy) in keys {
        match Pattern::parse(&key) {
            Some(pattern) => mounts.push((pattern, proxy)),
            None => return vec![Decision::Refused; ds.len()],
        }
    }
    mounts.sort_by_cached_key(|(pattern, _)| pattern.priority());
    ds.iter().map(|d| decide_url(&mounts, d)).collect()
}

/// What a client with `mounts` (sorted by priority) does with a request for `d`.
fn decide_url(mounts: &[(Pattern, bool)], d: &Destination) -> Decision {
    let Some(url) = Url::parse(&d.to_string()) else {
        return Decision::Refused;
    };
    // Read only when a pattern names a host, as httpx does.
    let mut host = None;
    for (pattern, proxy) in mounts {
        match pattern.matches(&url, &mut host) {
            Some(true) if *proxy => return Decision::Proxy,
            Some(true) => return Decision::Direct,
            Some(false) => {}
            None => return Decision::Refused,
        }
    }
    Decision::Direct
}

/// True when `entry` (one NO_PROXY element, as given) makes `httpx.Client()`
/// raise: the whole setting is then unusable.
fn breaks_client(entry: &str) -> bool {
    let entry = entry.trim_matches(py_space);
    entry != "*" && !entry.is_empty() && Pattern::parse(&entry_key(entry)).is_none()
}

/// With `*` in NO_PROXY, httpx mounts nothing: every URL it accepts is direct.
fn direct_if_url_parses(d: &Destination) -> Decision {
    match Url::parse(&d.to_string()) {
        Some(_) => Decision::Direct,
        None => Decision::Refused,
    }
}

/// The mount keys in insertion order with whether each is the proxy (true)
/// or direct; `None` for `*` (no mounts at all).
fn mount_keys(list: &str) -> Option<Vec<(String, bool)>> {
    let mut keys: Vec<(String, bool)> = PROXY_KEYS.iter().map(|k| (k.to_string(), true)).collect();
    let mut places: HashMap<String, usize> = keys
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (k.clone(), i))
        .collect();
    for raw in list.split(',') {
        let entry = raw.trim_matches(py_space);
        if entry == "*" {
            return None;
        }
        if entry.is_empty() {
            continue;
        }
        let key = entry_key(entry);
        // A dict: a repeated key keeps its place and takes the new value.
        match places.get(&key) {
            Some(&place) => keys[place].1 = false,
            None => {
                places.insert(key.clone(), keys.len());
                keys.push((key, false));
            }
        }
    }
    Some(keys)
}

/// The mount key `get_environment_proxies` makes of a non-empty entry.
fn entry_key(entry: &str) -> String {
    let address = entry.split('/').next().unwrap_or_default();
    if entry.contains("://") {
        entry.to_owned()
    } else if address.parse::<Ipv4Addr>().is_ok() {
        format!("all://{entry}")
    } else if py_ipv6(address) {
        format!("all://[{entry}]")
    } else if entry.to_lowercase() == "localhost" {
        format!("all://{entry}")
    } else {
        format!("all://*{entry}")
    }
}

/// Python's `str.isspace` (what `str.strip()` removes).
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `ipaddress.IPv6Address`: an address with an optional `%scope`.
fn py_ipv6(text: &str) -> bool {
    let address = match text.split_once('%') {
        Some((address, scope)) if !scope.is_empty() && !scope.contains('%') => address,
        Some(_) => return false,
        None => text,
    };
    address.parse::<Ipv6Addr>().is_ok()
}

/// The parts of an httpx URL the proxy choice reads.
struct Url {
    /// The scheme, lowercase (`all` for every scheme in a pattern).
    scheme: String,
    /// The encoded host (`ParseResult.host`).
    host: String,
    /// The port, `None` when absent or the scheme's default.
    port: Option<i128>,
}

impl Url {
    /// `urlparse`: `None` where httpx raises `InvalidURL`.
    fn parse(text: &str) -> Option<Url> {
        if text
            .chars()
            .any(|c| c.is_ascii() && (c < ' ' || c == '\x7f'))
        {
            return None;
        }
        let scheme_len = text
            .char_indices()
            .take_while(|(i, c)| {
                if *i == 0 {
                    c.is_ascii_alphabetic()
                } else {
                    c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')
                }
            })
            .count();
        let (raw_scheme, rest) = match text[scheme_len..].strip_prefix(':') {
            Some(rest) => (&text[..scheme_len], rest),
            None => ("", text),
        };
        let (authority, path) = match rest.strip_prefix("//") {
            Some(after) => {
                let end = after.find(['/', '?', '#']).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
            None => ("", rest),
        };
        let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
        let (userinfo, after_userinfo) = authority.rsplit_once('@').unwrap_or(("", authority));
        let (host, port) = match after_userinfo.strip_prefix('[') {
            Some(inner) if inner.contains(']') => {
                let end = after_userinfo.rfind(']').unwrap_or_default() + 1;
                after_userinfo.split_at(end)
            }
            _ => after_userinfo.split_at(after_userinfo.find(':').unwrap_or(after_userinfo.len())),
        };
        let port = port.strip_prefix(':').unwrap_or(port);
        let host = encode_host(host)?;
        let port = normalize_port(port, raw_scheme)?;
        let scheme = raw_scheme.to_ascii_lowercase();
        let has_authority = !userinfo.is_empty() || !host.is_empty() || port.is_some();
        if scheme.is_empty() && !has_authority && (path.starts_with("//") || path.starts_with(':'))
        {
            return None;
        }
        Some(Url { scheme, host, port })
    }

    /// `URL.host`: the encoded host, IDNA-decoded when it starts with
    /// `xn--`; `None` where `idna.decode` raises.
    fn host(&self) -> Option<String> {
        if !self.host.starts_with("xn--") {
            return Some(self.host.clone());
        }
        let (unicode, result) = idna::domain_to_unicode(&self.host);
        result.ok().map(|_| unicode)
    }
}

/// `encode_host`: `None` where httpx raises `InvalidURL`.
fn encode_host(host: &str) -> Option<String> {
    if host.is_empty() {
        return Some(String::new());
    }
    let ipv4_style = host.split('.').count() == 4
        && host
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if ipv4_style {
        return host.parse::<Ipv4Addr>().ok().map(|_| host.to_owned());
    }
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return py_ipv6(inner).then(|| inner.to_owned());
    }
    if host.is_ascii() {
        return Some(quote_host(&host.to_ascii_lowercase()));
    }
    idna_encode(&host.to_lowercase())
}

/// `quote(host, safe=SUB_DELIMS + '"`{}%|\\')` on an ASCII host.
fn quote_host(host: &str) -> String {
    host.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-._~!$&'()*+,;=\"`{}%|\\".contains(c) {
                c.to_string()
            } else {
                format!("%{:02X}", c as u32)
            }
        })
        .collect()
}

/// `idna.encode(host)` (IDNA 2008, no UTS 46 mapping): labels split at the
/// four Unicode full stops, one trailing dot kept, no empty label; each label
/// valid as written (here: unchanged by UTS 46 with STD3 rules).
fn idna_encode(host: &str) -> Option<String> {
    let mut labels: Vec<&str> = host
        .split(['.', '\u{3002}', '\u{ff0e}', '\u{ff61}'])
        .collect();
    let trailing_dot = labels.len() > 1 && labels.last() == Some(&"");
    if trailing_dot {
        labels.pop();
    }
    let mut out = Vec::with_capacity(labels.len());
    for label in labels {
        if label.is_empty() {
            return None;
        }
        let ascii = idna::uts46::Uts46::new()
            .to_ascii(
                label.as_bytes(),
                idna::uts46::AsciiDenyList::STD3,
                idna::uts46::Hyphens::Check,
                idna::uts46::DnsLength::Verify,
            )
            .ok()?;
        if idna::domain_to_unicode(&ascii).0 != label {
            return None;
        }
        out.push(ascii.into_owned());
    }
    if trailing_dot {
        out.push(String::new());
    }
    Some(out.join("."))
}

/// `normalize_port`: `None` (outer) where httpx raises.
fn normalize_port(port: &str, scheme: &str) -> Option<Option<i128>> {
    if port.is_empty() {
        return Some(None);
    }
    let port = py_int(port)?;
    let default = match scheme {
        "ftp" => Some(21),
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    };
    Some((Some(port) != default).then_some(port))
}

/// Python's `int(text)` on a decimal string (blanks around, a sign, `_`
/// between digits); a value too large for `i128` saturates.
fn py_int(text: &str) -> Option<i128> {
    let text = text.trim_matches(py_space);
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    let value = digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .fold(0i128, |n, b| {
            n.saturating_mul(10).saturating_add(i128::from(b - b'0'))
        });
    Some(if negative { -value } else { value })
}

/// A mount key as `URLPattern` reads it.
struct Pattern {
    /// Empty for `all://`.
    scheme: String,
    /// Empty for any host (`*` or none).
    host: String,
    /// The port, if restricted.
    port: Option<i128>,
}

impl Pattern {
    /// `URLPattern(key)`: `None` where it raises.
    fn parse(key: &str) -> Option<Pattern> {
        if !key.is_empty() && !key.contains(':') {
            return None;
        }
        let url = Url::parse(key)?;
        let host = url.host()?;
        Some(Pattern {
            scheme: if url.scheme == "all" {
                String::new()
            } else {
                url.scheme
            },
            host: if host == "*" { String::new() } else { host },
            port: url.port,
        })
    }

    /// `URLPattern.priority`: a port first, then longer hosts, longer schemes.
    fn priority(&self) -> (bool, isize, isize) {
        let len = |s: &str| s.chars().count() as isize;
        (self.port.is_none(), -len(&self.host), -len(&self.scheme))
    }

    /// `URLPattern.matches`: `None` where reading the URL's host raises.
    /// `host` keeps the URL's host once read ([`Url::host`]).
    fn matches(&self, url: &Url, host: &mut Option<Option<String>>) -> Option<bool> {
        if !self.scheme.is_empty() && self.scheme != url.scheme {
            return Some(false);
        }
        if !self.host.is_empty() {
            let host = host.get_or_insert_with(|| url.host()).as_deref()?;
            let matched = if let Some(domain) = self.host.strip_prefix("*.") {
                // `^.+\.domain$`
                host.len() > domain.len() + 1 && ends_with_dotted(host, domain)
            } else if let Some(domain) = self.host.strip_prefix('*') {
                // `^(.+\.)?domain$`
                host == domain || (host.len() > domain.len() + 1 && ends_with_dotted(host, domain))
            } else {
                host == self.host
            };
            if !matched {
                return Some(false);
            }
        }
        Some(self.port.is_none() || self.port == url.port)
    }
}

/// httpx cannot read `[v6]:port`.
const IPV6_PORT: &str = "httpx cannot read an IPv6 address with a port (`[addr]:port` makes it reject the whole NO_PROXY value); the entry applies to every port.";
/// httpx never matches a default port.
const DEFAULT_PORT: &str = "httpx removes a URL's default port before comparing, so this port would never match URLs that use it by default; the entry applies to every port.";
/// httpx rejects a value with an IPv6 block.
const IPV6_CIDR: &str = "httpx rejects the whole NO_PROXY value when it holds an IPv6 CIDR block; the entry is left out, so addresses in it go through the proxy unless listed one by one.";
/// httpx does not match IPv4 blocks.
const IPV4_CIDR: &str = "httpx does not match CIDR blocks (only the network address itself); the entry is left out, so addresses in it go through the proxy unless listed one by one.";
/// httpx compares internationalised hosts in Unicode.
const UNICODE: &str = "httpx compares a host whose first label is internationalised in Unicode and cannot read Unicode entries, so such hosts under the entry go through the proxy.";

/// httpx forms for one entry: never a bracketed address or an IPv6 CIDR,
/// which make httpx reject the whole setting; `localhost` needs
/// `.localhost` for its subdomains; default ports never match, so they are
/// left out.
fn httpx_forms<'m>(entry: &Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
    let default_port = matches!(entry.port, Some(80 | 443));
    let v6_port = matches!(entry.host, Host::Ip(IpAddr::V6(_))) && entry.port.is_some();
    let port_note = if v6_port {
        Some(Remark::Own(IPV6_PORT))
    } else if default_port {
        Some(Remark::Own(DEFAULT_PORT))
    } else {
        None
    };
    let (port, text) = match port_note {
        Some(_) => (None, entry.host_text(text)),
        None => (entry.port, text),
    };
    match &entry.host {
        Host::Cidr(IpNet::V6(_)) => Some(Remark::Own(IPV6_CIDR)),
        Host::Cidr(IpNet::V4(_)) => Some(Remark::Own(IPV4_CIDR)),
        Host::Ip(_) => {
            out.push(text);
            port_note
        }
        Host::Domain {
            name,
            subdomains_only,
        } => {
            out.push(text);
            if name == "localhost" && !subdomains_only && port.is_none() {
                out.push(".localhost");
            }
            let idn_note = name
                .split('.')
                .any(|label| label.starts_with("xn--"))
                .then_some(Remark::Own(UNICODE));
            port_note.or(idn_note)
        }
        Host::Any => {
            out.push("*");
            None
        }
    }
}

impl Dialect {
    /// Python httpx 0.28 (`httpx.Client()` reading the environment).
    pub const HTTPX: Dialect = Dialect(&Httpx);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::Dialect;

    /// httpx's rules (dialect/httpx.rs), each as the real httpx 0.28.1 answers.
    #[test]
    fn httpx_rules_hold() {
        use Decision::*;
        let cases: &[(&str, &str, Decision)] = &[
            ("bücher.example", "http://bücher.example/", Refused),
            (".bücher.example", "http://a.bücher.example/", Refused),
            ("xn--bcher-kva.example", "http://bücher.example/", Proxy),
            ("xn--bcher-kva.example", "http://a.bücher.example/", Direct),
            ("a.example b.example", "http://b.example/", Proxy),
            ("a.example\tb.example", "http://b.example/", Refused),
            ("fd00::/8", "http://[fd00::1]/", Refused),
            ("[fd00::1]", "http://[fd00::1]/", Refused),
            ("fd00::1", "http://[fd00::1]/", Direct),
            ("fd00::1", "http://[FD00::1]/", Proxy),
            ("fe80::1%eth0", "http://[fe80::1%25eth0]/", Proxy),
            ("fe80::1%25eth0", "http://[fe80::1%25eth0]/", Direct),
            (":8080", "http://x.example:8080/", Direct),
            (".", "http://x.example./", Direct),
            ("*.", "http://x.example./", Proxy),
            ("*.example.com", "http://a.example.com/", Proxy),
            ("example.com:443", "https://example.com:443/", Proxy),
            ("example.com:443", "http://example.com:443/", Direct),
            ("10.0.0.0/8", "http://10.0.0.0/", Direct),
            ("10.0.0.0/8", "http://10.1.2.3/", Proxy),
            ("", "http://bücher.example./", Proxy),
            ("LOCALHOST", "http://a.localhost/", Proxy),
            ("a.example\tb.example,*", "http://x.example/", Direct),
            ("example.com", "http://a.example.com/", Direct),
            (".example.com", "http://example.com/", Proxy),
            ("example.com.", "http://example.com/", Proxy),
        ];
        for (list, url, want) in cases {
            let d = Destination::parse(url).unwrap();
            assert_eq!(Dialect::HTTPX.decide(list, &d), *want, "{list:?} {url}");
        }
        assert!(Httpx.rejects_whole_setting("[fd00::1]"));
        assert!(Httpx.rejects_whole_setting("fd00::/64"));
        assert!(!Httpx.rejects_whole_setting("fd00::1"));
        assert!(!Dialect::GO.client().rejects_whole_setting("[fd00::1]"));
    }
}
