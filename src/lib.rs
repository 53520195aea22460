//! terraform-provider-clusterproxy: a Terraform provider that merges NO_PROXY
//! lists and renders HTTP(S) proxy settings for Kubernetes clusters.
//!
//! Three layers, each its own crate of the workspace, so an import the wrong
//! way does not compile:
//! - [`domain`] (`crates/domain`): pure proxy knowledge (NO_PROXY, proxy
//!   URLs, renderers, importers); no Terraform types.
//! - [`framework`] (`crates/framework`): the Terraform plugin protocol
//!   (handshake, values, schema, server); no proxy knowledge.
//! - [`provider`] (this crate): the thin layer that maps the domain onto the
//!   framework.
//!
//! [`artifacts`] (`crates/artifacts`) is the I/O beside the framework: it
//! reads artifact files and walks a fleet's directory, handing the domain
//! names and text.
//!
//! `clusterproxy-cancel` (`crates/cancel`) is a leaf both lower layers use:
//! the framework cancels a request's computation, the domain's long loops look
//! at the flag.

pub use clusterproxy_artifacts as artifacts;
pub use clusterproxy_domain as domain;
pub use clusterproxy_framework as framework;
pub use clusterproxy_framework::{model, object};

pub mod provider;

#[cfg(test)]
mod registries;

/// The contributor guides under `docs/dev/`: their Rust code blocks compile
/// and run as doctests of this crate (`cargo test --doc`), so that they
/// follow the API they describe.
#[cfg(doctest)]
pub mod guides {
    #[doc = include_str!("../docs/dev/adding-a-renderer.md")]
    pub struct AddingARenderer;

    #[doc = include_str!("../docs/dev/adding-an-importer.md")]
    pub struct AddingAnImporter;

    #[doc = include_str!("../docs/dev/adding-a-client.md")]
    pub struct AddingAClient;
}
