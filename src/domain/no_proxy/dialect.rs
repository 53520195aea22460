//! How each client decides, from its NO_PROXY setting, whether a destination
//! bypasses the proxy. Each model follows the client's own source and is
//! checked against the real client by the differential tests
//! (tests/no_proxy_oracles.rs). Versions modelled: Go net/http (x/net
//! httpproxy), curl >= 7.86, CPython urllib, requests, Ruby URI, GNU wget >= 1.20,
//! OpenJDK DefaultProxySelector (http.nonProxyHosts), Node proxy-from-env,
//! Node fetch through undici's EnvHttpProxyAgent, Rust reqwest 0.12 (system
//! proxy, through hyper-util's matcher), Python httpx 0.28.1.
//!
//! Each model starts from the destination's host as written and normalises it
//! only as its client does (case, trailing dot, IDNA, IPv4-mapped IPv6).

use std::borrow::Cow;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr};

use ipnet::IpNet;

use super::destination::{Destination, DestinationHost};
use super::render::java_expresses;
use super::{write_ipv4, write_port};
use crate::domain::cancel;

mod httpx;

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
    /// Node's fetch through undici's `EnvHttpProxyAgent` (undici >= 6.14).
    Undici,
    /// Rust reqwest 0.12's system proxy (hyper-util's `client::proxy::matcher`).
    Reqwest,
    /// Python httpx 0.28 (`httpx.Client()` reading the environment).
    Httpx,
}

/// What a client does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Connects directly.
    Direct,
    /// Sends it through the proxy.
    Proxy,
    /// Refuses the URL (Ruby's URI rejects non-ASCII hosts).
    Refused,
}

impl Dialect {
    /// Every dialect, in documentation order.
    pub const ALL: [Dialect; 11] = [
        Dialect::Go,
        Dialect::Curl,
        Dialect::Python,
        Dialect::Requests,
        Dialect::Ruby,
        Dialect::Wget,
        Dialect::Java,
        Dialect::Node,
        Dialect::Undici,
        Dialect::Reqwest,
        Dialect::Httpx,
    ];

    /// Every dialect name, in the order of [`Dialect::ALL`].
    pub const NAMES: [&'static str; 11] = [
        "go", "curl", "python", "requests", "ruby", "wget", "java", "node", "undici", "reqwest",
        "httpx",
    ];

    /// The clients targeted when none are named: the eight of the first
    /// release (the start of [`Dialect::ALL`]), so that adding a client never
    /// changes an existing merged list.
    pub const DEFAULT: [Dialect; 8] = {
        let mut out = [Dialect::Go; 8];
        let mut i = 0;
        while i < out.len() {
            out[i] = Self::ALL[i];
            i += 1;
        }
        out
    };

    /// The names of [`Dialect::DEFAULT`].
    pub const DEFAULT_NAMES: [&'static str; 8] = {
        let mut out = [""; 8];
        let mut i = 0;
        while i < out.len() {
            out[i] = Self::NAMES[i];
            i += 1;
        }
        out
    };

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

    /// True when `*` (at least as the whole value) bypasses every destination
    /// (reqwest's `*` bypasses names only, never an IP literal).
    pub fn understands_any(self) -> bool {
        !matches!(self, Dialect::Wget | Dialect::Ruby | Dialect::Reqwest)
    }

    /// True when the client matches IPv6 literals only in brackets
    /// (`[fd00::1]`), so the shared list needs that form too.
    pub fn needs_bracketed_ipv6(self) -> bool {
        matches!(self, Dialect::Python | Dialect::Node | Dialect::Undici)
    }

    /// True when `name` matches only the name itself, so the shared list needs
    /// `.name` too for its subdomains.
    pub fn needs_dot_form(self) -> bool {
        self == Dialect::Node
    }

    /// True when the client honours `host:port` entries.
    pub fn supports_ports(self) -> bool {
        matches!(
            self,
            Dialect::Go
                | Dialect::Python
                | Dialect::Ruby
                | Dialect::Node
                | Dialect::Undici
                | Dialect::Httpx
        )
    }

    /// True when a CIDR entry of the family (`ipv6`) covers IP-literal
    /// destinations in this client (Ruby cannot write IPv6 entries at all;
    /// curl 7.88 never matches IPv6 CIDR entries).
    pub fn matches_cidr(self, ipv6: bool) -> bool {
        match self {
            Dialect::Go | Dialect::Reqwest => true,
            Dialect::Curl | Dialect::Requests | Dialect::Ruby => !ipv6,
            Dialect::Python
            | Dialect::Wget
            | Dialect::Java
            | Dialect::Node
            | Dialect::Undici
            | Dialect::Httpx => false,
        }
    }

    /// True when the block `cover` may replace the narrower block `net` in the
    /// merged list for this client: it expresses `cover` whenever it expresses
    /// `net` (Java writes only octet-aligned IPv4 blocks, as `a.b.*`).
    pub fn keeps_cover(self, cover: &IpNet, net: &IpNet) -> bool {
        match (self, cover, net) {
            (Dialect::Java, IpNet::V4(cover), IpNet::V4(net)) => {
                java_expresses(cover) || !java_expresses(net)
            }
            _ => true,
        }
    }

    /// The separator between entries of the client's setting (`|` in Java's
    /// `http.nonProxyHosts`, `,` in NO_PROXY).
    pub fn separator(self) -> &'static str {
        if self == Dialect::Java {
            "|"
        } else {
            ","
        }
    }

    /// True when `entry` in the client's NO_PROXY value makes it reject the
    /// whole value, so that every request fails (httpx: bracketed IPv6
    /// addresses, IPv6 CIDRs, Unicode names, tabs inside an entry).
    pub fn rejects_whole_setting(self, entry: &str) -> bool {
        self == Dialect::Httpx && httpx::breaks_client(entry)
    }

    /// Whether this client sends a request for `destination` directly (true)
    /// or through the proxy (false), when its setting is `list` (the NO_PROXY
    /// value; for Java the `http.nonProxyHosts` value).
    pub fn bypasses(self, list: &str, destination: &Destination) -> bool {
        self.decide(list, destination) == Decision::Direct
    }

    /// What this client does with a request for `destination` when its
    /// setting is `list`: [`Dialect::decide_all`] for one destination.
    pub fn decide(self, list: &str, destination: &Destination) -> Decision {
        self.decide_all(list, std::slice::from_ref(destination))[0]
    }

    /// What this client does with a request for each of `destinations` (in
    /// their order) when its setting is `list`: the setting is read once, each
    /// entry parsed once and tried on every destination it has not yet sent
    /// direct. A cancelled computation ([`cancel::requested`]) stops reading
    /// the setting, so its result is incomplete.
    pub fn decide_all(self, list: &str, destinations: &[Destination]) -> Vec<Decision> {
        let mut open: Vec<&Destination> = Vec::with_capacity(destinations.len());
        open.extend(destinations.iter().filter(|d| !self.refuses(d)));
        let direct = match self {
            Dialect::Go => go(list, &open),
            Dialect::Curl => curl(list, &open),
            Dialect::Python => {
                let hosts: Vec<Cow<str>> = open.iter().map(|d| python_request_host(d)).collect();
                python_urllib(list, &hosts)
            }
            Dialect::Requests => requests(list, &open),
            Dialect::Ruby => ruby(list, &open),
            Dialect::Wget => wget(list, &open),
            Dialect::Java => java(list, &open),
            Dialect::Node => node(list, &open),
            Dialect::Undici => undici(list, &open),
            Dialect::Reqwest => reqwest(list, &open),
            // httpx can also refuse every URL (a setting it cannot read).
            Dialect::Httpx => return httpx::decide_all(list, destinations),
        };
        let mut direct = direct.into_iter();
        destinations
            .iter()
            .map(|d| {
                if self.refuses(d) {
                    Decision::Refused
                } else if direct.next() == Some(true) {
                    Decision::Direct
                } else {
                    Decision::Proxy
                }
            })
            .collect()
    }

    /// True when the client rejects the URL of `destination` whatever its setting.
    fn refuses(self, destination: &Destination) -> bool {
        match self {
            // URI rejects non-ASCII hosts and zone IDs.
            Dialect::Ruby => !destination.written.is_ascii() || destination.zone().is_some(),
            // wget's and the WHATWG URL parsers (reqwest's `url` crate too) reject zone IDs.
            Dialect::Wget | Dialect::Undici | Dialect::Reqwest => destination.zone().is_some(),
            _ => false,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How many entries a model reads between two looks at [`cancel::requested`].
const CANCEL_EVERY: usize = 4096;

/// The destinations of a batch while a model reads the entries of a setting:
/// which are direct so far (an entry matched, or a rule before the entries).
struct Pending {
    direct: Vec<bool>,
    /// How many are not direct yet.
    left: usize,
    /// Entries read so far.
    read: usize,
}

impl Pending {
    /// `direct`: what is decided before the first entry.
    fn new(direct: Vec<bool>) -> Self {
        let left = direct.iter().filter(|d| !**d).count();
        Self {
            direct,
            left,
            read: 0,
        }
    }

    /// Called before each entry: true when no entry can change the result any
    /// more (every destination direct) or the computation is cancelled.
    fn done(&mut self) -> bool {
        self.read += 1;
        self.left == 0 || (self.read.is_multiple_of(CANCEL_EVERY) && cancel::requested())
    }

    /// Makes direct every destination not yet direct for which `matches`
    /// (given its index) is true.
    fn mark(&mut self, mut matches: impl FnMut(usize) -> bool) {
        for (i, direct) in self.direct.iter_mut().enumerate() {
            if !*direct && matches(i) {
                *direct = true;
                self.left -= 1;
            }
        }
    }

    /// The decision per destination: true for direct.
    fn finish(self) -> Vec<bool> {
        self.direct
    }
}

/// How the entries of one setting are lowercased (as `str::to_lowercase`
/// does): not at all when the whole setting is lowercase ASCII, as merged
/// lists are, so that no entry needs a look of its own.
#[derive(Clone, Copy)]
struct Case {
    lower: bool,
}

impl Case {
    /// The case of `list`, read once.
    fn of(list: &str) -> Self {
        Self {
            // A count, not `any`: it reads the whole text without a branch per byte.
            lower: list.is_ascii() && list.bytes().filter(u8::is_ascii_uppercase).count() == 0,
        }
    }

    /// `text` (a part of the setting) lowercased, borrowed when it already is.
    fn lower(self, text: &str) -> Cow<'_, str> {
        if self.lower {
            Cow::Borrowed(text)
        } else {
            lowercase(text)
        }
    }
}

/// `text.to_lowercase()`, borrowed when `text` already is lowercase ASCII.
fn lowercase(text: &str) -> Cow<'_, str> {
    if !text.is_ascii() {
        Cow::Owned(text.to_lowercase())
    } else if text.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(text.to_ascii_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// `list.split(separator)` for an ASCII separator, scanning bytes (cheaper
/// per element than the `char` pattern's search).
fn split_at(list: &str, separator: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(list);
    std::iter::from_fn(move || {
        let text = rest?;
        match text.bytes().position(|b| b == separator) {
            Some(i) => {
                rest = Some(&text[i + 1..]);
                Some(&text[..i])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
}

/// True when `host` ends with `.` then `name` (`host.ends_with(&format!(".{name}"))`
/// without building the suffix).
fn ends_with_dotted(host: &str, name: &str) -> bool {
    host.len() > name.len()
        && host.ends_with(name)
        && host.as_bytes()[host.len() - name.len() - 1] == b'.'
}

/// Go (x/net/http/httpproxy): `*` anywhere bypasses all; CIDRs and IPs match
/// IP-literal hosts only, IPv4-mapped IPv6 addresses counting as IPv4; `x`
/// matches x and its subdomains, `.x` and `*.x` subdomains only, Unicode
/// entries and hosts converted to punycode; optional `:port`; the host as
/// written (case-sensitive) `localhost` and loopback addresses are always
/// direct; a trailing dot is part of the name on both sides.
fn go(list: &str, ds: &[&Destination]) -> Vec<bool> {
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

/// curl (lib/noproxy.c): `*` only as the whole value; tokens are separated by
/// blanks and commas (7.88 warns about blanks but keeps reading); the host is
/// the punycode name curl connects to; host tokens lose
/// one leading and one trailing dot and match the name or a dot-bounded tail;
/// IPv4 tokens (with optional `/bits`) and exact IPv6 tokens match IP-literal
/// hosts (IPv6 CIDR tokens never match in curl 7.88); no ports.
fn curl(list: &str, ds: &[&Destination]) -> Vec<bool> {
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

/// The first longest run of two or more zero groups: (start, length), length 0 if none.
fn longest_zero_run(groups: &[u16; 8]) -> (usize, usize) {
    let (mut best, mut best_len) = (0, 0);
    let mut i = 0;
    while i < 8 {
        let run = groups[i..].iter().take_while(|g| **g == 0).count();
        if run >= 2 && run > best_len {
            (best, best_len) = (i, run);
        }
        i += run.max(1);
    }
    (best, best_len)
}

/// C `atoi` for the digits curl reads after `/`.
fn c_atoi(text: &str) -> u32 {
    text.bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0u32, |n, b| {
            n.saturating_mul(10).saturating_add(u32::from(b - b'0'))
        })
}

/// The `host[:port]` urllib passes to its bypass check: the URL's netloc as
/// written and percent-decoded (IPv6 in brackets, a zone's `%25` as `%`,
/// Unicode as written, port only when written).
fn python_request_host(d: &Destination) -> Cow<'_, str> {
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

/// `host:port`.
fn host_port(host: &str, port: u16) -> String {
    let mut text = String::with_capacity(host.len() + 6);
    text.push_str(host);
    // Writing into a String cannot fail.
    let _ = write_port(&mut text, Some(port));
    text
}

/// CPython urllib `proxy_bypass_environment`: `*` only as the whole value;
/// non-blank entries lose leading dots and match the host (with or without
/// port) exactly or as a dot-bounded suffix, compared as written (no IDNA, a
/// trailing dot kept), ignoring case. No CIDRs.
fn python_urllib(list: &str, hosts: &[Cow<'_, str>]) -> Vec<bool> {
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

/// requests `should_bypass_proxies` (2.34): IPv4 hosts (as `socket.inet_aton`
/// reads them) match valid IPv4 CIDRs (prefix 1-32) or equal entries; other
/// hosts match entries (leading dots removed) exactly or as a dot-bounded
/// suffix of the host or host:port; then urllib's check on the bare host.
fn requests(list: &str, ds: &[&Destination]) -> Vec<bool> {
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
    let mut pending = Pending::new(python_urllib(list, &hosts));
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

/// Ruby `URI::Generic.use_proxy?`: entries are runs of characters other than
/// `:`, `,` and blanks, with an optional `:port`; `.x` matches names ending in
/// `.x`; `x` matches x and its subdomains; an IP or CIDR entry matches the
/// destination's address. Ruby resolves host names to find that address; this
/// model only knows the addresses of IP literals (and that localhost, in any
/// case, is loopback). Non-ASCII hosts are refused by URI itself.
fn ruby(list: &str, ds: &[&Destination]) -> Vec<bool> {
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

/// GNU wget `sepstring` and `sufmatch`: the value splits at commas, blanks after
/// a comma skipped (the first entry keeps its leading blanks, every entry its
/// trailing ones, empty entries stay); each entry matches the host (lowercase
/// punycode, a trailing dot kept) exactly, as a dot-bounded suffix, or (with a
/// leading dot) as a plain suffix; so an empty entry matches every host written
/// with a trailing dot.
fn wget(list: &str, ds: &[&Destination]) -> Vec<bool> {
    if list.is_empty() {
        return vec![false; ds.len()];
    }
    let hosts: Vec<Cow<str>> = ds.iter().map(|d| ascii_lowercase_host(d)).collect();
    let c_isspace = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r');
    let case = Case::of(list);
    let mut pending = Pending::new(vec![false; ds.len()]);
    for (n, entry) in split_at(list, b',').enumerate() {
        if pending.done() {
            break;
        }
        let entry = if n == 0 {
            entry
        } else {
            entry.trim_start_matches(c_isspace)
        };
        let entry = case.lower(entry);
        pending.mark(|i| {
            let host = &hosts[i];
            if entry.len() > host.len() || !host.ends_with(&*entry) {
                return false;
            }
            let k = host.len() - entry.len();
            k == 0 || entry.starts_with('.') || host.as_bytes()[k - 1] == b'.'
        });
    }
    pending.finish()
}

/// The host as wget sees it: lowercase, Unicode names in punycode, a trailing
/// dot kept, IPv6 as written (no brackets).
fn ascii_lowercase_host(d: &Destination) -> Cow<'_, str> {
    if d.written.is_ascii() {
        return lowercase(&d.written);
    }
    Cow::Owned(idna::domain_to_ascii(&d.written).unwrap_or_else(|_| d.written.to_lowercase()))
}

/// The patterns OpenJDK always appends to `http.nonProxyHosts`.
pub const JAVA_DEFAULT_NON_PROXY_HOSTS: &str = "localhost|127.*|[::1]|0.0.0.0|[::0]";

/// OpenJDK DefaultProxySelector: `|`-separated patterns, each an exact,
/// case-insensitive match of the URI host as written (IPv6 in brackets), with `*` allowed at
/// the start and/or end; the JDK defaults are appended to a non-empty value (an
/// empty value disables them too).
fn java(list: &str, ds: &[&Destination]) -> Vec<bool> {
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

/// Node proxy-from-env: `*` as the whole value bypasses all; entries split at
/// commas and blanks; `host:port` restricts the port; entries starting with `.`
/// or `*` match as raw suffixes (a leading `*` removed), others match the host
/// exactly. The host is the WHATWG URL's (proxy-from-env 2 parses with `new URL`).
fn node(list: &str, ds: &[&Destination]) -> Vec<bool> {
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

/// An entry split as `/^(.+):(\d+)$/` (proxy-from-env and undici): the host
/// and the port, 0 (any port) when there is none.
fn js_host_port(entry: &str) -> (&str, u32) {
    match entry.rsplit_once(':') {
        Some((h, p)) if !h.is_empty() && !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
            (h, p.parse::<u32>().unwrap_or(u32::MAX))
        }
        _ => (entry, 0),
    }
}

/// undici `EnvHttpProxyAgent`: the whole value `*` bypasses all; entries split
/// at commas and white space, `host:port` (the port being the digits after the
/// last `:`) restricts the port, a leading `.` or `*.` is removed; an entry
/// matches the host or a dot-bounded tail of it. The host is the WHATWG URL's
/// (lowercase punycode, a trailing dot kept, IPv6 compressed in brackets).
fn undici(list: &str, ds: &[&Destination]) -> Vec<bool> {
    let hosts: Vec<Option<Cow<str>>> = ds.iter().map(|d| whatwg_host(d)).collect();
    let mut entries = list
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|e| !e.is_empty())
        .peekable();
    if entries.peek().is_none() {
        return vec![false; ds.len()];
    }
    if list == "*" {
        return hosts.iter().map(Option::is_some).collect();
    }
    let case = Case::of(list);
    let mut pending = Pending::new(vec![false; ds.len()]);
    for entry in entries {
        if pending.done() {
            break;
        }
        let (name, entry_port) = js_host_port(entry);
        let name = name
            .strip_prefix("*.")
            .or_else(|| name.strip_prefix('.'))
            .unwrap_or(name);
        let name = case.lower(name);
        pending.mark(|i| {
            let Some(host) = &hosts[i] else {
                return false;
            };
            (entry_port == 0 || entry_port == u32::from(ds[i].port()))
                && (*host == name || ends_with_dotted(host, &name))
        });
    }
    pending.finish()
}

/// reqwest 0.12 (>= 0.12.15) reads NO_PROXY through hyper-util's
/// `client/proxy/matcher.rs` (hyper-util 0.1.21): `NO_PROXY`, else `no_proxy`;
/// the value splits at commas only, each element trimmed (`str::trim`), empty
/// ones skipped; an element that parses as an `IpNet` or `IpAddr` matches IP
/// hosts only (no IPv4-mapped equivalence), any other is a name. The host is
/// the `url` crate's (WHATWG: lowercase punycode, a trailing dot kept, IPv6 in
/// brackets, which `NoProxy::contains` strips). Names (`DomainMatcher::contains`)
/// match ignoring ASCII case: equal, equal after one leading `.`, or as a
/// tail that starts at a dot (the entry's own leading `.` counts, so `.`
/// matches every name with a trailing dot); `*` anywhere matches every name but
/// no IP. No ports: `host:port` never matches.
fn reqwest(list: &str, ds: &[&Destination]) -> Vec<bool> {
    /// A host as the matcher sees it.
    enum Host {
        /// No URL: never direct.
        Unparsed,
        Ip(IpAddr),
        Name(String),
    }
    let hosts: Vec<Host> = ds
        .iter()
        .map(|d| {
            let Some(host) = whatwg_host(d) else {
                return Host::Unparsed;
            };
            let bare = host
                .strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .unwrap_or(&host);
            match bare.parse::<IpAddr>() {
                Ok(ip) => Host::Ip(ip),
                Err(_) => Host::Name(bare.to_owned()),
            }
        })
        .collect();
    let mut pending = Pending::new(vec![false; ds.len()]);
    for entry in split_at(list, b',').map(str::trim) {
        if pending.done() {
            break;
        }
        let net = entry.parse::<IpNet>().ok();
        let ip = entry.parse::<IpAddr>().ok();
        pending.mark(|i| match &hosts[i] {
            Host::Unparsed => false,
            Host::Ip(host) => match net {
                Some(net) => net.contains(host),
                None => ip == Some(*host),
            },
            Host::Name(host) => {
                !entry.is_empty() && net.is_none() && ip.is_none() && reqwest_name(entry, host)
            }
        });
    }
    pending.finish()
}

/// `DomainMatcher::contains` for one name entry.
fn reqwest_name(entry: &str, host: &str) -> bool {
    if entry.eq_ignore_ascii_case(host)
        || entry
            .strip_prefix('.')
            .is_some_and(|e| e.eq_ignore_ascii_case(host))
    {
        return true;
    }
    let tail = host.get(host.len().saturating_sub(entry.len())..);
    if tail.is_some_and(|t| t.eq_ignore_ascii_case(entry)) {
        return entry.starts_with('.')
            || host.as_bytes().get(host.len() - entry.len() - 1) == Some(&b'.');
    }
    entry == "*"
}

/// The host of the WHATWG URL (Node's `new URL`): lowercase punycode with a
/// trailing dot kept, IPv4 dotted, IPv6 compressed in brackets; `None` when
/// the URL does not parse.
fn whatwg_host(d: &Destination) -> Option<Cow<'_, str>> {
    if d.zone().is_some() {
        return None;
    }
    Some(match d.ip() {
        Some(IpAddr::V6(ip)) => Cow::Owned(format!("[{}]", whatwg_ipv6(ip))),
        Some(IpAddr::V4(ip)) => {
            let mut text = String::with_capacity(15);
            // Writing into a String cannot fail.
            let _ = write_ipv4(&mut text, ip);
            Cow::Owned(text)
        }
        None => idna::domain_to_ascii_cow(d.written.as_bytes(), idna::AsciiDenyList::EMPTY).ok()?,
    })
}

/// The WHATWG URL serialisation of an IPv6 address: lowercase hex groups, the
/// first longest run of two or more zero groups compressed, no dotted quad.
fn whatwg_ipv6(ip: std::net::Ipv6Addr) -> String {
    let groups = ip.segments();
    let hex = |gs: &[u16]| {
        gs.iter()
            .map(|g| format!("{g:x}"))
            .collect::<Vec<_>>()
            .join(":")
    };
    match longest_zero_run(&groups) {
        (_, 0) => hex(&groups),
        (start, len) => format!("{}::{}", hex(&groups[..start]), hex(&groups[start + len..])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(dialect: Dialect, list: &str, url: &str) -> bool {
        dialect.bypasses(list, &Destination::parse(url).unwrap())
    }

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
        assert!(check(Dialect::Requests, list, "https://10.1.2.3:8080/"));
        assert!(!check(Dialect::Requests, list, "https://11.1.2.3:8080/"));
    }

    #[test]
    fn names_round_trip() {
        for d in Dialect::ALL {
            assert_eq!(Dialect::from_name(d.name()), Some(d));
        }
        assert_eq!(Dialect::from_name("perl"), None);
    }

    /// One case per class of issue 14, per client it applies to; each was a
    /// disagreement with the real client before the models read hosts as written.
    #[test]
    fn issue_14_classes_hold() {
        use Decision::{Direct, Proxy, Refused};
        use Dialect::*;
        let cases: &[(Dialect, &str, &str, Decision)] = &[
            (Go, "", "http://LOCALHOST/", Proxy),
            (Go, "", "http://localhost/", Direct),
            (
                Go,
                "bücher.example",
                "http://xn--bcher-kva.example/",
                Direct,
            ),
            (Go, "10.0.0.0/8", "http://[::ffff:10.0.0.1]/", Direct),
            (Go, "::ffff:10.0.0.0/104", "http://10.1.2.3/", Direct),
            (Go, "10.0.0.0/8", "http://[::10.0.0.1]/", Proxy),
            (
                Go,
                ".cluster.local",
                "https://kubernetes.default.svc.cluster.local./",
                Proxy,
            ),
            (Go, "example.com.", "http://example.com./", Direct),
            (Python, "example.com", "http://example.com./", Proxy),
            (Python, ".", "http://example.com./", Direct),
            (
                Python,
                "xn--bcher-kva.example",
                "http://bücher.example/",
                Proxy,
            ),
            (Python, "bücher.example", "http://BÜCHER.example/", Direct),
            (
                Requests,
                "xn--bcher-kva.example",
                "http://bücher.example/",
                Proxy,
            ),
            (Curl, "a.example b.example", "http://b.example/", Direct),
            (Curl, "a.example;b.example", "http://b.example/", Proxy),
            (Curl, "::ffff:10.1.2.3", "http://[::ffff:a01:203]/", Proxy),
            (Curl, "fd00::1", "http://[fd00:0::1]/", Direct),
            (Wget, "a,,b", "http://example.com./", Direct),
            (Wget, " example.com", "http://example.com/", Proxy),
            (Ruby, "", "http://bücher.example/", Refused),
            (Ruby, "", "http://LOCALHOST/", Direct),
            (Node, "[::10.1.2.3]", "http://[::10.1.2.3]/", Proxy),
            (Node, "[::a01:203]", "http://[::10.1.2.3]/", Direct),
            (Node, "", "http://[fe80::1%25eth0]/", Direct),
            (Python, "[fe80::1%eth0]", "http://[fe80::1%25eth0]/", Direct),
            (Go, "fe80::1%eth0", "http://[fe80::1%25eth0]/", Direct),
            (Go, "fe80::1", "http://[fe80::1%25eth0]/", Proxy),
            (Curl, "fe80::1", "http://[fe80::1%25eth0]/", Direct),
            (Undici, "*", "http://[fe80::1%25eth0]/", Refused),
            (Undici, "example.com", "http://a.example.com/", Direct),
            (Undici, ".example.com", "http://example.com/", Direct),
            (Undici, "a,*", "http://example.com/", Proxy),
            (Undici, "fd00::1", "http://[fd00::1]/", Proxy),
            (Undici, "[fd00::1]:80", "http://[fd00:0::1]/", Direct),
            (Reqwest, "", "http://LOCALHOST/", Proxy),
            (Reqwest, "*", "http://10.1.2.3/", Proxy),
            (Reqwest, "a.example, *", "http://example.com/", Direct),
            (Reqwest, "10.0.0.0/8", "http://[::ffff:10.0.0.1]/", Proxy),
            (Reqwest, "::ffff:10.0.0.1", "http://[::ffff:a00:1]/", Direct),
            (Reqwest, "example.com", "http://example.com./", Proxy),
            (Reqwest, ".", "http://example.com./", Direct),
            (Reqwest, "bücher.example", "http://bücher.example/", Proxy),
            (
                Reqwest,
                "xn--bcher-kva.example",
                "http://BÜCHER.example/",
                Direct,
            ),
            (
                Reqwest,
                "a.example example.com",
                "http://example.com/",
                Proxy,
            ),
            (Reqwest, "\texample.com ", "http://example.com/", Direct),
            (Reqwest, "example.com:80", "http://example.com/", Proxy),
            (Reqwest, "[fd00::1]", "http://[fd00::1]/", Proxy),
            (Reqwest, "fd00::/8", "http://[fd00:0::1]/", Direct),
            (Reqwest, "*.example.com", "http://a.example.com/", Proxy),
            (Reqwest, ".example.com", "http://example.com/", Direct),
            (Reqwest, "*", "http://[fe80::1%25eth0]/", Refused),
        ];
        for (dialect, list, url, want) in cases {
            let d = Destination::parse(url).unwrap();
            assert_eq!(dialect.decide(list, &d), *want, "{dialect} {list:?} {url}");
        }
    }

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
            assert_eq!(Dialect::Httpx.decide(list, &d), *want, "{list:?} {url}");
        }
        assert!(Dialect::Httpx.rejects_whole_setting("[fd00::1]"));
        assert!(Dialect::Httpx.rejects_whole_setting("fd00::/64"));
        assert!(!Dialect::Httpx.rejects_whole_setting("fd00::1"));
        assert!(!Dialect::Go.rejects_whole_setting("[fd00::1]"));
    }

    #[test]
    fn ipv6_serialisations() {
        let ip = |s: &str| s.parse::<std::net::Ipv6Addr>().unwrap();
        assert_eq!(inet_ntop6(ip("::ffff:a01:203")), "::ffff:10.1.2.3");
        assert_eq!(inet_ntop6(ip("::a01:203")), "::10.1.2.3");
        assert_eq!(inet_ntop6(ip("::1")), "::1");
        assert_eq!(inet_ntop6(ip("fd00:0:0:1::")), "fd00:0:0:1::");
        assert_eq!(inet_ntop6(ip("1:0:0:2:0:0:0:3")), "1:0:0:2::3");
        assert_eq!(whatwg_ipv6(ip("::ffff:10.1.2.3")), "::ffff:a01:203");
        assert_eq!(whatwg_ipv6(ip("fd00:0::1")), "fd00::1");
        assert_eq!(whatwg_ipv6(ip("1:2:3:4:5:6:7:8")), "1:2:3:4:5:6:7:8");
    }

    #[test]
    fn default_is_the_original_eight() {
        assert_eq!(Dialect::DEFAULT.map(Dialect::name), Dialect::DEFAULT_NAMES);
        assert_eq!(
            Dialect::DEFAULT_NAMES,
            ["go", "curl", "python", "requests", "ruby", "wget", "java", "node"]
        );
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
