//! How each client decides, from its NO_PROXY setting, whether a destination
//! bypasses the proxy. Each model follows the client's own source and is
//! checked against the real client by the differential tests
//! (tests/no_proxy_oracles.rs). Versions modelled: Go net/http (x/net
//! httpproxy), curl >= 7.86, CPython urllib, requests, Ruby URI, GNU wget >= 1.20,
//! OpenJDK DefaultProxySelector (http.nonProxyHosts), Node proxy-from-env.

use std::fmt;
use std::net::IpAddr;

use ipnet::IpNet;

use super::destination::Destination;

/// A client family that reads NO_PROXY in its own way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// Go's net/http (containerd, kubelet, most operators).
    Go,
    /// curl and libcurl >= 7.86.
    Curl,
    /// Python's urllib.
    Python,
    /// Python requests (urllib plus IPv4 CIDRs and a raw suffix match).
    Requests,
    /// Ruby's URI / Net::HTTP.
    Ruby,
    /// GNU wget.
    Wget,
    /// Java: `http.nonProxyHosts`, not NO_PROXY.
    Java,
    /// Node.js proxy-from-env (axios, npm, ...).
    Node,
}

impl Dialect {
    /// Every dialect, in documentation order.
    pub const ALL: [Dialect; 8] = [
        Dialect::Go,
        Dialect::Curl,
        Dialect::Python,
        Dialect::Requests,
        Dialect::Ruby,
        Dialect::Wget,
        Dialect::Java,
        Dialect::Node,
    ];

    /// Every dialect name, in the order of [`Dialect::ALL`].
    pub const NAMES: [&'static str; 8] = [
        "go", "curl", "python", "requests", "ruby", "wget", "java", "node",
    ];

    /// The name used in configuration (`go`, `curl`, ...).
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The dialect called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
    }

    /// True when the client reads NO_PROXY (Java reads `http.nonProxyHosts`).
    pub fn reads_no_proxy(self) -> bool {
        self != Dialect::Java
    }

    /// True when a CIDR entry of the family (`ipv6`) covers IP-literal
    /// destinations in this client (Ruby cannot write IPv6 entries at all;
    /// curl 7.88 never matches IPv6 CIDR entries).
    pub fn matches_cidr(self, ipv6: bool) -> bool {
        match self {
            Dialect::Go => true,
            Dialect::Curl | Dialect::Requests | Dialect::Ruby => !ipv6,
            Dialect::Python | Dialect::Wget | Dialect::Java | Dialect::Node => false,
        }
    }

    /// Whether this client sends a request for `destination` directly (true)
    /// or through the proxy (false), when its setting is `list` (the NO_PROXY
    /// value; for Java the `http.nonProxyHosts` value).
    pub fn bypasses(self, list: &str, destination: &Destination) -> bool {
        match self {
            Dialect::Go => go(list, destination),
            Dialect::Curl => curl(list, destination),
            Dialect::Python => python_urllib(list, &python_request_host(destination)),
            Dialect::Requests => requests(list, destination),
            Dialect::Ruby => ruby(list, destination),
            Dialect::Wget => wget(list, destination),
            Dialect::Java => java(list, destination),
            Dialect::Node => node(list, destination),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Go: `*` anywhere bypasses all; CIDRs and IPs match IP-literal hosts only;
/// `x` matches x and its subdomains, `.x` and `*.x` subdomains only; optional
/// `:port`; localhost and loopback addresses are always direct.
fn go(list: &str, d: &Destination) -> bool {
    let host = d.bare_host();
    if host == "localhost" || d.ip().is_some_and(|ip| ip.is_loopback()) {
        return true;
    }
    let port = d.port().to_string();
    for raw in list.split(',') {
        let entry = raw.trim().to_lowercase();
        if entry.is_empty() {
            continue;
        }
        if entry == "*" {
            return true;
        }
        if let Some(net) = go_parse_cidr(&entry) {
            if d.ip().is_some_and(|ip| net.contains(&ip)) {
                return true;
            }
            continue;
        }
        let (entry_host, entry_port) = match go_split_host_port(&entry) {
            Some(("", _)) => continue,
            Some((h, p)) => (h, p),
            None => (entry.as_str(), ""),
        };
        let port_ok = entry_port.is_empty() || entry_port == port;
        if let Ok(ip) = entry_host.parse::<IpAddr>() {
            if d.ip() == Some(ip) && port_ok {
                return true;
            }
            continue;
        }
        let entry_host = entry_host
            .strip_prefix('*')
            .filter(|h| h.starts_with('.'))
            .unwrap_or(entry_host);
        let (suffix, match_host) = match entry_host.strip_prefix('.') {
            Some(_) => (entry_host.to_owned(), false),
            None => (format!(".{entry_host}"), true),
        };
        if (host.ends_with(&suffix) || (match_host && host == suffix[1..])) && port_ok {
            return true;
        }
    }
    false
}

/// Go's net.ParseCIDR accepts host bits (the network is what counts).
fn go_parse_cidr(entry: &str) -> Option<IpNet> {
    let (addr, prefix) = entry.split_once('/')?;
    let addr: IpAddr = addr.parse().ok()?;
    if prefix.is_empty() || !prefix.bytes().all(|b| b.is_ascii_digit()) || prefix.len() > 3 {
        return None;
    }
    IpNet::new(addr, prefix.parse().ok()?).ok()
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

/// curl (lib/noproxy.c): `*` only as the whole value; tokens end at a blank or
/// comma and a blank not followed by a comma ends the list; host tokens lose
/// one leading and one trailing dot and match the name or a dot-bounded tail;
/// IPv4 tokens (with optional `/bits`) and exact IPv6 tokens match IP-literal
/// hosts (IPv6 CIDR tokens never match in curl 7.88); no ports.
fn curl(list: &str, d: &Destination) -> bool {
    if list.is_empty() {
        return false;
    }
    if list.eq_ignore_ascii_case("*") {
        return true;
    }
    let name = d.bare_host();
    let bytes = list.as_bytes();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut p = 0;
    while p < bytes.len() {
        while p < bytes.len() && blank(bytes[p]) {
            p += 1;
        }
        let start = p;
        while p < bytes.len() && !blank(bytes[p]) && bytes[p] != b',' {
            p += 1;
        }
        let token = &list[start..p];
        if !token.is_empty() && curl_token_matches(token, &name, d.ip()) {
            return true;
        }
        while p < bytes.len() && blank(bytes[p]) {
            p += 1;
        }
        if p >= bytes.len() || bytes[p] != b',' {
            break;
        }
        while p < bytes.len() && bytes[p] == b',' {
            p += 1;
        }
    }
    false
}

fn curl_token_matches(token: &str, name: &str, ip: Option<IpAddr>) -> bool {
    match ip {
        None => {
            let name = name.strip_suffix('.').unwrap_or(name);
            let token = token.strip_suffix('.').unwrap_or(token);
            let token = token.strip_prefix('.').unwrap_or(token);
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
        Some(ip) => {
            let (addr, bits) = match token.split_once('/') {
                Some((addr, bits)) => (addr, c_atoi(bits)),
                None => (token, 0),
            };
            match (ip, addr.parse::<IpAddr>()) {
                (IpAddr::V4(ip), Ok(IpAddr::V4(net))) => {
                    if bits > 32 {
                        return false;
                    }
                    if bits == 0 || bits == 32 {
                        return ip == net;
                    }
                    let mask = u32::MAX << (32 - bits);
                    (u32::from(ip) ^ u32::from(net)) & mask == 0
                }
                (IpAddr::V6(ip), Ok(IpAddr::V6(net))) => !token.contains('/') && ip == net,
                _ => false,
            }
        }
    }
}

/// C `atoi` for the digits curl reads after `/`.
fn c_atoi(text: &str) -> u32 {
    text.bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0u32, |n, b| {
            n.saturating_mul(10).saturating_add(u32::from(b - b'0'))
        })
}

/// The `host[:port]` urllib passes to its bypass check (the URL's netloc host,
/// IPv6 in brackets, port only when written).
fn python_request_host(d: &Destination) -> String {
    match d.explicit_port {
        Some(port) => format!("{}:{port}", d.url_host()),
        None => d.url_host(),
    }
}

/// CPython urllib `proxy_bypass_environment`: `*` only as the whole value;
/// entries lose leading dots and match the host (with or without port)
/// exactly or as a dot-bounded suffix. No CIDRs.
fn python_urllib(list: &str, host: &str) -> bool {
    if list == "*" {
        return true;
    }
    let host = host.to_lowercase();
    let host_only = python_split_port(&host);
    for raw in list.split(',') {
        let name = raw.trim().trim_start_matches('.').to_lowercase();
        if name.is_empty() {
            continue;
        }
        if host_only == name || host == name {
            return true;
        }
        let dotted = format!(".{name}");
        if host_only.ends_with(&dotted) || host.ends_with(&dotted) {
            return true;
        }
    }
    false
}

/// urllib's `_splitport`: `(.*):([0-9]*)` must match the whole string.
fn python_split_port(host: &str) -> &str {
    match host.rfind(':') {
        Some(i) if host[i + 1..].bytes().all(|b| b.is_ascii_digit()) => &host[..i],
        _ => host,
    }
}

/// requests `should_bypass_proxies` (2.34): IPv4 hosts match valid IPv4
/// CIDRs (prefix 1-32) or equal entries; other hosts match entries (leading
/// dots removed) exactly or as a dot-bounded suffix of the host or host:port;
/// then urllib's check on the bare host.
fn requests(list: &str, d: &Destination) -> bool {
    let entries: Vec<String> = list
        .replace(' ', "")
        .split(',')
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .collect();
    let host = d.bare_host();
    match d.ip() {
        Some(IpAddr::V4(ip)) => {
            for entry in &entries {
                if let Some(net) = requests_cidr(entry) {
                    if net.contains(&IpAddr::V4(ip)) {
                        return true;
                    }
                } else if *entry == host {
                    return true;
                }
            }
        }
        _ => {
            let with_port = match d.explicit_port {
                Some(port) => format!("{host}:{port}"),
                None => host.clone(),
            };
            let matches = |entry: &String| {
                let name = entry.trim_start_matches('.');
                let dotted = format!(".{name}");
                host == name
                    || with_port == name
                    || host.ends_with(&dotted)
                    || with_port.ends_with(&dotted)
            };
            if entries.iter().any(matches) {
                return true;
            }
        }
    }
    python_urllib(list, &host)
}

/// requests `is_valid_cidr`: one `/`, a prefix from 1 to 32, an IPv4 address.
fn requests_cidr(entry: &str) -> Option<IpNet> {
    let (addr, prefix) = entry.split_once('/')?;
    if prefix.contains('/') {
        return None;
    }
    let prefix: u8 = prefix
        .trim()
        .parse()
        .ok()
        .filter(|p| (1..=32).contains(p))?;
    let addr: std::net::Ipv4Addr = addr.parse().ok()?;
    IpNet::new(IpAddr::V4(addr), prefix).ok().map(|n| n.trunc())
}

/// Ruby `URI::Generic.use_proxy?`: entries are runs of characters other than
/// `:`, `,` and blanks, with an optional `:port`; `.x` matches names ending in
/// `.x`; `x` matches x and its subdomains; an IP or CIDR entry matches the
/// destination's address. Ruby resolves host names to find that address; this
/// model only knows the addresses of IP literals (and that localhost is loopback).
fn ruby(list: &str, d: &Destination) -> bool {
    let host = d.bare_host();
    if host == "localhost" || d.ip().is_some_and(|ip| ip.is_loopback()) {
        return true;
    }
    let dotted_host = format!(".{host}");
    let port = d.port();
    let bytes = list.as_bytes();
    let separator = |b: u8| b == b':' || b == b',' || b.is_ascii_whitespace();
    let mut p = 0;
    while p < bytes.len() {
        if separator(bytes[p]) {
            p += 1;
            continue;
        }
        let start = p;
        while p < bytes.len() && !separator(bytes[p]) {
            p += 1;
        }
        let entry_host = list[start..p].to_lowercase();
        let mut entry_port = None;
        if p < bytes.len() && bytes[p] == b':' {
            let digits = bytes[p + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits > 0 {
                entry_port = Some(&list[p + 1..p + 1 + digits]);
                p += 1 + digits;
            }
        }
        if entry_port.is_some_and(|ep| ep.parse::<u64>().ok() != Some(u64::from(port))) {
            continue;
        }
        let named = if entry_host.starts_with('.') {
            host.ends_with(&entry_host)
        } else {
            dotted_host.ends_with(&format!(".{entry_host}"))
        };
        if named {
            return true;
        }
        if let (Some(ip), Some(net)) = (d.ip(), ruby_ipaddr(&entry_host)) {
            if net.contains(&ip) {
                return true;
            }
        }
    }
    false
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

/// GNU wget `sufmatch`: each comma-separated entry (leading blanks skipped, trailing kept)
/// matches the host exactly, as a dot-bounded suffix, or (with a leading dot)
/// as a plain suffix.
fn wget(list: &str, d: &Destination) -> bool {
    let host = d.bare_host();
    list.split(',')
        .map(str::trim_start)
        .filter(|e| !e.is_empty())
        .any(|entry| {
            let entry = entry.to_lowercase();
            if entry.len() > host.len() || !host.ends_with(&entry) {
                return false;
            }
            let k = host.len() - entry.len();
            k == 0 || entry.starts_with('.') || host.as_bytes()[k - 1] == b'.'
        })
}

/// The patterns OpenJDK always appends to `http.nonProxyHosts`.
pub const JAVA_DEFAULT_NON_PROXY_HOSTS: &str = "localhost|127.*|[::1]|0.0.0.0|[::0]";

/// OpenJDK DefaultProxySelector: `|`-separated patterns, each an exact,
/// case-insensitive match of the URI host (IPv6 in brackets), with `*` allowed at
/// the start and/or end; the JDK defaults are appended to a non-empty value (an
/// empty value disables them too).
fn java(list: &str, d: &Destination) -> bool {
    if list.is_empty() {
        return false;
    }
    let host = d.url_host().to_lowercase();
    let all = format!("{list}|{JAVA_DEFAULT_NON_PROXY_HOSTS}");
    all.split('|').filter(|p| !p.is_empty()).any(|pattern| {
        let pattern = pattern.to_lowercase();
        let (lead, rest) = match pattern.strip_prefix('*') {
            Some(rest) => (true, rest),
            None => (false, pattern.as_str()),
        };
        let (trail, core) = match rest.strip_suffix('*') {
            Some(core) => (true, core),
            None => (false, rest),
        };
        match (lead, trail) {
            (true, true) => host.contains(core),
            (true, false) => host.ends_with(core),
            (false, true) => host.starts_with(core),
            (false, false) => host == core,
        }
    })
}

/// Node proxy-from-env: `*` as the whole value bypasses all; entries split at
/// commas and blanks; `host:port` restricts the port; entries starting with `.`
/// or `*` match as raw suffixes (a leading `*` removed), others match the host
/// exactly (IPv6 hosts keep their brackets).
fn node(list: &str, d: &Destination) -> bool {
    let list = list.to_lowercase();
    if list.is_empty() {
        return false;
    }
    if list == "*" {
        return true;
    }
    let host = d.url_host();
    let port = u32::from(d.port());
    !list
        .split(|c: char| c == ',' || c.is_whitespace())
        .all(|entry| {
            if entry.is_empty() {
                return true;
            }
            let (entry_host, entry_port) = match entry.rsplit_once(':') {
                Some((h, p))
                    if !h.is_empty() && !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    (h, p.parse::<u32>().unwrap_or(u32::MAX))
                }
                _ => (entry, 0),
            };
            if entry_port != 0 && entry_port != port {
                return true;
            }
            if !entry_host.starts_with(['.', '*']) {
                return host != entry_host;
            }
            let suffix = entry_host.strip_prefix('*').unwrap_or(entry_host);
            !host.ends_with(suffix)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(dialect: Dialect, list: &str, url: &str) -> bool {
        dialect.bypasses(list, &Destination::parse(url).unwrap())
    }

    #[test]
    fn names_round_trip() {
        for d in Dialect::ALL {
            assert_eq!(Dialect::from_name(d.name()), Some(d));
        }
        assert_eq!(Dialect::from_name("perl"), None);
    }

    #[test]
    fn documented_differences_hold() {
        use Dialect::*;
        let cases: &[(Dialect, &str, &str, bool)] = &[
            (Go, ".example.com", "http://a.example.com/", true),
            (Go, ".example.com", "http://example.com/", false),
            (Go, "example.com", "http://a.example.com/", true),
            (Go, "*.example.com", "http://a.example.com/", true),
            (Go, "10.0.0.0/8", "http://10.1.2.3/", true),
            (Go, "10.0.0.0/8", "http://ten.example/", false),
            (Go, "example.com:8080", "http://example.com:8080/", true),
            (Go, "example.com:8080", "http://example.com/", false),
            (Go, "a,*", "http://x.example/", true),
            (Curl, ".example.com", "http://example.com/", true),
            (Curl, "10.0.0.0/8", "http://10.1.2.3/", true),
            (Curl, "a.example,*", "http://x.example/", false),
            (Curl, "*", "http://x.example/", true),
            (Curl, "example.com:8080", "http://example.com:8080/", false),
            (Python, "10.0.0.0/8", "http://10.1.2.3/", false),
            (Python, ".example.com", "http://example.com/", true),
            (Python, "example.com:8080", "http://example.com:8080/", true),
            (Requests, "10.0.0.0/8", "http://10.1.2.3/", true),
            (Requests, "example.com", "http://badexample.com/", false),
            (Ruby, "10.0.0.0/8", "http://10.1.2.3/", true),
            (Ruby, ".example.com", "http://example.com/", false),
            (Wget, "*.example.com", "http://a.example.com/", false),
            (Wget, ".example.com", "http://a.example.com/", true),
            (Wget, "example.com", "http://a.example.com/", true),
            (Java, "*.example.com", "http://a.example.com/", true),
            (Java, "example.com", "http://a.example.com/", false),
            (Java, "x.example", "http://127.0.0.5/", true),
            (Java, "", "http://127.0.0.5/", false),
            (Node, "example.com", "http://a.example.com/", false),
            (Node, ".example.com", "http://a.example.com/", true),
            (Node, "[fd00::1]", "http://[fd00::1]/", true),
            (Node, "fd00::1", "http://[fd00::1]/", false),
        ];
        for (dialect, list, url, want) in cases {
            assert_eq!(
                check(*dialect, list, url),
                *want,
                "{dialect} {list:?} {url}"
            );
        }
    }
}
