//! The [`Client`] trait: everything the merge, the renderings and the
//! coverage check know about one client: its constant answers in one
//! [`ClientTraits`] literal, the answers that depend on an entry or a
//! destination as methods. Nothing has a default, so a client that leaves a
//! question unanswered does not compile.

use ipnet::IpNet;

use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::Entry;
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
}

/// One client that reads a NO_PROXY-like setting in its own way.
pub trait Client: Sync {
    /// What the client always answers: one struct literal per client, so
    /// that the compiler names a field a new client leaves out.
    fn traits(&self) -> &'static ClientTraits;

    /// True when a CIDR entry of the family (`ipv6`) covers IP-literal
    /// destinations in this client.
    fn matches_cidr(&self, ipv6: bool) -> bool;

    /// True when the block `cover` may replace the narrower block `net` in the
    /// merged list: the client expresses `cover` whenever it expresses `net`.
    fn keeps_cover(&self, cover: &IpNet, net: &IpNet) -> bool;

    /// True when `entry` in the client's NO_PROXY value makes it reject the
    /// whole value, so that every request fails.
    fn rejects_whole_setting(&self, entry: &str) -> bool;

    /// True when the client rejects the URL of `destination` whatever its setting.
    fn refuses(&self, destination: &Destination) -> bool;

    /// What the client does with a request for each of `destinations` (in
    /// their order) when its setting is `list` (read once; a cancelled
    /// computation stops reading it, so its result is incomplete).
    fn decide_all(&self, list: &str, destinations: &[Destination]) -> Vec<Decision>;

    /// Appends the texts `entry` (whose canonical text is `text`) becomes in
    /// the client's setting to `out`; returns the remark when its meaning changes.
    fn forms<'m>(&self, entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark>;
}
