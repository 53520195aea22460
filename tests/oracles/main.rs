//! The integration tests whose verdicts come from real programs other than
//! Terraform, one binary: the NO_PROXY models against the real clients
//! (`no_proxy_oracles`, drivers in tests/oracle), the importers' corpus, whose
//! bypass check asks the same clients (`import_fixtures`), and the renderings
//! against their consumers' published schemas and parsers
//! (`upstream_schemas`) and run by the programs that consume them: a shell,
//! systemd, cloud-init, ignition-validate, PyYAML, a node's trust store update
//! (`render_tools`). The clients and tools come from
//! scripts/install-test-tools.
//!
//! Run one module with `cargo nextest run --test oracles -E
//! 'test(/^upstream_schemas::/)'`. A tool a test runs is looked up when the
//! test first runs it (`tools`): a missing one fails that test, naming the
//! tool and how to get it.

#[path = "../oracle/mod.rs"]
mod oracle;
#[path = "../support/systemd.rs"]
mod systemd;
#[path = "../support/tools.rs"]
mod tools;

mod import_fixtures;
mod no_proxy_oracles;
mod render_tools;
mod upstream_schemas;
