//! How each client decides, from its NO_PROXY setting, whether a destination
//! bypasses the proxy. Each model follows the client's own source and is
//! checked against the real client by the differential tests
//! (tests/oracles/no_proxy_oracles.rs); the version each models is its
//! [`ClientTraits::modelled`].
//!
//! Each model starts from the destination's host as written and normalises it
//! only as its client does (case, trailing dot, IDNA, IPv4-mapped IPv6).
//!
//! Each client is one descriptor: a unit type in its own file implementing
//! [`Client`] (`dialect/client.rs`), which answers every question the merge,
//! the renderings and the coverage check ask: its [`ClientTraits`] literal
//! (the constant answers and the model) and its `impl` both start from what
//! most clients answer ([`ClientTraits::open`], the trait's default
//! methods), so a client states only where it differs. [`CLIENTS`] lists
//! them, one line each; a [`Dialect`] is a handle on one of them, and
//! [`Dialect::all`], [`Dialect::names`], [`Dialect::defaults`] and the
//! client lists of the documentation derive from the list. A client that
//! code names declares its handle at the end of its own file (`Dialect::GO`
//! in `go.rs`). `dialect/shared.rs` holds what several models share.
//!
//! # Adding a client
//! docs/dev/adding-a-client.md: the client's file here, its two lines in
//! this file (`mod <client>;` and its line in [`CLIENTS`]), and its line in
//! the oracle list of tests/oracle/mod.rs (a driver, or a pending entry
//! while the real client cannot run yet); the compiler asks for the `mod`
//! line, `cargo test --lib` for the list's line, the oracle tests for the
//! oracle's, and `make generate` rewrites the pages that list the clients.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use crate::no_proxy::destination::Destination;

mod client;
mod curl;
mod go;
mod httpx;
pub mod java;
mod node;
mod python;
mod requests;
mod reqwest;
mod ruby;
mod shared;
mod undici;
mod wget;

pub use client::{env_forms, Client, ClientTraits, Decides, Decision};
pub use java::JAVA_DEFAULT_NON_PROXY_HOSTS;

/// Every client, one line each, in documentation order (the order of every
/// per-client output; the default set, [`ClientTraits::in_default_set`],
/// is the first eight). A client left out is never asked, and `cargo test
/// --lib` names the line to add
/// (`registries::every_extension_is_on_its_registry_line`).
static CLIENTS: &[&dyn Client] = &[
    &go::Go,
    &curl::Curl,
    &python::Python,
    &requests::Requests,
    &ruby::Ruby,
    &wget::Wget,
    &java::Java,
    &node::Node,
    &undici::Undici,
    &reqwest::Reqwest,
    &httpx::Httpx,
];

/// A client family that reads NO_PROXY in its own way: a handle on one
/// client of [`CLIENTS`], its knowledge its [`Client`] ([`Dialect::client`]).
/// Handles order by the client's place in [`CLIENTS`] and compare and hash
/// by its name; a client that code names declares its handle constant at
/// the end of its own file (`Dialect::GO` in `go.rs`).
#[derive(Clone, Copy)]
pub struct Dialect(&'static dyn Client);

/// The names of [`Dialect::all`].
static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| Dialect::all().map(Dialect::name).collect());

/// The dialects targeted when none are named.
static DEFAULTS: LazyLock<Vec<Dialect>> = LazyLock::new(|| {
    Dialect::all()
        .filter(|d| d.client().traits().in_default_set)
        .collect()
});

/// The names of [`DEFAULTS`].
static DEFAULT_NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| DEFAULTS.iter().map(|d| d.name()).collect());

impl Dialect {
    /// Every dialect, in documentation order (the order of [`CLIENTS`]).
    pub fn all() -> impl ExactSizeIterator<Item = Dialect> + Clone {
        CLIENTS.iter().map(|&client| Dialect(client))
    }

    /// The client's descriptor.
    pub fn client(self) -> &'static dyn Client {
        self.0
    }

    /// The client's place in documentation order (0 for the first listed):
    /// what handles order by.
    pub fn position(self) -> usize {
        let name = self.name();
        CLIENTS
            .iter()
            .position(|c| c.traits().name == name)
            .unwrap_or_else(|| {
                panic!("the client `{name}` is not on `CLIENTS` in crates/domain/src/no_proxy/dialect/mod.rs")
            })
    }

    /// Every dialect name, in the order of [`Dialect::all`].
    pub fn names() -> &'static [&'static str] {
        &NAMES
    }

    /// The clients targeted when none are named ([`ClientTraits::in_default_set`]).
    pub fn defaults() -> &'static [Dialect] {
        &DEFAULTS
    }

    /// The names of [`Dialect::defaults`].
    pub fn default_names() -> &'static [&'static str] {
        &DEFAULT_NAMES
    }

    /// The clients targeted only when named.
    pub fn opt_in() -> impl Iterator<Item = Dialect> {
        Self::all().filter(|d| !d.client().traits().in_default_set)
    }

    /// The name used in configuration (`go`, `curl`, ...).
    pub fn name(self) -> &'static str {
        self.client().traits().name
    }

    /// The dialect called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::all().find(|d| d.name() == name)
    }

    /// `dialects` as Markdown code spans, joined by `, ` and `last` before the
    /// last one, each followed by `(gloss)` where `gloss` gives one.
    pub fn listing(
        dialects: impl IntoIterator<Item = Dialect>,
        last: &str,
        gloss: impl Fn(&dyn Client) -> Option<&'static str>,
    ) -> String {
        let spans: Vec<String> = dialects
            .into_iter()
            .map(|d| match gloss(d.client()) {
                Some(gloss) => format!("`{d}` ({gloss})"),
                None => format!("`{d}`"),
            })
            .collect();
        crate::prose::list(&spans, last)
    }

    /// Whether this client sends a request for `destination` directly (true)
    /// or through the proxy (false), when its setting is `list` (the NO_PROXY
    /// value; for Java the `http.nonProxyHosts` value).
    pub fn bypasses(self, list: &str, destination: &Destination) -> bool {
        self.decide(list, destination) == Decision::Direct
    }

    /// What this client does with a request for `destination` when its
    /// setting is `list`: [`Client::decide_all`] for one destination.
    pub fn decide(self, list: &str, destination: &Destination) -> Decision {
        self.decide_all(list, std::slice::from_ref(destination))[0]
    }

    /// [`Client::decide_all`] of this dialect's client.
    pub fn decide_all(self, list: &str, destinations: &[Destination]) -> Vec<Decision> {
        self.client().decide_all(list, destinations)
    }
}

// Equal and hashed by name (unique in `CLIENTS`, and what `position`
// looks up), so that neither scans the list; ordered by position.
impl PartialEq for Dialect {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Dialect {}

impl PartialOrd for Dialect {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Dialect {
    fn cmp(&self, other: &Self) -> Ordering {
        self.position().cmp(&other.position())
    }
}

impl Hash for Dialect {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl fmt::Debug for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Dialect").field(&self.name()).finish()
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
