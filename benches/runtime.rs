//! Runtime benchmark of the real plugin binary: spawn-to-handshake time with
//! AutoMTLS, one ReadDataSource round trip over mTLS, and (printed) the idle
//! resident memory after a call. Run with `cargo bench --bench runtime`.

// criterion_group! generates a public function without a doc comment.
#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use support::{read_no_proxy_request, terminate, terraform_like_client_cert, Plugin};

fn handshake(c: &mut Criterion) {
    // Terraform makes its client certificate once per run, not per plugin start.
    let client = terraform_like_client_cert();
    c.bench_function("spawn_to_handshake_mtls", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let started = Instant::now();
                let mut plugin = Plugin::start_with(&client);
                total += started.elapsed();
                terminate(&mut plugin.child);
            }
            total
        })
    });
}

/// A memory figure of `pid` in KiB from /proc/<pid>/status (`VmRSS`,
/// `RssAnon`, `RssFile`).
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn round_trip(c: &mut Criterion) {
    let mut plugin = Plugin::start();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut client = runtime.block_on(plugin.provider());
    let request = read_no_proxy_request();
    runtime
        .block_on(client.read_data_source(request.clone()))
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let pid = plugin.child.id();
    let rss = status_kib(pid, "VmRSS");
    // File-backed pages (the binary's code and libc, shared with the page
    // cache) vary with how the kernel cached the file; anonymous pages are
    // the plugin's own allocations and stacks.
    println!(
        "idle RSS after one ReadDataSource: {rss} KiB ({:.1} MiB): anonymous {} KiB, file-backed {} KiB",
        rss as f64 / 1024.0,
        status_kib(pid, "RssAnon"),
        status_kib(pid, "RssFile"),
    );
    c.bench_function("read_data_source_round_trip_mtls", |b| {
        b.iter(|| {
            runtime
                .block_on(client.read_data_source(request.clone()))
                .unwrap()
        })
    });
    // Close the connection first, as Terraform does, so the plugin stops at
    // once rather than after its shutdown grace period.
    drop(client);
    drop(runtime);
    terminate(&mut plugin.child);
}

criterion_group!(benches, handshake, round_trip);
criterion_main!(benches);
