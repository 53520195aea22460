//! Terraform plugin framework: go-plugin host, protocol-6 server, typed
//! values, schema and diagnostics. Knows nothing about proxies.

pub mod action;
pub mod data_source;
pub mod diagnostics;
pub mod docs;
pub mod ephemeral_resource;
pub mod function;
pub mod identity;
pub mod list_resource;
pub mod logging;
pub mod model;
pub mod planning;
pub mod plugin;
pub mod proto;
pub mod provider;
pub mod registry;
pub mod resource;
pub mod schema;
pub mod server;
pub mod value;
