//! The [`Client`] trait: everything the merge, the renderings and the
//! coverage check know about one client. Its constant answers, its model
//! ([`ClientTraits::decides`]) included, are one [`ClientTraits`] literal;
//! the answers that depend on an entry or a destination are the trait's
//! methods. Both start from what most clients answer
//! ([`ClientTraits::open`], the methods' defaults): a client states only
//! where it differs.

use std::net::IpAddr;

use ipnet::IpNet;

use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::{Entry, Host};
use crate::no_proxy::forms::{Forms, Remark};

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

/// How a client's model decides a batch of destinations when its setting
/// is `list` (read once; a cancelled computation stops reading it, so its
/// result is incomplete).
#[derive(Debug, Clone, Copy)]
pub enum Decides {
    /// The model says which of the destinations the client does not
    /// refuse whatever its setting ([`Client::refuses`]) go direct (true),
    /// in their order: what most clients need.
    Open(fn(&str, &[&Destination]) -> Vec<bool>),
    /// The model decides every destination itself, for a client whose
    /// setting can make it refuse a URL (httpx refuses every URL when it
    /// cannot read its setting).
    All(fn(&str, &[Destination]) -> Vec<Decision>),
}

/// The answers of a client that do not depend on an entry or a destination.
#[derive(Debug, Clone, Copy)]
pub struct ClientTraits {
    /// The name used in configuration (`go`, `curl`, ...).
    pub name: &'static str,
    /// What the attribute descriptions say after the name (`urllib` for
    /// `python`), if the name alone does not say it.
    pub doc_name: Option<&'static str>,
    /// The implementation and version modelled (the client guide's `Clients:` line).
    pub modelled: &'static str,
    /// True when the client is targeted when none are named (only the eight
    /// of the first release, so that no merged list changes when one is added).
    pub in_default_set: bool,
    /// True when the client reads NO_PROXY (Java reads `http.nonProxyHosts`,
    /// its own rendering).
    pub reads_no_proxy: bool,
    /// The separator between entries of the client's setting.
    pub separator: &'static str,
    /// True when `*` (at least as the whole value) bypasses every destination.
    pub understands_any: bool,
    /// True when the client matches IPv6 literals only in brackets
    /// (`[fd00::1]`), so the shared list needs that form too.
    pub needs_bracketed_ipv6: bool,
    /// True when `name` matches only the name itself, so the shared list needs
    /// `.name` too for its subdomains.
    pub needs_dot_form: bool,
    /// True when `.name` also bypasses `name` itself.
    pub ignores_leading_dot: bool,
    /// True when the client honours `host:port` entries.
    pub supports_ports: bool,
    /// The model: how the client decides a batch ([`Client::decide_all`]).
    pub decides: Decides,
}

impl ClientTraits {
    /// The answers of a client called `name`, modelling `modelled` with the
    /// model `direct` ([`Decides::Open`]), that reads its setting by the
    /// common rules: a client states each field where it differs
    /// (`ClientTraits { supports_ports: false, ..ClientTraits::open(..) }`).
    /// The common rules: NO_PROXY, entries split at `,`, `*` bypasses every
    /// destination, `name` covers its subdomains and `.name` only those,
    /// IPv6 literals without brackets, `host:port` honoured; no gloss after
    /// the name in the docs, and targeted only when named, so that a new
    /// client changes no merged list.
    pub const fn open(
        name: &'static str,
        modelled: &'static str,
        direct: fn(&str, &[&Destination]) -> Vec<bool>,
    ) -> Self {
        Self::common(name, modelled, Decides::Open(direct))
    }

    /// [`ClientTraits::open`] for a client whose model `decide` decides
    /// every destination itself ([`Decides::All`]).
    pub const fn all(
        name: &'static str,
        modelled: &'static str,
        decide: fn(&str, &[Destination]) -> Vec<Decision>,
    ) -> Self {
        Self::common(name, modelled, Decides::All(decide))
    }

    /// The common answers ([`ClientTraits::open`]) with `decides`.
    const fn common(name: &'static str, modelled: &'static str, decides: Decides) -> Self {
        Self {
            name,
            doc_name: None,
            modelled,
            in_default_set: false,
            reads_no_proxy: true,
            separator: ",",
            understands_any: true,
            needs_bracketed_ipv6: false,
            needs_dot_form: false,
            ignores_leading_dot: false,
            supports_ports: true,
            decides,
        }
    }
}

/// One client that reads a NO_PROXY-like setting in its own way. Only
/// [`Client::traits`] has no default; every other method answers as most
/// clients do, and a client overrides the ones where it differs.
pub trait Client: Sync {
    /// What the client always answers: one [`ClientTraits`] literal per
    /// client, on [`ClientTraits::open`] (or [`ClientTraits::all`]), whose
    /// arguments are the answers no two clients share.
    fn traits(&self) -> &'static ClientTraits;

    /// True when a CIDR entry of the family (`ipv6`) covers IP-literal
    /// destinations in this client. Default: no CIDR entries at all.
    fn matches_cidr(&self, _ipv6: bool) -> bool {
        false
    }

    /// True when the block `cover` may replace the narrower block `net` in the
    /// merged list: the client expresses `cover` whenever it expresses `net`.
    /// Default: always (a client that writes blocks only in some sizes, as
    /// Java, says which).
    fn keeps_cover(&self, _cover: &IpNet, _net: &IpNet) -> bool {
        true
    }

    /// True when `entry` in the client's NO_PROXY value makes it reject the
    /// whole value, so that every request fails. Default: no entry does.
    fn rejects_whole_setting(&self, _entry: &str) -> bool {
        false
    }

    /// True when the client rejects the URL of `destination` whatever its
    /// setting. Default: it takes every URL.
    fn refuses(&self, _destination: &Destination) -> bool {
        false
    }

    /// What the client does with a request for each of `destinations` (in
    /// their order) when its setting is `list`, by its model
    /// ([`ClientTraits::decides`]); no client overrides it.
    fn decide_all(&self, list: &str, destinations: &[Destination]) -> Vec<Decision> {
        match self.traits().decides {
            Decides::Open(direct) => decide_open(self, list, destinations, direct),
            Decides::All(decide) => decide(list, destinations),
        }
    }

    /// Appends the texts `entry` (whose canonical text is `text`) becomes in
    /// the client's setting to `out`; returns the remark when its meaning
    /// changes. Default: [`env_forms`], the forms of a client that reads
    /// NO_PROXY by the common rules its [`ClientTraits`] describe.
    fn forms<'m>(&self, entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
        env_forms(self, entry, text, out)
    }
}

/// [`Decides::Open`]: the destinations `client` refuses are
/// [`Decision::Refused`], the others as `direct` decides them.
fn decide_open<C: Client + ?Sized>(
    client: &C,
    list: &str,
    destinations: &[Destination],
    direct: fn(&str, &[&Destination]) -> Vec<bool>,
) -> Vec<Decision> {
    let refused: Vec<bool> = destinations.iter().map(|d| client.refuses(d)).collect();
    let open: Vec<&Destination> = destinations
        .iter()
        .zip(&refused)
        .filter(|(_, refused)| !**refused)
        .map(|(d, _)| d)
        .collect();
    let mut direct = direct(list, &open).into_iter();
    refused
        .into_iter()
        .map(|refused| {
            if refused {
                Decision::Refused
            } else if direct.next() == Some(true) {
                Decision::Direct
            } else {
                Decision::Proxy
            }
        })
        .collect()
}

/// The forms of a client that reads NO_PROXY by the common rules, from its
/// [`ClientTraits::supports_ports`], [`ClientTraits::needs_bracketed_ipv6`],
/// [`ClientTraits::needs_dot_form`] and [`ClientTraits::ignores_leading_dot`]
/// and its [`Client::matches_cidr`]: the default [`Client::forms`], which a
/// client that words a few entries its own way calls for the others.
pub fn env_forms<'m, C: Client + ?Sized>(
    client: &C,
    entry: &'m Entry,
    text: &'m str,
    out: &mut Forms<'m>,
) -> Option<Remark> {
    let traits = client.traits();
    let port = entry.port.filter(|_| traits.supports_ports);
    let port_note = (port != entry.port).then_some(Remark::PortsIgnored);
    let text = if port.is_none() {
        entry.host_text(text)
    } else {
        text
    };
    let remark = match &entry.host {
        Host::Cidr(net) => {
            if !client.matches_cidr(matches!(net, IpNet::V6(_))) {
                return Some(Remark::NoCidr);
            }
            out.push(text);
            None
        }
        Host::Ip(IpAddr::V6(_)) => {
            match (traits.needs_bracketed_ipv6, port) {
                // `[v6]:port` is the canonical text with a port.
                (true, Some(_)) => out.push(text),
                (true, None) => out.build(&["[", text, "]"]),
                // The address without brackets, whatever the port.
                (false, Some(_)) => out.push(entry.host_text(text)),
                (false, None) => out.push(text),
            }
            None
        }
        Host::Ip(_) => {
            out.push(text);
            None
        }
        Host::Domain {
            subdomains_only, ..
        } => {
            out.push(text);
            if traits.needs_dot_form && !subdomains_only {
                out.build(&[".", text]);
            }
            (traits.ignores_leading_dot && *subdomains_only).then_some(Remark::LeadingDotIgnored)
        }
        Host::Any => {
            out.push("*");
            None
        }
    };
    remark.or(port_note)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::dialect::CLIENTS;

    /// The common answers a client starts from ([`ClientTraits::open`], the
    /// [`Client`] methods' defaults) are what most clients answer, so that each
    /// states only where it differs. Not so `doc_name` and `in_default_set`,
    /// which default to their absence: no gloss, and not targeted unless named.
    #[test]
    fn defaults_are_what_most_clients_answer() {
        fn none_direct(_list: &str, destinations: &[&Destination]) -> Vec<bool> {
            vec![false; destinations.len()]
        }
        /// A client of the common answers only.
        struct Common;
        const COMMON: ClientTraits = ClientTraits::open("common", "common", none_direct);
        impl Client for Common {
            fn traits(&self) -> &'static ClientTraits {
                &COMMON
            }
        }
        /// One answer of a client, as text.
        type Answer = fn(&dyn Client) -> String;
        let answers: [(&str, Answer); 10] = [
            ("reads_no_proxy", |c| c.traits().reads_no_proxy.to_string()),
            ("separator", |c| c.traits().separator.to_owned()),
            ("understands_any", |c| {
                c.traits().understands_any.to_string()
            }),
            ("needs_bracketed_ipv6", |c| {
                c.traits().needs_bracketed_ipv6.to_string()
            }),
            ("needs_dot_form", |c| c.traits().needs_dot_form.to_string()),
            ("ignores_leading_dot", |c| {
                c.traits().ignores_leading_dot.to_string()
            }),
            ("supports_ports", |c| c.traits().supports_ports.to_string()),
            ("matches_cidr", |c| {
                format!("{} {}", c.matches_cidr(false), c.matches_cidr(true))
            }),
            ("rejects_whole_setting", |c| {
                c.rejects_whole_setting("[fd00::1]").to_string()
            }),
            ("refuses", |c| {
                let zoned = Destination::parse("http://[fe80::1%25eth0]/").unwrap();
                c.refuses(&zoned).to_string()
            }),
        ];
        let minority: Vec<String> = answers
            .iter()
            .filter_map(|(name, answer)| {
                let agree = CLIENTS
                    .iter()
                    .filter(|c| answer(**c) == answer(&Common))
                    .count();
                (2 * agree <= CLIENTS.len())
                    .then(|| format!("{name}: {agree} of {}", CLIENTS.len()))
            })
            .collect();
        assert!(
            minority.is_empty(),
            "defaults most clients do not answer: {minority:?}"
        );
        assert!(!COMMON.in_default_set && COMMON.doc_name.is_none());
    }
}
