//! terraform-provider-clusterproxy: a Terraform provider that merges NO_PROXY
//! lists and renders HTTP(S) proxy settings for Kubernetes clusters.
//!
//! Three layers, each its own module tree:
//! - [`domain`]: pure proxy knowledge (NO_PROXY, proxy URLs, renderers,
//!   importers); no Terraform types.
//! - [`framework`]: the Terraform plugin protocol (handshake, values, schema,
//!   server); no proxy knowledge.
//! - [`provider`]: the thin layer that maps the domain onto the framework.
//!
//! [`cancel`] is a leaf both lower layers use: the framework cancels a
//! request's computation, the domain's long loops look at the flag.

pub mod cancel;
pub mod domain;
pub mod framework;
pub mod provider;
