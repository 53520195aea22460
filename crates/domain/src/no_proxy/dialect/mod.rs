//! How each client decides, from its NO_PROXY setting, whether a destination
//! bypasses the proxy. Each model follows the client's own source and is
//! checked against the real client by the differential tests
//! (tests/oracles/no_proxy_oracles.rs). Versions modelled: Go net/http (x/net
//! httpproxy), curl >= 7.86, CPython urllib, requests, Ruby URI, GNU wget >= 1.20,
//! OpenJDK DefaultProxySelector (http.nonProxyHosts), Node proxy-from-env,
//! Node fetch through undici's EnvHttpProxyAgent, Rust reqwest 0.12 (system
//! proxy, through hyper-util's matcher), Python httpx 0.28.1.
//!
//! Each model starts from the destination's host as written and normalises it
//! only as its client does (case, trailing dot, IDNA, IPv4-mapped IPv6).
//!
//! Each client's model lives in its own file, as `direct(list, destinations)`
//! (which destinations go direct); this module holds the capabilities, the
//! dispatch ([`Dialect::decide_all`]) and what several models share: the
//! batch (`Pending`), the setting's case (`Case`), splitting and the
//! WHATWG host (Node, undici, reqwest).
//!
//! # Adding a client
//! The compiler finds every `match` on [`Dialect`] that needs an arm; the
//! test `the_client_guide_holds` (in `tests.rs`) checks the other places
//! for every client, and that each path named here exists (`<client>` is
//! the name in [`Dialect::NAMES`], `<Client>` the variant).
//! 1. `crates/domain/src/no_proxy/dialect/<client>.rs`: `direct(list, open)`,
//!    which of the destinations `open` the client sends direct when its
//!    setting is `list` (`decide_all` instead when a setting can make the
//!    client refuse every URL, as httpx's does), following the client's own
//!    source (cite the file and the version) and reading the destination's
//!    host as written; declare it with `mod <client>;` below.
//! 2. This file: the variant; its name appended to [`Dialect::ALL`] and
//!    [`Dialect::NAMES`], after the first eight, so that
//!    [`Dialect::DEFAULT`] and every existing merged list stay the same; the
//!    arm `Dialect::<Client> => <client>::direct(list, &open)` in
//!    [`Dialect::decide_all`]; the URLs the client refuses whatever its
//!    setting in `refuses`; its answers to the questions the merge asks
//!    ([`Dialect::understands_any`], [`Dialect::needs_bracketed_ipv6`],
//!    [`Dialect::needs_dot_form`], [`Dialect::supports_ports`],
//!    [`Dialect::matches_cidr`], [`Dialect::keeps_cover`],
//!    [`Dialect::rejects_whole_setting`]).
//! 3. `crates/domain/src/no_proxy/render.rs`: the forms the client reads
//!    best (its arm in `forms` when the shared rules of `env_forms` do not
//!    fit) and a [`super::Remark`] for each entry it cannot express.
//! 4. The oracle, the real client: a driver in `tests/oracle/` that decides a
//!    batch of cases in one process (most read the JSON lines of
//!    `json_lines`) and answers `direct`, `proxy` or `refused` per line,
//!    without leaving loopback; the client installed into `.tools` by
//!    `scripts/install-test-tools`; the arm `Dialect::<Client> =>` in
//!    `decide` of `tests/oracle/mod.rs`.
//! 5. `tests/oracles/no_proxy_oracles.rs`: a test calling
//!    `assert_model_matches(Dialect::<Client>)`, facts of its own in `facts`
//!    where it reads entries unlike the others, and its name and version in
//!    the `Clients:` text of `client_table`; then
//!    `UPDATE_DOCS=1 cargo test --test oracles client_table`
//!    rewrites `docs/guides/no_proxy_clients.md` (a column per client).
//! 6. The client lists of the attribute descriptions: `clients` in
//!    `src/provider/inputs.rs`, `clients` in
//!    `src/provider/functions/merge_no_proxy.rs` and `client` in
//!    `src/provider/functions/no_proxy_bypasses.rs`; then
//!    `UPDATE_DOCS=1 cargo test --test suite docs::` rewrites
//!    `docs/data-sources/no_proxy.md`, `docs/functions/merge_no_proxy.md`
//!    and `docs/functions/no_proxy_bypasses.md` (and every other page with a
//!    `clients` attribute). The README's list of dialects is edited by hand.

use std::borrow::Cow;
use std::fmt;
use std::net::IpAddr;

use ipnet::IpNet;

use super::destination::Destination;
use super::{write_ipv4, write_port};
use clusterproxy_cancel as cancel;

mod curl;
mod go;
mod httpx;
pub mod java;
mod node;
mod python;
mod requests;
mod reqwest;
mod ruby;
mod undici;
mod wget;

use java::java_expresses;
pub use java::JAVA_DEFAULT_NON_PROXY_HOSTS;

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
            Dialect::Go => go::direct(list, &open),
            Dialect::Curl => curl::direct(list, &open),
            Dialect::Python => python::direct(list, &open),
            Dialect::Requests => requests::direct(list, &open),
            Dialect::Ruby => ruby::direct(list, &open),
            Dialect::Wget => wget::direct(list, &open),
            Dialect::Java => java::direct(list, &open),
            Dialect::Node => node::direct(list, &open),
            Dialect::Undici => undici::direct(list, &open),
            Dialect::Reqwest => reqwest::direct(list, &open),
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

/// `host:port`.
fn host_port(host: &str, port: u16) -> String {
    let mut text = String::with_capacity(host.len() + 6);
    text.push_str(host);
    // Writing into a String cannot fail.
    let _ = write_port(&mut text, Some(port));
    text
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
mod tests;
