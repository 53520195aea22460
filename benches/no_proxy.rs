//! Merge throughput for 1k, 10k and 100k mixed entries (host names, domains,
//! addresses, CIDR blocks, ports), for all clients and for go only with
//! aggregation. First prints the CPU time of one merge (all clients) per size,
//! min / median / max and per entry, which the machine's load does not
//! inflate as it does wall time; then runs criterion. Run with `make bench`
//! (or `cargo bench --bench no_proxy`).

// criterion_group! generates a public function without a doc comment.
#![allow(missing_docs)]

#[path = "../tests/support/requests.rs"]
mod requests;

use clusterproxy::domain::no_proxy::{merge, Dialect, MergeOptions, Source};
use std::hint::black_box;
use std::time::Duration;

use clusterproxy::domain::InputField;
use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use requests::mixed_entries;

fn bench_merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge");
    group.sample_size(10);
    let go_only = MergeOptions {
        targets: [Dialect::GO].into_iter().collect(),
        aggregate_cidrs: true,
    };
    for n in [1_000, 10_000, 100_000] {
        let sources = [Source::list(InputField::Installation, mixed_entries(n))];
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("all_clients", n), &sources, |b, s| {
            b.iter(|| merge(s, &MergeOptions::default()).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("go_aggregated", n), &sources, |b, s| {
            b.iter(|| merge(s, &go_only).unwrap())
        });
    }
    group.finish();
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for clock_gettime to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// The CPU time of one merge with all clients, per size.
fn cpu_table() {
    println!("| entries | CPU per merge, min / median / max | per entry (median) |");
    println!("|---|---|---|");
    for (n, reps) in [(1_000, 200), (10_000, 30), (100_000, 7)] {
        let sources = [Source::list(InputField::Installation, mixed_entries(n))];
        let mut times: Vec<Duration> = (0..reps)
            .map(|_| {
                let started = thread_cpu();
                black_box(merge(&sources, &MergeOptions::default()).unwrap());
                thread_cpu() - started
            })
            .collect();
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "| {n} | {:.2} / {:.2} / {:.2} ms | {:.3} µs |",
            ms(times[0]),
            ms(times[reps / 2]),
            ms(times[reps - 1]),
            ms(times[reps / 2]) * 1e3 / n as f64,
        );
    }
}

criterion_group!(benches, bench_merge);

fn main() {
    cpu_table();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
