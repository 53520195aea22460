//! Merge throughput for 1k, 10k and 100k mixed entries (host names, domains,
//! addresses, CIDR blocks, ports), for all clients and for go only with
//! aggregation. Run with `make bench` (or `cargo bench --bench no_proxy`).

// criterion_group! generates a public function without a doc comment.
#![allow(missing_docs)]

use clusterproxy::domain::no_proxy::{merge, Dialect, MergeOptions, Source};
use clusterproxy::domain::Field;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// `n` distinct mixed entries, deterministic.
fn entries(n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let (a, b, c) = ((i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff);
            match i % 6 {
                0 => format!("host-{i}.team-{}.corp.example", i % 97),
                1 => format!(".zone-{i}.example"),
                2 => format!("10.{a}.{b}.{c}"),
                3 => format!("172.{}.{b}.0/24", 16 + a % 16),
                4 => format!("fd00:{a:x}:{b:x}::{c:x}"),
                _ => format!("svc-{i}.corp.example:{}", 1024 + i % 1000),
            }
        })
        .collect()
}

fn bench_merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge");
    group.sample_size(10);
    let go_only = MergeOptions {
        targets: [Dialect::Go].into_iter().collect(),
        aggregate_cidrs: true,
    };
    for n in [1_000, 10_000, 100_000] {
        let sources = [Source::list(Field::Installation, entries(n))];
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
