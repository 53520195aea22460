//! Hostile fleet walks stop: 1 and 50 `clusterproxy_profile` ListResource
//! streams the client drops, StopProvider during 1 and 50 such streams, 1
//! and 50 `clusterproxy_fleet` reads the client drops, and StopProvider
//! during such a read. The tree, made once for every test, is 40,000
//! files in 40 directories and the configuration 100 excludes of 240 and
//! more characters that every file's name keeps alive to their end, so an
//! uncancelled walk matches globs for minutes. The bounds are on the
//! plugin's CPU time after the cancellation (at most 0.5 s, where it was
//! burning both cores) and on when a stream ends, with wide margins: bound
//! checks of hostile cases, not benchmarks.

use crate::support;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use clusterproxy::framework::proto::provider_client::ProviderClient;
use clusterproxy::framework::proto::{
    list_resource, read_data_source, stop_provider, Diagnostic, DynamicValue,
};
use clusterproxy::framework::schema::Schema;
use clusterproxy::framework::server::guard::INLINE_LIMIT;
use clusterproxy::framework::server::Server;
use clusterproxy::framework::value::{msgpack, Value};
use clusterproxy::provider::ClusterProxy;
use prost::Message as _;
use support::{cpu_time, terminate, Plugin};
use tonic::transport::Channel;

/// Files in the walked directory.
const FILES: usize = 40_000;

/// Excludes in the configuration.
const EXCLUDES: usize = 100;

/// Excludes in a small fleet read's configuration: a request of at most
/// [`INLINE_LIMIT`] bytes, which runs on the worker that received it unless
/// its read runs long, and a walk still slow.
const SMALL_EXCLUDES: usize = 60;

/// Most CPU time the plugin may spend after a cancellation.
const AFTER_CANCEL: Duration = Duration::from_millis(500);

/// How long after a cancellation a stream or a read has ended.
const ENDED_WITHIN: Duration = Duration::from_secs(1);

/// Files in each directory of the tree.
const PER_DIRECTORY: usize = 1_000;

/// The hostile tree: [`FILES`] files in directories of [`PER_DIRECTORY`]
/// (listing a directory is quick, what follows is not), each named by a run
/// of `a`s and its number (no artifact: nothing is ever listed, so a walk
/// that only looks at its stream when it sends never looks).
///
/// Made once for every test, of this process and of the others (nextest
/// runs each test in a process of its own), and kept between runs, under
/// Cargo's temporary directory for integration tests: it is built beside
/// its place and renamed into it, so that tests that start together find
/// it whole, the one that comes second dropping its own.
fn tree() -> &'static Path {
    static TREE: OnceLock<PathBuf> = OnceLock::new();
    TREE.get_or_init(|| {
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let tree = tmp.join(format!("fleet-cancel-{FILES}-{PER_DIRECTORY}"));
        if !tree.exists() {
            let building = tempfile::tempdir_in(tmp).unwrap();
            let run = "a".repeat(120);
            for d in 0..FILES / PER_DIRECTORY {
                let sub = building.path().join(format!("d{d}"));
                std::fs::create_dir(&sub).unwrap();
                for i in 0..PER_DIRECTORY {
                    std::fs::write(sub.join(format!("{run}{i}.txt")), "x: 1\n").unwrap();
                }
            }
            // Fails when another test's tree took the place first.
            let _ = std::fs::rename(building.path(), &tree);
        }
        tree
    })
}

/// `count` globs that match no file of [`tree`], each only found out at
/// its end.
fn excludes(count: usize) -> Vec<Value> {
    (0..count)
        .map(|i| Value::string(format!("{}*a{i:02}z*", "*a".repeat(120))))
        .collect()
}

/// `schema`'s configuration over `directory` with `excludes` hostile
/// excludes, every other argument null, encoded.
fn config(schema: &Schema, directory: &Path, excludes: usize) -> Option<DynamicValue> {
    let mut config = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    config.set_attr("directory", Value::string(directory.display().to_string()));
    config.set_attr("exclude", Value::list(self::excludes(excludes)));
    Some(DynamicValue {
        msgpack: msgpack::encode(&config, &schema.object_type()).unwrap(),
        json: Vec::new(),
    })
}

fn list_request(directory: &Path) -> list_resource::Request {
    let server = Server::new(&ClusterProxy);
    let schema = &server.registry().list_resources()["clusterproxy_profile"].schema;
    list_resource::Request {
        type_name: "clusterproxy_profile".into(),
        config: config(schema, directory, EXCLUDES),
        include_resource_object: false,
        limit: 100,
    }
}

fn read_request(directory: &Path, excludes: usize) -> read_data_source::Request {
    let server = Server::new(&ClusterProxy);
    let schema = &server.registry().data_sources()["clusterproxy_fleet"].schema;
    read_data_source::Request {
        type_name: "clusterproxy_fleet".into(),
        config: config(schema, directory, excludes),
        ..Default::default()
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Waits until the plugin has spent `cpu` of CPU time more than `since`
/// (its start-up's, before the walks), at most 60 s.
fn wait_until_busy(plugin: &Plugin, since: Duration, cpu: Duration) {
    let started = Instant::now();
    while cpu_time(plugin.child.id()) < since + cpu {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the plugin never got busy"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The CPU time the plugin spends from now over the next 2 s (a walk that
/// goes on burns a core and more in it).
fn cpu_over_two_seconds(plugin: &Plugin) -> Duration {
    let before = cpu_time(plugin.child.id());
    std::thread::sleep(Duration::from_secs(2));
    cpu_time(plugin.child.id()).saturating_sub(before)
}

/// `streams` ListResource streams over the tree, each answered (so that
/// the plugin runs its listing) and then read to its end.
async fn start_streams(
    client: ProviderClient<Channel>,
    directory: &Path,
    streams: usize,
) -> Vec<Reader> {
    let answered: Vec<_> = (0..streams)
        .map(|_| {
            let mut client = client.clone();
            let request = list_request(directory);
            tokio::spawn(async move { client.list_resource(request).await })
        })
        .collect();
    let mut reading = Vec::new();
    for answer in answered {
        let mut stream = answer.await.unwrap().unwrap().into_inner();
        reading.push(tokio::spawn(async move {
            let mut events = Vec::new();
            while let Some(event) = stream.message().await? {
                events.push(event);
            }
            Ok(events)
        }));
    }
    reading
}

/// A stream's reader: the events up to its end.
type Reader = Call<Result<Vec<list_resource::Event>, tonic::Status>>;

/// A call's answer, from the plugin (the events of a stream, a read's
/// response).
type Call<T> = tokio::task::JoinHandle<T>;

/// `reads` `clusterproxy_fleet` reads over the tree with `excludes`
/// excludes, each awaiting its answer.
fn start_reads(
    client: ProviderClient<Channel>,
    directory: &Path,
    reads: usize,
    excludes: usize,
) -> Vec<Call<Result<tonic::Response<read_data_source::Response>, tonic::Status>>> {
    (0..reads)
        .map(|_| {
            let mut client = client.clone();
            let request = read_request(directory, excludes);
            tokio::spawn(async move { client.read_data_source(request).await })
        })
        .collect()
}

/// A plugin, its runtime and client, and the calls `start` made over the
/// tree, whose walks have run for a moment (0.6 s of the plugin's CPU).
fn walking<T, F: Future<Output = Vec<Call<T>>>>(
    start: impl FnOnce(ProviderClient<Channel>, &'static Path) -> F,
) -> (
    Plugin,
    tokio::runtime::Runtime,
    ProviderClient<Channel>,
    Vec<Call<T>>,
) {
    let dir = tree();
    let plugin = Plugin::start_on("unix");
    let runtime = runtime();
    let client = runtime.block_on(plugin.provider());
    let idle = cpu_time(plugin.child.id());
    let calls = runtime.block_on(start(client.clone(), dir));
    wait_until_busy(&plugin, idle, Duration::from_millis(600));
    (plugin, runtime, client, calls)
}

/// The client drops the `what` calls `start` made while their walks run:
/// the plugin stops walking (at most [`AFTER_CANCEL`] of CPU in the next
/// 2 s) and keeps serving.
fn dropped_calls_stop_their_walks<T, F: Future<Output = Vec<Call<T>>>>(
    what: &str,
    start: impl FnOnce(ProviderClient<Channel>, &'static Path) -> F,
) {
    let (mut plugin, runtime, client, calls) = walking(start);
    for call in &calls {
        call.abort();
    }
    let spent = cpu_over_two_seconds(&plugin);
    assert!(
        spent <= AFTER_CANCEL,
        "{spent:?} of CPU in the 2 s after {} {what} were dropped",
        calls.len()
    );
    let schema = runtime.block_on(async {
        client
            .clone()
            .get_provider_schema(clusterproxy::framework::proto::get_provider_schema::Request {})
            .await
            .unwrap()
            .into_inner()
    });
    assert!(schema
        .list_resource_schemas
        .contains_key("clusterproxy_profile"));
    terminate(&mut plugin.child);
}

/// The client drops `streams` ListResource streams while their walks run.
fn dropped_streams_stop_their_walks(streams: usize) {
    dropped_calls_stop_their_walks("streams", |client, dir| start_streams(client, dir, streams));
}

#[test]
fn a_dropped_list_stream_stops_its_walk() {
    dropped_streams_stop_their_walks(1);
}

#[test]
fn fifty_dropped_list_streams_stop_their_walks() {
    dropped_streams_stop_their_walks(50);
}

/// StopProvider while the walks of `streams` ListResource streams run:
/// every stream ends within [`ENDED_WITHIN`] with the "Provider stopped"
/// diagnostic and no result, and the plugin spends at most
/// [`AFTER_CANCEL`] of CPU in the next 2 s.
fn stop_provider_ends_list_streams(streams: usize) {
    let (mut plugin, runtime, client, calls) =
        walking(|client, dir| start_streams(client, dir, streams));
    let stopped = stop(&runtime, &client);
    // When each stream ended (`None`: still open 10 s after), so that a
    // failure tells a slow end from a walk the stop did not reach.
    let ended: Vec<Option<Duration>> = runtime.block_on(async {
        let mut ended = Vec::new();
        for call in calls {
            let deadline = tokio::time::Instant::from_std(stopped + Duration::from_secs(10));
            let Ok(events) = tokio::time::timeout_at(deadline, call).await else {
                ended.push(None);
                continue;
            };
            ended.push(Some(stopped.elapsed()));
            let events = events.unwrap().unwrap();
            assert!(events.iter().all(|e| e.identity.is_none()), "{events:?}");
            let diagnostics: Vec<&Diagnostic> = events.iter().flat_map(|e| &e.diagnostic).collect();
            assert!(
                diagnostics.iter().any(|d| d.summary == "Provider stopped"),
                "{diagnostics:?}"
            );
        }
        ended
    });
    assert!(
        ended.iter().all(|e| e.is_some_and(|at| at <= ENDED_WITHIN)),
        "streams not ended within 1 s of StopProvider (when each ended; None: open after 10 s): {ended:?}"
    );
    let spent = cpu_over_two_seconds(&plugin);
    assert!(
        spent <= AFTER_CANCEL,
        "{spent:?} of CPU in the 2 s after StopProvider ended {streams} streams"
    );
    terminate(&mut plugin.child);
}

/// Sends StopProvider; returns when it was answered.
fn stop(runtime: &tokio::runtime::Runtime, client: &ProviderClient<Channel>) -> Instant {
    let answer = runtime.block_on(client.clone().stop_provider(stop_provider::Request {}));
    assert_eq!(answer.unwrap().into_inner().error, "");
    Instant::now()
}

#[test]
fn stop_provider_ends_a_list_stream() {
    stop_provider_ends_list_streams(1);
}

#[test]
fn stop_provider_ends_fifty_list_streams() {
    stop_provider_ends_list_streams(50);
}

/// The client drops `reads` `clusterproxy_fleet` reads (with `excludes`
/// excludes) while their walks run.
fn dropped_reads_stop_their_walks(reads: usize, excludes: usize) {
    dropped_calls_stop_their_walks("fleet reads", |client, dir| async move {
        start_reads(client, dir, reads, excludes)
    });
}

#[test]
fn a_dropped_fleet_read_stops_its_walk() {
    dropped_reads_stop_their_walks(1, EXCLUDES);
}

#[test]
fn fifty_dropped_fleet_reads_stop_their_walks() {
    dropped_reads_stop_their_walks(50, EXCLUDES);
}

/// A fleet read whose request is small runs on a thread of its own all the
/// same (its walk runs long): a drop reaches it, and it never holds the
/// worker that serves every other request.
#[test]
fn a_dropped_small_fleet_read_stops_its_walk() {
    let request = read_request(tree(), SMALL_EXCLUDES);
    assert!(request.encoded_len() <= INLINE_LIMIT);
    dropped_reads_stop_their_walks(1, SMALL_EXCLUDES);
}

/// StopProvider during a `clusterproxy_fleet` read over the tree: the read
/// answers "Provider stopped" without a state within [`ENDED_WITHIN`], and
/// the plugin spends at most [`AFTER_CANCEL`] of CPU in the next 2 s.
#[test]
fn stop_provider_ends_a_fleet_read() {
    let (mut plugin, runtime, client, mut reads) =
        walking(|client, dir| async move { start_reads(client, dir, 1, EXCLUDES) });
    let read = reads.pop().unwrap();
    let stopped = stop(&runtime, &client);
    let response = runtime.block_on(async {
        tokio::time::timeout_at(tokio::time::Instant::from_std(stopped + ENDED_WITHIN), read)
            .await
            .expect("the read still running 1 s after StopProvider")
            .unwrap()
            .unwrap()
            .into_inner()
    });
    assert!(response.state.is_none());
    assert_eq!(response.diagnostics[0].summary, "Provider stopped");
    let spent = cpu_over_two_seconds(&plugin);
    assert!(spent <= AFTER_CANCEL, "{spent:?} of CPU after StopProvider");
    terminate(&mut plugin.child);
}

/// A StopProvider that comes between a ListResource call's answer and its
/// listing's start reaches the listing: it is in flight from the call, not
/// from when its thread starts (it ran, listing everything, when the
/// thread started after the stop).
#[test]
fn stop_provider_right_after_a_list_call_reaches_its_listing() {
    use clusterproxy::framework::proto::provider_server::Provider as _;
    use clusterproxy::framework::server::ProviderServer;
    let fleet = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fleet");
    let server = ProviderServer::new(&ClusterProxy);
    let events = runtime().block_on(async {
        let mut stream = server
            .list_resource(tonic::Request::new(list_request(&fleet)))
            .await
            .unwrap()
            .into_inner();
        server
            .stop_provider(tonic::Request::new(stop_provider::Request {}))
            .await
            .unwrap();
        let mut events = Vec::new();
        while let Some(event) = tokio_stream::StreamExt::next(&mut stream).await {
            events.push(event.unwrap());
        }
        events
    });
    assert!(events.iter().all(|e| e.identity.is_none()), "{events:?}");
    assert!(
        events
            .iter()
            .flat_map(|e| &e.diagnostic)
            .any(|d| d.summary == "Provider stopped"),
        "{events:?}"
    );
}
