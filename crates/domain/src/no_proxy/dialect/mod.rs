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
//! methods), so a client states only where it differs. The `registry!`
//! below declares
//! [`Dialect`] and maps each variant to its descriptor; [`Dialect::ALL`],
//! [`Dialect::names`] and [`Dialect::defaults`] derive from it, and so do the
//! client lists of the documentation. `dialect/shared.rs` holds what several
//! models share.
//!
//! # Adding a client
//! docs/dev/adding-a-client.md: the client's file here, its two lines in
//! this file (`mod <client>;` and its `registry!` line), and its line in the
//! oracle list of tests/oracle/mod.rs (a driver, or a pending entry while the
//! real client cannot run yet); the compiler asks for each, and `make
//! generate` rewrites the pages that list the clients.

use std::fmt;
use std::sync::LazyLock;

use crate::no_proxy::destination::Destination;

// The clients' modules stay outside `registry!`: rustfmt does not follow
// modules declared inside a macro call, so it would leave their files
// unformatted.
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

/// Declares [`Dialect`] with one variant per registered client, in order,
/// [`Dialect::ALL`] and [`Dialect::client`].
macro_rules! registry {
    ($( $(#[$doc:meta])* $variant:ident => $client:expr, )*) => {
        /// A client family that reads NO_PROXY in its own way; its knowledge
        /// is its [`Client`] ([`Dialect::client`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Dialect {
            $( $(#[$doc])* $variant, )*
        }

        impl Dialect {
            /// Every dialect, in documentation order (the order of every
            /// per-client output).
            pub const ALL: [Dialect; [$(stringify!($variant)),*].len()] = [$(Dialect::$variant),*];

            /// The client's descriptor.
            pub fn client(self) -> &'static dyn Client {
                match self {
                    $( Dialect::$variant => &$client, )*
                }
            }
        }
    };
}

registry! {
    /// Go's net/http (containerd, kubelet, most operators).
    Go => go::Go,
    /// curl and libcurl >= 7.86.
    Curl => curl::Curl,
    /// Python's urllib.
    Python => python::Python,
    /// Python requests (urllib plus IPv4 CIDRs and a raw suffix match).
    Requests => requests::Requests,
    /// Ruby's URI / Net::HTTP.
    Ruby => ruby::Ruby,
    /// GNU wget.
    Wget => wget::Wget,
    /// Java: `http.nonProxyHosts`, not NO_PROXY.
    Java => java::Java,
    /// Node.js proxy-from-env (axios, npm, ...).
    Node => node::Node,
    /// Node's fetch through undici's `EnvHttpProxyAgent` (undici >= 6.14).
    Undici => undici::Undici,
    /// Rust reqwest 0.12's system proxy (hyper-util's `client::proxy::matcher`).
    Reqwest => reqwest::Reqwest,
    /// Python httpx 0.28 (`httpx.Client()` reading the environment).
    Httpx => httpx::Httpx,
}

/// The names of [`Dialect::ALL`].
static NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| Dialect::ALL.iter().map(|d| d.name()).collect());

/// The dialects targeted when none are named.
static DEFAULTS: LazyLock<Vec<Dialect>> = LazyLock::new(|| {
    Dialect::ALL
        .into_iter()
        .filter(|d| d.client().traits().in_default_set)
        .collect()
});

/// The names of [`DEFAULTS`].
static DEFAULT_NAMES: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| DEFAULTS.iter().map(|d| d.name()).collect());

impl Dialect {
    /// Every dialect name, in the order of [`Dialect::ALL`].
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
        Self::ALL
            .into_iter()
            .filter(|d| !d.client().traits().in_default_set)
    }

    /// The name used in configuration (`go`, `curl`, ...).
    pub fn name(self) -> &'static str {
        self.client().traits().name
    }

    /// The dialect called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
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

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
