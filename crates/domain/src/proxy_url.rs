//! Proxy URLs: parsing, validation, normalisation and credential handling.
//!
//! Accepted form: `scheme://host[:port][/]` where scheme is `http` or `https`
//! (case-insensitive). `socks5` and other schemes are rejected: AKS and TKG
//! accept only HTTP(S) proxies, and curl/wget/Python treat `HTTP_PROXY` as an
//! HTTP proxy, so a SOCKS URL in these variables would only work for Go.
//! The host is a DNS name (IDNs are converted to ASCII), an IPv4 address or a
//! bracketed IPv6 address. A path other than a single `/`, a query or a
//! fragment is an error.
//!
//! Credentials are never taken from the URL: a URL with userinfo is rejected
//! with a finding (it would put the password into a non-sensitive attribute).
//! They are given separately and percent-encoded into the userinfo following
//! RFC 3986 (every byte outside the unreserved set `A-Z a-z 0-9 - . _ ~` is
//! encoded), so `%`, `@`, `:`, `/`, `"`, `\`, `$` and spaces are all safe.
//!
//! A user name or password is at most [`MAX_CREDENTIAL_BYTES`] (255)
//! bytes of UTF-8, what every client and proxy accepts: older libcurl kept
//! the user name and password of a URL, and the proxy's, in 256-byte
//! buffers (`MAX_CURL_USER_LENGTH`, `MAX_CURL_PASSWORD_LENGTH`, 255 bytes
//! and the NUL, curl lib/urldata.h), and Squid hands a basic-auth user and
//! password to its helper as one line `user password\n`, each RFC 1738
//! escaped (up to three bytes per byte), in an 8,192-byte buffer, refusing a
//! longer one as an authentication failure (squid-cache/squid
//! src/auth/basic/UserRequest.cc, `HELPER_INPUT_BUFFER`). The bound also
//! keeps every rendering small: a URL with credentials is at most 1.6 KB
//! longer than without, and a size check counts the password at that
//! longest ([`ProxyUrl::to_longest_string`]).
//!
//! Normalisation: scheme and host are lowercased, a trailing `/` is dropped,
//! an explicit port is kept as written (without leading zeros), and a URL
//! without a port gets the scheme's default port written out (`http` 80,
//! `https` 443, RFC 9110 section 4.2). Clients disagree on a missing port:
//! Go and Python use the scheme's port, curl uses 1080 for an `http://` proxy
//! without one (libcurl's documented proxy port default), so every rendered URL
//! carries its port.

use crate::redact::quoted;
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use super::no_proxy::entry::label_errors;
use super::redact::REDACTED_PASSWORD;
use super::{Finding, InputField};

/// Bytes that RFC 3986 userinfo must percent-encode: everything but unreserved.
const USERINFO_ENCODE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Proxy scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProxyScheme {
    /// `http://` (the proxy is spoken to in clear text, CONNECT for TLS targets).
    Http,
    /// `https://` (TLS to the proxy itself).
    Https,
}

impl ProxyScheme {
    /// The port a URL of this scheme means when it names none.
    pub fn default_port(self) -> u16 {
        match self {
            ProxyScheme::Http => 80,
            ProxyScheme::Https => 443,
        }
    }

    /// The lowercase scheme name.
    pub fn as_str(self) -> &'static str {
        match self {
            ProxyScheme::Http => "http",
            ProxyScheme::Https => "https",
        }
    }
}

/// Proxy host: DNS name or IP literal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ProxyHost {
    /// Lowercase ASCII DNS name.
    Name(String),
    /// IPv4 address.
    Ipv4(Ipv4Addr),
    /// IPv6 address (rendered in brackets).
    Ipv6(Ipv6Addr),
}

impl fmt::Display for ProxyHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyHost::Name(name) => f.write_str(name),
            ProxyHost::Ipv4(ip) => write!(f, "{ip}"),
            ProxyHost::Ipv6(ip) => write!(f, "[{ip}]"),
        }
    }
}

/// The most bytes (UTF-8) of a proxy user name, and of a password (see the
/// module doc for why).
pub const MAX_CREDENTIAL_BYTES: usize = 255;

/// The most bytes a password takes percent-encoded (every byte encoded).
pub const MAX_ENCODED_PASSWORD_BYTES: usize = 3 * MAX_CREDENTIAL_BYTES;

/// Proxy user name and optional password. `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ProxyCredentials {
    username: String,
    password: Option<String>,
}

impl ProxyCredentials {
    /// Builds credentials from raw (not percent-encoded) values. An empty
    /// username with a password is an error (on `password`, the one set); both empty
    /// gives `Ok(None)`. A user name or password over [`MAX_CREDENTIAL_BYTES`]
    /// is an error on its field that tells the bound and nothing about the
    /// value (not its length).
    pub fn new(username: &str, password: &str) -> Result<Option<Self>, Finding> {
        for (field, name, value) in [
            (InputField::Username, "user name", username),
            (InputField::Password, "password", password),
        ] {
            if value.len() > MAX_CREDENTIAL_BYTES {
                return Err(Finding::error(
                    field,
                    format!("Proxy {name} too long"),
                    format!("A proxy {name} must be at most {MAX_CREDENTIAL_BYTES} bytes (UTF-8), the most every proxy client accepts."),
                ));
            }
        }
        match (username.is_empty(), password.is_empty()) {
            (true, true) => Ok(None),
            (true, false) => Err(Finding::error(
                InputField::Password,
                "password without username",
                "A proxy password was given but no username; set `username` or remove `password`.",
            )),
            (false, _) => Ok(Some(Self {
                username: username.to_owned(),
                password: (!password.is_empty()).then(|| password.to_owned()),
            })),
        }
    }

    /// The raw user name.
    pub fn username(&self) -> &str {
        &self.username
    }

    /// The raw password (secret).
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
    }

    /// Percent-encoded userinfo including the password (secret).
    fn userinfo_secret(&self) -> String {
        let user = utf8_percent_encode(&self.username, USERINFO_ENCODE);
        match &self.password {
            Some(password) => format!("{user}:{}", utf8_percent_encode(password, USERINFO_ENCODE)),
            None => user.to_string(),
        }
    }

    /// Percent-encoded userinfo with the password replaced by `stand_in`.
    fn userinfo_with(&self, stand_in: &str) -> String {
        let user = utf8_percent_encode(&self.username, USERINFO_ENCODE);
        match &self.password {
            Some(_) => format!("{user}:{stand_in}"),
            None => user.to_string(),
        }
    }
}

impl fmt::Debug for ProxyCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProxyCredentials")
            .field("username", &self.username)
            .field(
                "password",
                &self.password.as_ref().map(|_| REDACTED_PASSWORD),
            )
            .finish()
    }
}

/// Why a proxy URL may not embed credentials.
const CREDENTIALS_DETAIL: &str = "Do not embed user:password in the URL (the attribute is not sensitive); set `username` and `password` instead.";

/// A validated, normalised proxy URL, optionally with credentials.
/// `Debug` and `Display` show the redacted form only.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ProxyUrl {
    scheme: ProxyScheme,
    host: ProxyHost,
    port: u16,
    credentials: Option<ProxyCredentials>,
}

impl ProxyUrl {
    /// Parses and validates `text`, the value of `field`, as a proxy URL;
    /// findings are on `field`. Credentials in the URL are an error.
    pub fn parse(field: InputField, text: &str) -> Result<Self, Finding> {
        let fail = |summary: &str, detail: String| Err(Finding::error(field, summary, detail));
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return fail("empty proxy URL", "The proxy URL is empty.".into());
        }
        if trimmed.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return fail(
                "proxy URL contains whitespace or control characters",
                "Remove spaces, tabs and newlines from the proxy URL.".into(),
            );
        }
        let Some((scheme_text, rest)) = trimmed.split_once("://") else {
            return fail(
                "proxy URL has no scheme",
                "Write the proxy as http://host:port or https://host:port.".into(),
            );
        };
        let scheme = match scheme_text.to_ascii_lowercase().as_str() {
            "http" => ProxyScheme::Http,
            "https" => ProxyScheme::Https,
            other => {
                return fail(
                    "unsupported proxy scheme",
                    format!(
                        "Scheme {other} is not supported; use http or https.",
                        other = quoted(other)
                    ),
                )
            }
        };
        // Userinfo ends at the last `@` before the host: a password with an
        // unencoded `/`, `?` or `#` would otherwise end the authority early
        // and read as a path, query or fragment.
        let host_part = rest.rsplit_once('@').map(|(_, host)| host);
        if host_part.is_some_and(|host| !host.trim_end_matches('/').contains(['/', '?', '#'])) {
            return fail("proxy URL contains credentials", CREDENTIALS_DETAIL.into());
        }
        let (authority, tail) = match rest.find(['/', '?', '#']) {
            Some(at) => rest.split_at(at),
            None => (rest, ""),
        };
        if !tail.is_empty() && tail != "/" {
            return fail(
                "proxy URL has a path, query or fragment",
                "A proxy URL is scheme://host[:port]; remove everything after the port.".into(),
            );
        }
        let (host, port_text) = match split_host_port(authority) {
            Ok(parts) => parts,
            Err(detail) => return fail("invalid proxy host", detail),
        };
        let host = match parse_host(host) {
            Ok(host) => host,
            Err(detail) => return fail("invalid proxy host", detail),
        };
        let port = match port_text {
            None => scheme.default_port(),
            Some(p) if !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => {
                match p.parse::<u16>() {
                    Ok(0) | Err(_) => {
                        return fail(
                            "invalid proxy port",
                            format!("Port {p} is not in 1-65535.", p = quoted(p)),
                        )
                    }
                    Ok(n) => n,
                }
            }
            Some(p) => {
                return fail(
                    "invalid proxy port",
                    format!("Port {p} is not a number in 1-65535.", p = quoted(p)),
                )
            }
        };
        Ok(Self {
            scheme,
            host,
            port,
            credentials: None,
        })
    }

    /// The same URL with `credentials` (replacing any previous ones).
    pub fn with_credentials(mut self, credentials: Option<ProxyCredentials>) -> Self {
        self.credentials = credentials;
        self
    }

    /// Scheme.
    pub fn scheme(&self) -> ProxyScheme {
        self.scheme
    }

    /// Host.
    pub fn host(&self) -> &ProxyHost {
        &self.host
    }

    /// The port: as written, or the scheme's default.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Credentials, if any.
    pub fn credentials(&self) -> Option<&ProxyCredentials> {
        self.credentials.as_ref()
    }

    /// `host:port`, the port always written.
    pub fn host_port(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// Full URL including percent-encoded credentials: a SECRET when
    /// credentials are set. This is what goes into rendered configuration.
    pub fn to_secret_string(&self) -> String {
        match &self.credentials {
            Some(c) => format!(
                "{}://{}@{}",
                self.scheme.as_str(),
                c.userinfo_secret(),
                self.host_port()
            ),
            None => self.to_plain_string(),
        }
    }

    /// URL with the password replaced by `***` (user name kept), safe for messages.
    pub fn to_redacted_string(&self) -> String {
        self.with_stand_in(REDACTED_PASSWORD)
    }

    /// URL with the password replaced by a stand-in as long as the longest
    /// password encodes to ([`MAX_ENCODED_PASSWORD_BYTES`]): what size
    /// checks measure, so that they never count less than the real
    /// rendering and depend on no password.
    pub fn to_longest_string(&self) -> String {
        self.with_stand_in(&"%2A".repeat(MAX_CREDENTIAL_BYTES))
    }

    /// URL with the password replaced by `stand_in`.
    fn with_stand_in(&self, stand_in: &str) -> String {
        match &self.credentials {
            Some(c) => format!(
                "{}://{}@{}",
                self.scheme.as_str(),
                c.userinfo_with(stand_in),
                self.host_port()
            ),
            None => self.to_plain_string(),
        }
    }

    /// URL without any userinfo.
    pub fn to_plain_string(&self) -> String {
        format!("{}://{}", self.scheme.as_str(), self.host_port())
    }
}

impl fmt::Debug for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ProxyUrl({})", self.to_redacted_string())
    }
}

impl fmt::Display for ProxyUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_redacted_string())
    }
}

/// Splits an authority into host text and optional port text.
fn split_host_port(authority: &str) -> Result<(&str, Option<&str>), String> {
    if let Some(inner) = authority.strip_prefix('[') {
        let Some(close) = inner.find(']') else {
            return Err("IPv6 address is missing its closing ']'.".into());
        };
        let (host, after) = (&authority[..close + 2], &inner[close + 1..]);
        return match after {
            "" => Ok((host, None)),
            _ => match after.strip_prefix(':') {
                Some(port) => Ok((host, Some(port))),
                None => Err(format!(
                    "Unexpected text {after} after the IPv6 address.",
                    after = quoted(after)
                )),
            },
        };
    }
    match authority.split_once(':') {
        Some((host, port)) if !port.contains(':') => Ok((host, Some(port))),
        Some(_) => Err(
            "IPv6 addresses must be written in brackets, e.g. http://[2001:db8::1]:3128.".into(),
        ),
        None => Ok((authority, None)),
    }
}

/// Validates and normalises host text (brackets included for IPv6).
fn parse_host(text: &str) -> Result<ProxyHost, String> {
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return inner
            .parse::<Ipv6Addr>()
            .map(ProxyHost::Ipv6)
            .map_err(|_| format!("{inner} is not an IPv6 address.", inner = quoted(inner)));
    }
    if text.is_empty() {
        return Err("The proxy URL has no host.".into());
    }
    if let Ok(ip) = text.parse::<Ipv4Addr>() {
        return Ok(ProxyHost::Ipv4(ip));
    }
    if text.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return Err(format!(
            "{text} is not a valid IPv4 address.",
            text = quoted(text)
        ));
    }
    let ascii = idna::domain_to_ascii(text)
        .map_err(|_| format!("{text} is not a valid host name.", text = quoted(text)))?;
    let name = ascii.strip_suffix('.').unwrap_or(&ascii);
    label_errors(name).map_err(|why| {
        format!(
            "{text} is not a valid host name: {why}.",
            text = quoted(text)
        )
    })?;
    Ok(ProxyHost::Name(name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ProxyUrl, Finding> {
        ProxyUrl::parse(InputField::HttpProxy, text)
    }

    /// Host names follow the NO_PROXY grammar's rules: a name whose last
    /// label is all digits is a malformed address, which URL parsers read
    /// differently (WHATWG and glibc read `0x7f.1` as 127.0.0.1).
    #[test]
    fn a_name_ending_in_a_number_is_refused() {
        for text in [
            "http://0x7f.1:3128",
            "http://proxy.123:3128",
            "http://a..b:3128",
        ] {
            let finding = parse(text).unwrap_err();
            assert_eq!(finding.summary, "invalid proxy host", "{text}");
        }
        assert!(parse("http://proxy-1.corp.example:3128").is_ok());
    }

    #[test]
    fn normalises_scheme_host_and_trailing_slash() {
        let url = parse("HTTP://Proxy.Example.COM:3128/").unwrap();
        assert_eq!(url.to_secret_string(), "http://proxy.example.com:3128");
        assert_eq!(
            parse("https://10.0.0.1").unwrap().to_plain_string(),
            "https://10.0.0.1:443"
        );
    }

    #[test]
    fn ipv6_needs_brackets_and_is_normalised() {
        let url = parse("http://[2001:DB8:0::1]:8080").unwrap();
        assert_eq!(url.to_plain_string(), "http://[2001:db8::1]:8080");
        assert_eq!(url.host(), &ProxyHost::Ipv6("2001:db8::1".parse().unwrap()));
        assert!(parse("http://2001:db8::1:8080").is_err());
        assert!(parse("http://[2001:db8::1").is_err());
        assert!(parse("http://[nope]:80").is_err());
    }

    #[test]
    fn rejects_bad_input() {
        for bad in [
            "",
            "proxy:3128",
            "socks5://proxy:1080",
            "ftp://proxy",
            "http://proxy:3128/path",
            "http://proxy:3128?x=1",
            "http://proxy#frag",
            "http://proxy:0",
            "http://proxy:65536",
            "http://proxy:+80",
            "http://proxy:",
            "http://",
            "http://-bad-.example",
            "http://pro xy:80",
            "http://proxy\n:80",
            "http://999.1.1.1",
        ] {
            let finding = parse(bad).expect_err(bad);
            assert!(finding.is_error());
            assert_eq!(finding.location, Some(InputField::HttpProxy.into()));
        }
    }

    #[test]
    fn embedded_credentials_are_an_error_that_hides_them() {
        for text in [
            "http://alice:s3cr3t@proxy:3128",
            // A password holding `#`, `/` or `?` is still credentials, not
            // a fragment, path or query.
            "http://alice:s3#cr3t@proxy:3128",
            "http://alice:s3/cr3t@proxy:3128/",
            "http://alice:s3?cr3t@proxy",
            "http://al/ice@proxy:3128",
        ] {
            let finding = parse(text).unwrap_err();
            assert_eq!(finding.summary, "proxy URL contains credentials", "{text}");
            assert!(!format!("{finding:?}").contains("cr3t"), "{text}");
        }
        let path = parse("http://proxy:3128/a@b/c").unwrap_err();
        assert_eq!(path.summary, "proxy URL has a path, query or fragment");
    }

    #[test]
    fn credentials_are_percent_encoded_per_rfc3986() {
        let creds = ProxyCredentials::new("dom\\al ice", "p%@:/\"\\$ x~-._").unwrap();
        let url = parse("http://proxy:3128").unwrap().with_credentials(creds);
        assert_eq!(
            url.to_secret_string(),
            "http://dom%5Cal%20ice:p%25%40%3A%2F%22%5C%24%20x~-._@proxy:3128"
        );
        assert_eq!(
            url.to_redacted_string(),
            "http://dom%5Cal%20ice:***@proxy:3128"
        );
        let decoded = percent_encoding::percent_decode_str("p%25%40%3A%2F%22%5C%24%20x~-._")
            .decode_utf8()
            .unwrap();
        assert_eq!(decoded, "p%@:/\"\\$ x~-._");
    }

    #[test]
    fn debug_and_display_never_show_the_password() {
        let creds = ProxyCredentials::new("bob", "hunter2").unwrap();
        let url = parse("http://proxy:3128")
            .unwrap()
            .with_credentials(creds.clone());
        for shown in [format!("{url:?}"), format!("{url}"), format!("{creds:?}")] {
            assert!(!shown.contains("hunter2"), "{shown}");
            assert!(shown.contains("bob"), "{shown}");
        }
    }

    #[test]
    fn username_only_and_missing_username() {
        let creds = ProxyCredentials::new("bob", "").unwrap();
        let url = parse("http://proxy").unwrap().with_credentials(creds);
        assert_eq!(url.to_secret_string(), "http://bob@proxy:80");
        assert_eq!(ProxyCredentials::new("", "").unwrap(), None);
        assert_eq!(
            ProxyCredentials::new("", "x").unwrap_err().location,
            Some(InputField::Password.into())
        );
    }

    /// A user name or password one byte over the bound is an error on its
    /// field that says the bound and nothing else about it (neither the
    /// value nor its length); at the bound both are taken, and the longest
    /// stand-in is never shorter than the real encoding.
    #[test]
    fn credentials_over_the_bound_are_refused_without_their_length() {
        let at_bound = "%".repeat(MAX_CREDENTIAL_BYTES);
        let creds = ProxyCredentials::new(&at_bound, &at_bound).unwrap();
        let url = parse("http://proxy:3128").unwrap().with_credentials(creds);
        assert_eq!(url.to_longest_string().len(), url.to_secret_string().len());
        for over in [MAX_CREDENTIAL_BYTES + 1, 60 << 20] {
            let long = "é".repeat(over / 2 + 1);
            for (user, password, field) in [
                (long.as_str(), "pw", InputField::Username),
                ("svc", long.as_str(), InputField::Password),
            ] {
                let finding = ProxyCredentials::new(user, password).unwrap_err();
                assert_eq!(finding.location, Some(field.into()));
                assert!(
                    finding.detail.contains("at most 255 bytes"),
                    "{}",
                    finding.detail
                );
                let shown = format!("{} {}", finding.summary, finding.detail);
                assert!(!shown.contains(&long.len().to_string()), "{shown}");
                assert!(!shown.contains('é'), "{shown}");
            }
        }
    }

    /// curl takes 1080 for a proxy URL without a port, Go and Python the
    /// scheme's port: the rendered URL always names the port.
    #[test]
    fn a_missing_port_becomes_the_schemes_default() {
        for (text, want) in [
            ("http://proxy.corp.example", "http://proxy.corp.example:80"),
            (
                "https://proxy.corp.example/",
                "https://proxy.corp.example:443",
            ),
            ("http://[2001:db8::1]", "http://[2001:db8::1]:80"),
            (
                "http://proxy.corp.example:80",
                "http://proxy.corp.example:80",
            ),
            (
                "https://proxy.corp.example:3129",
                "https://proxy.corp.example:3129",
            ),
        ] {
            let url = parse(text).unwrap();
            assert_eq!(url.to_plain_string(), want);
            assert_eq!(url.to_redacted_string(), want);
        }
        assert_eq!(parse("http://p").unwrap(), parse("http://p:80").unwrap());
    }

    #[test]
    fn idn_hosts_become_punycode() {
        let url = parse("http://bücher.example:80").unwrap();
        assert_eq!(url.to_plain_string(), "http://xn--bcher-kva.example:80");
    }
}
