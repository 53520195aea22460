//! The integration tests that need no real client and no Terraform, one
//! binary (as cargo's own `tests/testsuite`): the provider in process
//! (`server`, `docs`, `linear`), the plugin binary over gRPC (`grpc`,
//! `fleet_cancel`: hostile fleet walks that must stop,
//! `plugin_host`), the NO_PROXY merge's properties (`no_proxy_*`), the release
//! script (`release`), the crates' import graph (`module_graph`) and the
//! docs' links and named paths (`links`), the compatibility guide and the
//! docs' version claims (`compatibility`), and the unit tests' needs
//! (`unit_tests`: no external program).
//!
//! Run one module with `cargo nextest run --test suite -E 'test(/^docs::/)'`
//! (or `cargo test --test suite docs::`). The other binaries: `tests/oracles`
//! (real clients and consumers' schemas and parsers) and `tests/e2e` (real
//! Terraform). A tool a test runs is looked up when the test first runs it
//! (`tools`): a missing one fails that test, naming the tool and how to get it.

#[path = "../support/artifacts.rs"]
mod artifacts;
#[path = "../support/sources.rs"]
mod sources;
#[path = "../support/mod.rs"]
mod support;
#[path = "../support/tier.rs"]
mod tier;
#[path = "../support/tools.rs"]
mod tools;

mod compatibility;
mod docs;
mod fleet_cancel;
mod grpc;
mod identity;
mod linear;
mod links;
mod module_graph;
mod no_proxy_batch;
mod no_proxy_order;
mod no_proxy_properties;
mod plugin_host;
mod release;
mod server;
mod unit_tests;
