//! The typed cluster inputs: CIDR blocks, IP addresses, host names, DNS
//! domains and control-plane endpoints. Each is checked as the type it is,
//! not only as a NO_PROXY entry (`*` is a NO_PROXY entry, never an IP
//! address), and has one canonical form, which the renderers write.
//!
//! Blanks around a value are ignored, as in NO_PROXY entries; anything else
//! outside the type's grammar is rejected.

use std::net::IpAddr;

use ipnet::IpNet;

use super::destination::DestinationHost;
use super::entry::{parse_cidr, Entry, Host, Rejection};
use crate::redact::redact_userinfo;

/// What a typed cluster input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A CIDR block (`pod_cidrs`, `service_cidrs`, `node_cidrs`).
    Cidr,
    /// An IP address (`apiserver_ip`).
    Ip,
    /// A host name or IP address (`apiserver_host`).
    Host,
    /// A DNS domain name (`cluster_domain`).
    Domain,
    /// A host, `host:port` or `https://` URL (`control_plane_endpoint`).
    Endpoint,
    /// An AWS region (`aws_region`), which names a DNS domain (`.<region>.compute.internal`).
    AwsRegion,
}

impl Kind {
    /// What a value must be, in words (after "Expected" or "Must be").
    pub fn expected(self) -> &'static str {
        match self {
            Kind::Cidr => "a CIDR block such as `10.96.0.0/12` or `fd00:10:96::/112` (an IPv4 or IPv6 network address and prefix length, without host bits, port or wildcard)",
            Kind::Ip => "an IP address such as `10.0.0.1` or `fd00::1` (no CIDR block, port or host name)",
            Kind::Host => "a host name or IP address such as `api.example.com` or `10.0.0.1` (no scheme, port, path or wildcard)",
            Kind::Domain => "a DNS domain name such as `cluster.local` (no IP address, port or wildcard)",
            Kind::Endpoint => "a host, `host:port` or `https://host[:port]` URL such as `api.example.com:6443` (no credentials, path, query, fragment, CIDR block or wildcard)",
            Kind::AwsRegion => "an AWS region such as `eu-west-1` (lowercase letters, then a number, separated by `-`)",
        }
    }

    /// Checks `text` as a value of this kind; a rejection's detail ends
    /// with what a value must be ("Expected ...").
    pub fn check(self, text: &str) -> Result<(), Rejection> {
        match self {
            Kind::Cidr => parse_cidr(text).map(drop),
            Kind::Ip => parse_ip(text).map(drop),
            Kind::Host => parse_host(text).map(drop),
            Kind::Domain => parse_domain(text).map(drop),
            Kind::Endpoint => parse_endpoint(text).map(drop),
            Kind::AwsRegion => check_aws_region(text),
        }
        .map_err(|r| Rejection {
            detail: format!("{} Expected {}.", r.detail, self.expected()),
            ..r
        })
    }
}

/// A control-plane endpoint: its host and the port, when written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The host, canonical (lowercase punycode name or IP address).
    pub host: DestinationHost,
    /// The port written, if any.
    pub port: Option<u16>,
}

fn rejection(summary: &'static str, detail: String) -> Rejection {
    Rejection { summary, detail }
}

/// Parses an IP address (`10.0.0.1`, `FD00:0::1`).
pub fn parse_ip(text: &str) -> Result<IpAddr, Rejection> {
    let shown = redact_userinfo(text);
    text.trim().parse().map_err(|_| {
        rejection(
            "Invalid IP address",
            format!("{shown:?} is not an IP address."),
        )
    })
}

/// Blanks, commas or `|` inside a value: several values in one, or a typo.
fn reject_separators(summary: &'static str, text: &str) -> Result<(), Rejection> {
    let shown = redact_userinfo(text);
    if text
        .trim()
        .contains(|c: char| c.is_whitespace() || c.is_control() || c == ',' || c == '|')
    {
        return Err(rejection(
            summary,
            format!("{shown:?} contains a blank, control character, comma or `|`."),
        ));
    }
    Ok(())
}

/// Parses `text` as a NO_PROXY entry and keeps its host when it names one
/// host (no wildcard, domain suffix, CIDR block or `/` form) and its port;
/// findings have `summary`.
fn host_and_port(
    summary: &'static str,
    text: &str,
) -> Result<(DestinationHost, Option<u16>), Rejection> {
    let shown = redact_userinfo(text);
    reject_separators(summary, text)?;
    let reject = |why: &str| Err(rejection(summary, format!("{shown:?} {why}.")));
    if text.contains('*') {
        return reject("holds a wildcard");
    }
    if text.contains('/') {
        return reject("holds a `/` (a CIDR block, URL or path)");
    }
    let entry = Entry::parse(text)
        .map_err(|r| rejection(summary, r.detail))?
        .entry;
    match entry.host {
        Host::Ip(ip) => Ok((DestinationHost::Ip(ip), entry.port)),
        Host::Domain {
            name,
            subdomains_only: false,
        } => Ok((DestinationHost::Name(name), entry.port)),
        Host::Domain { .. } => {
            reject("starts with `.`: it names a domain's subdomains, not a host")
        }
        // `*` and `/` are rejected above.
        Host::Any | Host::Cidr(_) => reject("is not a host"),
    }
}

/// Parses a host name or IP address, without port: the canonical host
/// (lowercase, punycode, no trailing dot, IPv6 without brackets).
pub fn parse_host(text: &str) -> Result<DestinationHost, Rejection> {
    let shown = redact_userinfo(text);
    const SUMMARY: &str = "Invalid host";
    match host_and_port(SUMMARY, text)? {
        (host, None) => Ok(host),
        (_, Some(_)) => Err(rejection(
            SUMMARY,
            format!("{shown:?} has a port; give the host alone."),
        )),
    }
}

/// Parses a DNS domain name: lowercase punycode without a trailing dot.
pub fn parse_domain(text: &str) -> Result<String, Rejection> {
    let shown = redact_userinfo(text);
    const SUMMARY: &str = "Invalid DNS domain";
    match parse_host(text) {
        Ok(DestinationHost::Name(name)) => Ok(name),
        Ok(DestinationHost::Ip(_)) => Err(rejection(
            SUMMARY,
            format!("{shown:?} is an IP address, not a domain name."),
        )),
        Err(r) => Err(rejection(SUMMARY, r.detail)),
    }
}

/// Parses a control-plane endpoint: `host`, `host:port`, `[v6]:port` or
/// `https://host[:port][/]`. Credentials are rejected without quoting the
/// value; so are any other scheme, a path other than `/`, a query, a
/// fragment, a CIDR block, a wildcard and a port outside 1-65535.
pub fn parse_endpoint(text: &str) -> Result<Endpoint, Rejection> {
    let shown = redact_userinfo(text);
    const SUMMARY: &str = "Invalid control-plane endpoint";
    let reject = |why: &str| Err(rejection(SUMMARY, format!("{shown:?} {why}.")));
    if text.contains('@') {
        // The value may hold a password: never quote it.
        return Err(rejection(
            SUMMARY,
            "The endpoint contains credentials (`user@` or `user:password@`); remove them: the endpoint is shown in plans, and only its host and port are used.".to_owned(),
        ));
    }
    reject_separators(SUMMARY, text)?;
    let trimmed = text.trim();
    let rest = match trimmed.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("https") => rest,
        Some(_) => return reject("has a scheme other than `https`"),
        None => trimmed,
    };
    let (authority, tail) = rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
    match tail {
        "" | "/" => {}
        _ if rest.len() == trimmed.len() && parse_cidr(trimmed).is_ok() => {
            return reject("is a CIDR block, not an endpoint")
        }
        _ => return reject("has a path, query or fragment; give `https://host[:port]`"),
    }
    let (host, port) = host_and_port(SUMMARY, authority)?;
    Ok(Endpoint { host, port })
}

/// Checks an AWS region: parts of lowercase letters, then a number
/// (`eu-west-1`, `us-gov-west-1`), joined by `-`.
fn check_aws_region(text: &str) -> Result<(), Rejection> {
    let shown = redact_userinfo(text);
    let parts: Vec<&str> = text.split('-').collect();
    let letters = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase());
    let number = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    match parts.split_last() {
        Some((last, rest)) if rest.len() >= 2 && rest.iter().all(letters) && number(last) => Ok(()),
        _ => Err(rejection(
            "Invalid AWS region",
            format!("{shown:?} is not an AWS region."),
        )),
    }
}

/// The valid CIDR blocks of `cidrs`, canonical.
pub fn networks(cidrs: &[String]) -> impl Iterator<Item = IpNet> + '_ {
    cidrs.iter().filter_map(|c| parse_cidr(c).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted(kind: Kind, text: &str) -> bool {
        kind.check(text).is_ok()
    }

    #[test]
    fn cidrs_are_network_blocks_only() {
        for good in [
            "10.96.0.0/12",
            " fd00:10:96::/112\n",
            "FD00::/8",
            "10.0.0.5/32",
        ] {
            assert!(accepted(Kind::Cidr, good), "{good:?}");
        }
        for bad in [
            "localhost",
            "[::1]:80",
            "*",
            "10.0.0.1",
            "10.0.0.0/8:80",
            "10.96.0.1/12",
            "10.0.0.0/33",
            "10.0.0.0/8,10.1.0.0/16",
            "10.0.0.0 /8",
            "",
        ] {
            assert!(!accepted(Kind::Cidr, bad), "{bad:?}");
        }
        assert_eq!(
            parse_cidr("10.96.0.1/12").unwrap_err().summary,
            "CIDR block with host bits set"
        );
        let same: Vec<IpNet> = networks(&["FD00:0:0::/8".into(), "fd00::/8".into()]).collect();
        assert_eq!(same[0].to_string(), "fd00::/8");
        assert_eq!(same[0], same[1]);
    }

    #[test]
    fn ips_are_addresses_only() {
        assert_eq!(parse_ip(" FD00:0::1 ").unwrap().to_string(), "fd00::1");
        for bad in [
            "*",
            "api.example.com",
            "10.0.0.0/8",
            "10.0.0.1:6443",
            "[fd00::1]",
            "10.0.0.1/32",
            "",
        ] {
            assert!(!accepted(Kind::Ip, bad), "{bad:?}");
        }
    }

    #[test]
    fn hosts_are_one_name_or_address() {
        let host = |t: &str| parse_host(t).unwrap().to_string();
        assert_eq!(host("API.Example.com."), "api.example.com");
        assert_eq!(host("[FD00::1]"), "fd00::1");
        assert_eq!(host("bücher.example"), "xn--bcher-kva.example");
        assert_eq!(host("10.0.0.1"), "10.0.0.1");
        for bad in [
            "*",
            "*.example.com",
            ".example.com",
            "api.example.com:6443",
            "https://api.example.com",
            "api.example.com/x",
            "10.0.0.0/8",
            "10.0.0.1/32",
            "a b",
            "a,b",
            "api-int.x\nevil: true",
            "-x.example",
            "",
        ] {
            assert!(!accepted(Kind::Host, bad), "{bad:?}");
        }
    }

    #[test]
    fn domains_are_names_only() {
        assert_eq!(parse_domain("Cluster.Local.").unwrap(), "cluster.local");
        for bad in [
            "cluster.local:80",
            "10.0.0.0/8",
            "10.0.0.1",
            "fd00::1",
            "*.cluster.local",
            ".cluster.local",
            "*",
        ] {
            assert!(!accepted(Kind::Domain, bad), "{bad:?}");
        }
    }

    #[test]
    fn aws_regions_name_a_domain_part() {
        for good in ["eu-west-1", "us-gov-west-1", "ap-southeast-4"] {
            assert!(accepted(Kind::AwsRegion, good), "{good:?}");
        }
        for bad in [
            "eu-west-1,evil.example",
            "eu-west",
            "EU-west-1",
            "eu--1",
            "eu-west-1.x",
            " eu-west-1",
            "",
        ] {
            assert!(!accepted(Kind::AwsRegion, bad), "{bad:?}");
        }
    }

    #[test]
    fn endpoints_are_a_host_and_maybe_a_port() {
        let endpoint = |t: &str| {
            let e = parse_endpoint(t).unwrap();
            (e.host.to_string(), e.port)
        };
        assert_eq!(
            endpoint("api.example.com"),
            ("api.example.com".into(), None)
        );
        assert_eq!(
            endpoint("API.example.com:6443"),
            ("api.example.com".into(), Some(6443))
        );
        assert_eq!(
            endpoint("HTTPS://10.0.0.1:6443/"),
            ("10.0.0.1".into(), Some(6443))
        );
        assert_eq!(endpoint("https://[FD00::1]"), ("fd00::1".into(), None));
        assert_eq!(endpoint("[fd00::1]:6443"), ("fd00::1".into(), Some(6443)));
        assert_eq!(endpoint("fd00::1"), ("fd00::1".into(), None));
        for bad in [
            "http://api.example.com",
            "https://api.example.com/x",
            "https://api.example.com/?x",
            "https://api.example.com#y",
            "https://api.example.com:0",
            "https://api.example.com:99999",
            "10.0.0.0/8",
            "https://10.0.0.0/8",
            "*",
            "*.example.com",
            "https://",
            "",
        ] {
            assert!(!accepted(Kind::Endpoint, bad), "{bad:?}");
        }
        assert_eq!(
            parse_endpoint("10.0.0.0/8").unwrap_err().detail,
            "\"10.0.0.0/8\" is a CIDR block, not an endpoint."
        );
        for secret in [
            "https://admin:s3cret@10.0.0.0/8?x#y",
            "admin:s3cret@api.example.com",
            "https://api.example.com/s3cret@x",
        ] {
            let rejected = parse_endpoint(secret).unwrap_err();
            assert!(!rejected.detail.contains("s3cret"), "{rejected:?}");
        }
    }
}
