//! Merge throughput for 1k, 10k and 100k mixed entries (host names, domains,
//! addresses, CIDR blocks, ports), for all clients and for go only with
//! aggregation. Run with `make bench` (or `cargo bench --bench no_proxy`).

// criterion_group! generates a public function without a doc comment.
#![allow(missing_docs)]

#[path = "../tests/support/requests.rs"]
mod requests;

use clusterproxy::domain::no_proxy::{merge, Dialect, MergeOptions, Source};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use requests::mixed_entries;

fn bench_merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge");
    group.sample_size(10);
    let go_only = MergeOptions {
        targets: [Dialect::Go].into_iter().collect(),
        aggregate_cidrs: true,
    };
    for n in [1_000, 10_000, 100_000] {
        let sources = [Source::list("installation", mixed_entries(n))];
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

criterion_group!(benches, bench_merge);
criterion_main!(benches);
