//! The data-source path stays linear: callgrind counts the instructions of
//! one in-process ReadDataSource of `clusterproxy_no_proxy` (decode,
//! validation, merge, renderings, plan check, encoding) and of
//! `clusterproxy_no_proxy_report` (the same and the coverage check) with 1k
//! and with 10k installation entries; the 10k call may cost at most 12 times
//! the 1k call. Instructions, not wall time: the count does not depend
//! on the machine's load.

#[path = "support/requests.rs"]
mod support;

use std::process::Command;

use clusterproxy::framework::proto::provider_server::Provider as _;
use clusterproxy::framework::proto::read_data_source;
use clusterproxy::framework::server::ProviderServer;
use clusterproxy::provider::ClusterProxy;
use support::{mixed_entries, read_no_proxy_request_with, read_report_request_with};

/// Set (to the number of entries) in the measured child process only.
const ENTRIES_ENV: &str = "CLUSTERPROXY_LINEAR_ENTRIES";

/// Set in the measured child process when it reads the report.
const REPORT_ENV: &str = "CLUSTERPROXY_LINEAR_REPORT";

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

/// The measured child: one ReadDataSource with `n` entries, of the report
/// when `report`.
fn read_once(n: usize, report: bool) {
    let server = ProviderServer::new(&ClusterProxy);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let request = if report {
        read_report_request_with(&mixed_entries(n), &[])
    } else {
        read_no_proxy_request_with(&mixed_entries(n), &[])
    };
    let response = measured_read(&server, &runtime, request);
    assert!(
        response.diagnostics.is_empty(),
        "{:?}",
        response.diagnostics
    );
    assert!(response.state.is_some());
}

/// Instructions callgrind counted in [`measured_read`] for `n` entries, in
/// the report when `report`.
fn instructions(n: usize, report: bool) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("callgrind.out");
    let run = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg("--toggle-collect=*measured_read*")
        .arg(std::env::current_exe().unwrap())
        .args(["read_data_source_is_linear", "--exact", "--test-threads=1"])
        .env(ENTRIES_ENV, n.to_string())
        .env(REPORT_ENV, if report { "1" } else { "" })
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
        let report = std::env::var(REPORT_ENV).is_ok_and(|v| !v.is_empty());
        return read_once(n.parse().unwrap(), report);
    }
    for (name, report) in [("clusterproxy_no_proxy", false), ("report", true)] {
        let small = instructions(1_000, report);
        let large = instructions(10_000, report);
        let ratio = large as f64 / small as f64;
        println!("{name} instructions: 1k {small}, 10k {large}, ratio {ratio:.2}");
        assert!(small > 1_000_000, "{name}: nothing measured: {small}");
        assert!(
            ratio <= 12.0,
            "{name}: 10k entries cost {ratio:.2} times 1k entries"
        );
    }
}
