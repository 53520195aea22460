//! The data-source path stays linear: callgrind counts the instructions of
//! one in-process ReadDataSource of `clusterproxy_no_proxy` (decode,
//! validation, merge, coverage check, renderings, plan check, encoding) with
//! 1k and with 10k installation entries; the 10k call may cost at most 12
//! times the 1k call. Instructions, not wall time: the count does not depend
//! on the machine's load.

#[path = "support/requests.rs"]
mod support;

use std::process::Command;

use clusterproxy::framework::proto::provider_server::Provider as _;
use clusterproxy::framework::proto::read_data_source;
use clusterproxy::framework::server::ProviderServer;
use clusterproxy::provider::ClusterProxy;
use support::{mixed_entries, read_no_proxy_request_with};

/// Set (to the number of entries) in the measured child process only.
const ENTRIES_ENV: &str = "CLUSTERPROXY_LINEAR_ENTRIES";

/// The one call callgrind counts (`--toggle-collect`).
#[inline(never)]
fn measured_read(
    server: &ProviderServer,
    runtime: &tokio::runtime::Runtime,
    request: read_data_source::Request,
) -> read_data_source::Response {
    runtime
        .block_on(server.read_data_source(tonic::Request::new(request)))
        .unwrap()
        .into_inner()
}

/// The measured child: one ReadDataSource with `n` entries.
fn read_once(n: usize) {
    let server = ProviderServer::new(&ClusterProxy);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let request = read_no_proxy_request_with(&mixed_entries(n), &[]);
    let response = measured_read(&server, &runtime, request);
    assert!(
        response.diagnostics.is_empty(),
        "{:?}",
        response.diagnostics
    );
    assert!(response.state.is_some());
}

/// Instructions callgrind counted in [`measured_read`] for `n` entries.
fn instructions(n: usize) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("callgrind.out");
    let run = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg("--toggle-collect=*measured_read*")
        .arg(std::env::current_exe().unwrap())
        .args(["read_data_source_is_linear", "--exact", "--test-threads=1"])
        .env(ENTRIES_ENV, n.to_string())
        .output()
        .expect("valgrind (scripts/install-test-tools installs it)");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let profile = std::fs::read_to_string(&out).unwrap();
    profile
        .lines()
        .find_map(|l| {
            l.strip_prefix("totals:")
                .or_else(|| l.strip_prefix("summary:"))
        })
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("a totals line")
}

#[test]
fn read_data_source_is_linear() {
    if let Ok(n) = std::env::var(ENTRIES_ENV) {
        // This process is the measured child.
        return read_once(n.parse().unwrap());
    }
    let small = instructions(1_000);
    let large = instructions(10_000);
    let ratio = large as f64 / small as f64;
    println!("instructions: 1k {small}, 10k {large}, ratio {ratio:.2}");
    assert!(small > 1_000_000, "nothing measured: {small}");
    assert!(
        ratio <= 12.0,
        "10k entries cost {ratio:.2} times 1k entries"
    );
}
