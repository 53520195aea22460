//! Destinations whose proxy decision is checked: a URL, `host`, `host:port`
//! or an IP address. Without a scheme, `https` is assumed. A destination keeps
//! its host exactly as written (case, trailing dot, Unicode or punycode): the
//! clients differ in how they normalise it, so only each client's model may.

use std::borrow::Cow;
use std::fmt;
use std::net::IpAddr;

use super::write::write_port;
use crate::redact::redact_userinfo;

/// The host of a destination.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DestinationHost {
    /// A lowercase ASCII host name, no trailing dot.
    Name(String),
    /// An IP literal.
    Ip(IpAddr),
}

impl fmt::Display for DestinationHost {
    /// The canonical text, IPv6 without brackets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DestinationHost::Name(name) => f.write_str(name),
            DestinationHost::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

/// A destination a client might connect to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Destination {
    /// `http` or `https`.
    pub scheme: &'static str,
    /// The host, normalised (lowercase, punycode, no trailing dot): what the
    /// merge and the renderers compare with entries.
    pub host: DestinationHost,
    /// The host as written, without IPv6 brackets: what each client reads.
    pub written: String,
    /// The port written in the URL, if any.
    pub explicit_port: Option<u16>,
}

impl Destination {
    /// Parses a URL (`http` or `https`), `host`, `host:port`, `[v6]:port` or an IP address.
    pub fn parse(input: &str) -> Result<Self, String> {
        let text = input.trim();
        // What messages quote: a URL's userinfo never is.
        let shown = redact_userinfo(text);
        let (scheme, rest) = match text.split_once("://") {
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => ("http", rest),
            Some((scheme, rest)) if scheme.eq_ignore_ascii_case("https") => ("https", rest),
            Some((scheme, _)) => {
                let other = redact_userinfo(&scheme.to_ascii_lowercase()).into_owned();
                return Err(format!("{shown:?}: scheme {other:?} is not http or https"));
            }
            None => ("https", text),
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        let authority = authority
            .rsplit_once('@')
            .map_or(authority, |(_, host)| host);
        let (host, port) = split_authority(authority)
            .ok_or_else(|| format!("{shown:?} has no valid host and port"))?;
        let written = host.to_owned();
        let host = match host.contains('%') {
            true => host.split("%25").next().unwrap_or(host),
            false => host,
        };
        // Lowercasing neither makes nor removes a trailing dot, nor changes
        // what parses as an address.
        let host = host.strip_suffix('.').unwrap_or(host);
        let host = match host.parse::<IpAddr>() {
            Ok(ip) => DestinationHost::Ip(ip),
            Err(_) => {
                let lower = host.to_lowercase();
                let ascii =
                    match idna::domain_to_ascii_cow(lower.as_bytes(), idna::AsciiDenyList::EMPTY) {
                        Ok(Cow::Borrowed(_)) => lower,
                        Ok(Cow::Owned(ascii)) => ascii,
                        Err(_) => return Err(format!("{shown:?} has an invalid host name")),
                    };
                let valid = !ascii.is_empty()
                    && ascii.split('.').all(|l| {
                        !l.is_empty()
                            && l.bytes()
                                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                    });
                if !valid {
                    return Err(format!("{shown:?} has an invalid host name"));
                }
                DestinationHost::Name(ascii)
            }
        };
        Ok(Self {
            scheme,
            host,
            written,
            explicit_port: port,
        })
    }

    /// The port connected to: the explicit one or the scheme's default.
    pub fn port(&self) -> u16 {
        self.explicit_port
            .unwrap_or(if self.scheme == "http" { 80 } else { 443 })
    }

    /// The host as written in a URL (IPv6 in brackets).
    pub fn url_host(&self) -> String {
        match &self.host {
            DestinationHost::Name(name) => name.clone(),
            DestinationHost::Ip(IpAddr::V6(ip)) => format!("[{ip}]"),
            DestinationHost::Ip(ip) => ip.to_string(),
        }
    }

    /// The host without brackets.
    pub fn bare_host(&self) -> String {
        match &self.host {
            DestinationHost::Name(name) => name.clone(),
            DestinationHost::Ip(ip) => ip.to_string(),
        }
    }

    /// The host as written, IPv6 in brackets: the host part of its
    /// [`Display`](fmt::Display) form.
    pub fn written_url_host(&self) -> Cow<'_, str> {
        if self.written.contains(':') {
            Cow::Owned(format!("[{}]", self.written))
        } else {
            Cow::Borrowed(&self.written)
        }
    }

    /// The zone ID of a zone-scoped IPv6 host (`[fe80::1%25eth0]`), as written.
    pub fn zone(&self) -> Option<&str> {
        self.zone_split().map(|(_, zone)| zone)
    }

    /// The written host without its zone ID.
    pub fn written_address(&self) -> &str {
        self.zone_split()
            .map_or(&self.written, |(address, _)| address)
    }

    /// The written host split at `%25`, if it has one (a byte search first:
    /// most hosts have no `%`).
    fn zone_split(&self) -> Option<(&str, &str)> {
        if !self.written.contains('%') {
            return None;
        }
        self.written.split_once("%25")
    }

    /// The IP literal, if the host is one.
    pub fn ip(&self) -> Option<IpAddr> {
        match self.host {
            DestinationHost::Ip(ip) => Some(ip),
            DestinationHost::Name(_) => None,
        }
    }
}

fn split_authority(authority: &str) -> Option<(&str, Option<u16>)> {
    let parse_port = |p: &str| p.parse::<u16>().ok().filter(|p| *p > 0);
    if let Some(rest) = authority.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        let (address, zone) = match inside.split_once("%25") {
            Some((address, zone)) => (address, Some(zone)),
            None => (inside, None),
        };
        address.parse::<std::net::Ipv6Addr>().ok()?;
        // RFC 6874: a zone ID of unreserved characters after `%25`.
        if zone.is_some_and(|z| {
            z.is_empty()
                || !z
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
        }) {
            return None;
        }
        return match after {
            "" => Some((inside, None)),
            _ => Some((inside, Some(parse_port(after.strip_prefix(':')?)?))),
        };
    }
    if authority.parse::<std::net::Ipv6Addr>().is_ok() {
        return Some((authority, None));
    }
    match authority.split_once(':') {
        Some((host, port)) if !host.is_empty() => Some((host, Some(parse_port(port)?))),
        Some(_) => None,
        None if authority.is_empty() => None,
        None => Some((authority, None)),
    }
}

impl fmt::Display for Destination {
    /// The destination as a URL: the host as written, and the port when it
    /// was written (clients may read `https://x/` and `https://x:443/`
    /// differently, so the two stay apart).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Assembled first and written at once, so that `to_string`
        // allocates once instead of growing its buffer piece by piece.
        let mut url = StackText::default();
        match self.write_url(&mut url) {
            Ok(()) => f.write_str(url.as_str()),
            Err(_) => self.write_url(f),
        }
    }
}

impl Destination {
    /// Writes the [`Display`](fmt::Display) form into `out`.
    fn write_url(&self, out: &mut impl fmt::Write) -> fmt::Result {
        out.write_str(self.scheme)?;
        out.write_str("://")?;
        out.write_str(&self.written_url_host())?;
        write_port(out, self.explicit_port)?;
        out.write_str("/")
    }
}

/// Text assembled on the stack: writing fails, leaving it unchanged, when it
/// would no longer fit.
struct StackText {
    bytes: [u8; 128],
    len: usize,
}

impl Default for StackText {
    fn default() -> Self {
        Self {
            bytes: [0; 128],
            len: 0,
        }
    }
}

impl StackText {
    fn as_str(&self) -> &str {
        // Only whole `str`s are copied in.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl fmt::Write for StackText {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let end = self.len + text.len();
        let room = self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?;
        room.copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urls_hosts_and_addresses() {
        let d = Destination::parse("HTTP://User:pw@Example.COM.:8080/x?y").unwrap();
        assert_eq!(d.host, DestinationHost::Name("example.com".into()));
        assert_eq!(d.written, "Example.COM.");
        assert_eq!(d.to_string(), "http://Example.COM.:8080/");
        assert_eq!(
            (d.scheme, d.port(), d.explicit_port),
            ("http", 8080, Some(8080))
        );
        let d = Destination::parse("https://[::FFFF:10.0.0.1]/").unwrap();
        assert_eq!(d.written_url_host(), "[::FFFF:10.0.0.1]");
        assert_eq!(d.to_string(), "https://[::FFFF:10.0.0.1]/");
        let d = Destination::parse("http://[FE80::1%25eth0]:8080/").unwrap();
        assert_eq!(d.ip(), Some("fe80::1".parse().unwrap()));
        assert_eq!((d.zone(), d.written_address()), (Some("eth0"), "FE80::1"));
        assert_eq!(d.to_string(), "http://[FE80::1%25eth0]:8080/");
        let d = Destination::parse("10.96.0.1").unwrap();
        assert_eq!((d.scheme, d.port()), ("https", 443));
        // The port is shown only when written: `https://10.96.0.1/` and
        // `https://10.96.0.1:443/` are two checks.
        assert_eq!(d.to_string(), "https://10.96.0.1/");
        assert_eq!(
            Destination::parse("10.96.0.1:443").unwrap().to_string(),
            "https://10.96.0.1:443/"
        );
        let d = Destination::parse("http://[fd00::1]/").unwrap();
        assert_eq!(d.url_host(), "[fd00::1]");
        assert_eq!(d.port(), 80);
        assert_eq!(
            Destination::parse("fd00::1").unwrap().bare_host(),
            "fd00::1"
        );
        assert_eq!(Destination::parse("[fd00::1]:6443").unwrap().port(), 6443);
    }

    /// A URL longer than the stack buffer is written piece by piece, the same.
    #[test]
    fn long_urls_display_whole() {
        let host = ["a".repeat(60), "b".repeat(60), "example".to_owned()].join(".");
        let d = Destination::parse(&format!("http://{host}:8080/")).unwrap();
        assert_eq!(d.to_string(), format!("http://{host}:8080/"));
    }

    #[test]
    fn rejects_nonsense() {
        for bad in [
            "ftp://x",
            "",
            "http://",
            "x:0",
            "x:port",
            "a b",
            "http://[x]/",
            "http://[fe80::1%25]/",
            "http://[fe80::1%eth0]/",
            "http://[fe80::1%25e/0]/",
        ] {
            assert!(Destination::parse(bad).is_err(), "{bad:?}");
        }
    }
}
