//! End-to-end tests, one binary: the provider binary built by cargo, driven
//! by real Terraform 1.15.5, 1.11 and 1.0.3 through the testing cycle of
//! terraform-plugin-testing (validate, plan, apply, empty re-plan, empty
//! refresh-only plan, optional import, destroy), asserting on Terraform's
//! structured output.
//!
//! Terraform binaries come from `CLUSTERPROXY_TF_1_15` (default:
//! `.tools/terraform-1.15.5/terraform`), `CLUSTERPROXY_TF_1_11` (default:
//! `terraform` on PATH) and `CLUSTERPROXY_TF_1_0` (default:
//! `.tools/terraform-1.0.3/terraform`); scripts/install-test-tools installs
//! the two under `.tools/`. Each is looked up, as every tool, when a test
//! first runs it (`tools`): a test that runs on one version needs no other,
//! and a missing one fails the test that needs it with its name. What each
//! version can do and how it behaves is encoded once, in `terraform`
//! (`Capability`, `Terraform::supports`, `for_each_terraform_with`).
//!
//! # The harness
//! `harness` (working directories wired to the provider), `terraform` (the
//! Terraform binaries, their features and behaviour, the plugin transport),
//! `cycle` (the full cycle and import), `diagnostics` (expected
//! diagnostics and bad-input tables), `imports` (failing imports), `secrets`
//! (leak checks), `stored_state` (state files of earlier releases),
//! `examples` (every docs example applied, each example directory's test
//! named), `import_corpus` (the import fixtures and their facts), `plancheck`
//! (assertions on a saved plan) and `oracle` (the real clients of tests/oracle).
//!
//! # Where a test goes
//! One module per area; the module says where, the test's name what:
//! - `provider`: the provider as a whole (the quickstart, one schema per run).
//! - `no_proxy`: `clusterproxy_no_proxy`, `clusterproxy_no_proxy_report` and
//!   the NO_PROXY functions.
//! - `clients`: the client dialects, read back by the real clients.
//! - `inputs`: the inputs every renderer data source shares.
//! - `install`: `terraform init` of the released artifacts (registry, network
//!   and filesystem mirrors; `artifacts` makes them as `make release` does).
//! - `profile`: `clusterproxy_profile`; `identity`: its resource identity
//!   (Terraform >= 1.12); `import`: the importers, every fixture of every kind;
//!   `tcp`: the provider over go-plugin's TCP transport.
//! - `fleet`: the `clusterproxy_profile` list resource and `terraform query`;
//!   `fleet_lifecycle`: `clusterproxy_fleet` and examples/fleet-lifecycle, a
//!   fleet adopted cluster by cluster and its drift check.
//! - Renderer data sources, by who reads the output: `nodes` for what a
//!   node's OS or node agent reads (cloud-init, Ignition, RKE2/k3s, Talos,
//!   kubespray); `clusters` for a cluster-wide object a platform's installer
//!   or an in-cluster controller reads (OpenShift, EKS Anywhere, Kyverno, Helm
//!   values); `render` for what a cluster definition or a workload carries
//!   (systemd drop-ins, CAPI kubeadm, TKG, AKS, pod env) and for behaviour
//!   every renderer shares (credentials Secret, warnings, CA order, the
//!   `render` function).
//!
//! A new platform's example is applied by `examples::every_example_is_applied`
//! with no edit here, and a new importer's fixtures by
//! `import::every_fixture_imports_as_the_domain_reads_it`. A platform's
//! checks of what it renders (parse-back, bad input) go in the first of
//! `nodes`, `clusters`, `render` that fits its output. It gets a
//! module of its own, named after its file in crates/domain/src/render, only
//! for checks no other platform has (a corpus of what the platform reports
//! back, a guide's examples), as `aks` has.

#[path = "../support/artifacts.rs"]
mod artifacts;
mod cycle;
mod diagnostics;
mod examples;
mod harness;
#[path = "../support/import_corpus.rs"]
mod import_corpus;
mod imports;
#[path = "../oracle/mod.rs"]
mod oracle;
mod plancheck;
mod secrets;
#[path = "../support/squid.rs"]
mod squid;
mod stored_state;
mod terraform;
#[path = "../support/tier.rs"]
mod tier;
#[path = "../support/tools.rs"]
mod tools;

mod aks;
mod clients;
mod clusters;
mod fleet;
mod fleet_lifecycle;
mod identity;
mod import;
mod inputs;
mod install;
mod no_proxy;
mod nodes;
mod profile;
mod provider;
mod proxy_check;
mod render;
mod tcp;
mod wire;
