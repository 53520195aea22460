//! What several client models share: the batch ([`Pending`]), the
//! setting's case ([`Case`]), splitting and the WHATWG host (Node, undici,
//! reqwest). The answers most clients share are the defaults of the
//! `Client` trait (`dialect/client.rs`).

use std::borrow::Cow;
use std::net::IpAddr;

use crate::no_proxy::destination::Destination;
use crate::no_proxy::write::{write_ipv4, write_port};
use clusterproxy_cancel as cancel;

/// How many entries a model reads between two looks at [`cancel::requested`].
const CANCEL_EVERY: usize = 4096;

/// The destinations of a batch while a model reads the entries of a setting:
/// which are direct so far (an entry matched, or a rule before the entries).
pub(super) struct Pending {
    direct: Vec<bool>,
    /// How many are not direct yet.
    left: usize,
    /// Entries read so far.
    read: usize,
}

impl Pending {
    /// `direct`: what is decided before the first entry.
    pub(super) fn new(direct: Vec<bool>) -> Self {
        let left = direct.iter().filter(|d| !**d).count();
        Self {
            direct,
            left,
            read: 0,
        }
    }

    /// Called before each entry: true when no entry can change the result any
    /// more (every destination direct) or the computation is cancelled.
    pub(super) fn done(&mut self) -> bool {
        self.read += 1;
        self.left == 0 || (self.read.is_multiple_of(CANCEL_EVERY) && cancel::requested())
    }

    /// Makes direct every destination not yet direct for which `matches`
    /// (given its index) is true.
    pub(super) fn mark(&mut self, mut matches: impl FnMut(usize) -> bool) {
        for (i, direct) in self.direct.iter_mut().enumerate() {
            if !*direct && matches(i) {
                *direct = true;
                self.left -= 1;
            }
        }
    }

    /// The decision per destination: true for direct.
    pub(super) fn finish(self) -> Vec<bool> {
        self.direct
    }
}

/// How the entries of one setting are lowercased (as `str::to_lowercase`
/// does): not at all when the whole setting is lowercase ASCII, as merged
/// lists are, so that no entry needs a look of its own.
#[derive(Clone, Copy)]
pub(super) struct Case {
    lower: bool,
}

impl Case {
    /// The case of `list`, read once.
    pub(super) fn of(list: &str) -> Self {
        Self {
            // A count, not `any`: it reads the whole text without a branch per byte.
            lower: list.is_ascii() && list.bytes().filter(u8::is_ascii_uppercase).count() == 0,
        }
    }

    /// `text` (a part of the setting) lowercased, borrowed when it already is.
    pub(super) fn lower(self, text: &str) -> Cow<'_, str> {
        if self.lower {
            Cow::Borrowed(text)
        } else {
            lowercase(text)
        }
    }
}

/// `text.to_lowercase()`, borrowed when `text` already is lowercase ASCII.
pub(super) fn lowercase(text: &str) -> Cow<'_, str> {
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
pub(super) fn split_at(list: &str, separator: u8) -> impl Iterator<Item = &str> {
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
pub(super) fn ends_with_dotted(host: &str, name: &str) -> bool {
    host.len() > name.len()
        && host.ends_with(name)
        && host.as_bytes()[host.len() - name.len() - 1] == b'.'
}

/// `host:port`.
pub(super) fn host_port(host: &str, port: u16) -> String {
    let mut text = String::with_capacity(host.len() + 6);
    text.push_str(host);
    // Writing into a String cannot fail.
    let _ = write_port(&mut text, Some(port));
    text
}

/// The first longest run of two or more zero groups: (start, length), length 0 if none.
pub(super) fn longest_zero_run(groups: &[u16; 8]) -> (usize, usize) {
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
pub(super) fn js_host_port(entry: &str) -> (&str, u32) {
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
pub(super) fn whatwg_host(d: &Destination) -> Option<Cow<'_, str>> {
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
pub(super) fn whatwg_ipv6(ip: std::net::Ipv6Addr) -> String {
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
