//! ReadDataSource of `clusterproxy_no_proxy` on the user's path: the real
//! plugin binary over mTLS, for one typical cluster (the plan benchmark's
//! inputs, `clients` unset and then the eight default clients named) and with
//! 1k, 10k and 100k installation entries (eight clients named); then the
//! same 1k, 10k and 100k in `clusterproxy_no_proxy_report` (the coverage
//! check with the default checks, every client rendered and its remarks).
//! Prints, per case, the wall time of a call (min / median / max), the
//! plugin's CPU time per call and per entry, and the response size. Run with
//! `cargo bench --bench read_data_source`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Instant;

use support::{
    cpu_time as cpu, mixed_entries, read_no_proxy_request_for, read_no_proxy_request_with,
    read_report_request_with, terminate, Plugin,
};

fn main() {
    let mut plugin = Plugin::start();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Terraform accepts messages up to 64 MiB (tonic clients default to 4 MiB).
    let mut client = runtime
        .block_on(plugin.provider())
        .max_decoding_message_size(64 << 20)
        .max_encoding_message_size(64 << 20);
    let pid = plugin.child.id();
    println!("| entries | wall min / median / max | plugin CPU per call | per entry | response |");
    println!("|---|---|---|---|---|");
    let names = clusterproxy::domain::no_proxy::Dialect::default_names();
    let cases = [
        (
            "typical, clients unset",
            3,
            read_no_proxy_request_for(&[], &[], None),
            4_000,
        ),
        (
            "typical, 8 named",
            3,
            read_no_proxy_request_for(&[], &[], Some(names)),
            2_000,
        ),
    ]
    .into_iter()
    .chain([(1_000, 50), (10_000, 20), (100_000, 6)].map(|(n, calls)| {
        let request = read_no_proxy_request_with(&mixed_entries(n), &[]);
        ("", n, request, calls)
    }))
    .chain([(1_000, 50), (10_000, 20), (100_000, 6)].map(|(n, calls)| {
        let request = read_report_request_with(&mixed_entries(n), &[]);
        ("report", n, request, calls)
    }));
    for (label, n, request, calls) in cases {
        let warm = runtime
            .block_on(client.read_data_source(request.clone()))
            .unwrap()
            .into_inner();
        assert!(warm.diagnostics.is_empty(), "{:?}", warm.diagnostics);
        let size = warm.state.map_or(0, |s| s.msgpack.len());
        let mut walls = Vec::with_capacity(calls);
        let before = cpu(pid);
        for _ in 0..calls {
            let started = Instant::now();
            runtime
                .block_on(client.read_data_source(request.clone()))
                .unwrap();
            walls.push(started.elapsed());
        }
        let per_call = (cpu(pid) - before) / calls as u32;
        walls.sort();
        println!(
            "| {n} {label} | {:.2} / {:.2} / {:.2} ms | {:.3} ms | {:.2} µs | {:.3} MiB |",
            walls[0].as_secs_f64() * 1e3,
            walls[calls / 2].as_secs_f64() * 1e3,
            walls[calls - 1].as_secs_f64() * 1e3,
            per_call.as_secs_f64() * 1e3,
            per_call.as_secs_f64() * 1e6 / n as f64,
            size as f64 / (1024.0 * 1024.0),
        );
    }
    drop(client);
    drop(runtime);
    terminate(&mut plugin.child);
}
