//! Protocol tests through a gRPC client of our own over the mutually
//! authenticated unix socket and loopback TCP (each transport test runs on
//! both, as `NAME::unix` and `NAME::tcp`): concurrent ReadDataSource calls, StopProvider,
//! GRPCController.Shutdown, SIGTERM and a closed connection during a long
//! call, and the `--debug` mode.

use crate::support;

use std::io::{BufRead, BufReader};
use std::pin::Pin;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use clusterproxy::framework::data_source::DataSource as _;
use clusterproxy::framework::plugin::services::grpc_broker_client::GrpcBrokerClient;
use clusterproxy::framework::plugin::services::grpc_stdio_client::GrpcStdioClient;
use clusterproxy::framework::plugin::services::{ConnInfo, Empty};
use clusterproxy::framework::plugin::MAGIC_COOKIE_KEY;
use clusterproxy::framework::proto::provider_client::ProviderClient;
use clusterproxy::framework::proto::{
    get_provider_schema, plan_resource_change, read_data_source, stop_provider, Diagnostic,
    DynamicValue,
};
use clusterproxy::framework::server::Server;
use clusterproxy::framework::value::Type;
use clusterproxy::framework::value::{msgpack, Value};
use clusterproxy::provider::ClusterProxy;
use support::{
    cpu_time, mixed_entries, plain_channel, read_no_proxy_request, read_report_request_with,
    terminate, Plugin, BINARY,
};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tonic::transport::Channel;

/// ReadDataSource of the typical request, which must succeed without diagnostics.
async fn read_clean(client: &mut ProviderClient<Channel>) -> read_data_source::Response {
    read_clean_with(client, read_no_proxy_request()).await
}

/// ReadDataSource of `request`, which must succeed without diagnostics.
async fn read_clean_with(
    client: &mut ProviderClient<Channel>,
    request: read_data_source::Request,
) -> read_data_source::Response {
    let response = client.read_data_source(request).await.unwrap().into_inner();
    assert!(
        response.diagnostics.is_empty(),
        "{:?}",
        response.diagnostics
    );
    response
}

/// Runs each transport test, a function of the transport, once per transport.
macro_rules! on_both_transports {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn unix() {
                super::$name("unix");
            }

            #[test]
            fn tcp() {
                super::$name("tcp");
            }
        }
    )*};
}

on_both_transports!(
    get_provider_schema_serves_the_declared_types,
    concurrent_read_data_source_calls_all_succeed,
    controller_shutdown_exits_within_two_seconds,
    sigterm_with_open_streams_exits_within_two_seconds,
    debug_mode_prints_reattach_line_and_serves,
    sigterm_during_a_long_read_exits_within_one_second,
    closed_connection_during_a_long_read_ends_the_plugin,
    stop_provider_cancels_a_long_read,
    stop_provider_cancels_a_long_plan,
    a_response_is_at_most_two_tls_records,
);

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// GetProviderSchema over mTLS serves, for the NO_PROXY data source, the
/// attribute types the configuration is encoded with (the type of every
/// attribute parses back to the one the data source declares).
fn get_provider_schema_serves_the_declared_types(transport: &str) {
    let mut plugin = Plugin::start_on(transport);
    runtime().block_on(async {
        let response = plugin
            .provider()
            .await
            .get_provider_schema(get_provider_schema::Request::default())
            .await
            .unwrap()
            .into_inner();
        assert!(
            response.diagnostics.is_empty(),
            "{:?}",
            response.diagnostics
        );
        assert!(response.provider.is_some());
        let block = response.data_source_schemas["clusterproxy_no_proxy"]
            .block
            .clone()
            .expect("a block");
        let served = Type::object(block.attributes.iter().map(|a| {
            let json = serde_json::from_slice(&a.r#type).unwrap();
            (a.name.as_str(), Type::from_json(&json).unwrap())
        }));
        let declared = clusterproxy::provider::data_sources::no_proxy::NoProxyDataSource
            .schema()
            .object_type();
        assert_eq!(served, declared);
    });
    terminate(&mut plugin.child);
}

/// 200 ReadDataSource calls in flight at once all succeed with the same result.
fn concurrent_read_data_source_calls_all_succeed(transport: &str) {
    let mut plugin = Plugin::start_on(transport);
    runtime().block_on(async {
        let client = plugin.provider().await;
        let schema = client
            .clone()
            .get_provider_schema(get_provider_schema::Request::default())
            .await
            .unwrap()
            .into_inner();
        assert!(schema
            .data_source_schemas
            .contains_key("clusterproxy_no_proxy"));
        let mut calls = tokio::task::JoinSet::new();
        for _ in 0..200 {
            let mut client = client.clone();
            calls.spawn(async move { read_clean(&mut client).await });
        }
        let mut states = Vec::new();
        while let Some(response) = calls.join_next().await {
            let response = response.unwrap();
            states.push(response.state.expect("a state").msgpack);
        }
        assert_eq!(states.len(), 200);
        assert!(states.windows(2).all(|w| w[0] == w[1]), "results differ");
        let stop = client
            .clone()
            .stop_provider(stop_provider::Request {})
            .await
            .unwrap()
            .into_inner();
        assert_eq!(stop.error, "");
    });
    terminate(&mut plugin.child);
}

/// With TF_LOG_PROVIDER_CLUSTERPROXY=debug every line on stderr is an hclog
/// JSON object; each RPC logs its name, request id, subject and duration,
/// and no configured value reaches the log.
#[test]
fn rpc_logs_are_hclog_json_lines_without_values() {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut plugin = Plugin::start_logging(
        &support::terraform_like_client_cert(),
        &[("TF_LOG", "off"), ("TF_LOG_PROVIDER_CLUSTERPROXY", "debug")],
        Stdio::from(log.reopen().unwrap()),
    );
    runtime().block_on(async {
        read_clean(&mut plugin.provider().await).await;
    });
    terminate(&mut plugin.child);
    let text = std::fs::read_to_string(log.path()).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    for line in &lines {
        for key in ["@level", "@message", "@module", "@timestamp"] {
            assert!(line[key].is_string(), "{key} missing: {line}");
        }
    }
    let rpc_lines: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["tf_rpc"] == "ReadDataSource")
        .collect();
    let messages: Vec<&str> = rpc_lines
        .iter()
        .filter_map(|l| l["@message"].as_str())
        .collect();
    assert_eq!(messages, ["received request", "served request"], "{text}");
    for line in &rpc_lines {
        assert_eq!(
            line["tf_data_source_type"], "clusterproxy_no_proxy",
            "{line}"
        );
        assert!(line["tf_req_id"].is_u64(), "{line}");
        assert_eq!(line["@level"], "debug", "{line}");
    }
    assert!(
        rpc_lines[1]["tf_req_duration_ms"].is_u64(),
        "{}",
        rpc_lines[1]
    );
    for value in ["registry.corp.example", "10.20.0.0/16", "192.168.0.0/16"] {
        assert!(!text.contains(value), "{value} logged:\n{text}");
    }
}

/// The log lines, at trace level, of one plugin serving a ReadDataSource of
/// `clusterproxy_systemd_dropin` with `password`: request ids, durations and
/// timestamps left out, sorted.
fn trace_lines_reading_with(password: &str) -> Vec<String> {
    use clusterproxy::framework::data_source::DataSource as _;
    use clusterproxy::framework::proto::DynamicValue;
    use clusterproxy::framework::value::{msgpack, Value};
    let schema =
        clusterproxy::provider::data_sources::systemd_dropin::SystemdDropinDataSource.schema();
    let mut config = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    config.set_attr(
        "http_proxy",
        Value::string("http://proxy.corp.example:3128"),
    );
    config.set_attr("username", Value::string("svc-proxy"));
    config.set_attr("password", Value::string(password));
    let request = read_data_source::Request {
        type_name: "clusterproxy_systemd_dropin".into(),
        config: Some(DynamicValue {
            msgpack: msgpack::encode(&config, &schema.object_type()).unwrap(),
            json: Vec::new(),
        }),
        ..Default::default()
    };
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut plugin = Plugin::start_logging(
        &support::terraform_like_client_cert(),
        &[("TF_LOG", "trace")],
        Stdio::from(log.reopen().unwrap()),
    );
    runtime().block_on(async {
        read_clean_with(&mut plugin.provider().await, request).await;
    });
    terminate(&mut plugin.child);
    let mut lines: Vec<String> = std::fs::read_to_string(log.path())
        .unwrap()
        .lines()
        .map(|line| {
            let mut line: serde_json::Value = serde_json::from_str(line).unwrap();
            let fields = line.as_object_mut().unwrap();
            // What differs between any two runs (the listener's address too).
            for key in ["@timestamp", "tf_req_id", "tf_req_duration_ms", "address"] {
                fields.remove(key);
            }
            line.to_string()
        })
        .collect();
    lines.sort();
    lines
}

/// Nothing in the provider's log, at trace level, depends on the password:
/// the same lines for a password of 3 and of 40 characters (the HTTP/2 and
/// gRPC libraries' own events, which give message sizes, stay out).
#[test]
fn trace_logs_do_not_depend_on_the_password() {
    let short = trace_lines_reading_with("p4s");
    let long = trace_lines_reading_with(&"p4s".repeat(13));
    assert!(!short.is_empty());
    assert_eq!(short, long);
}

/// Waits for the plugin to exit successfully, at most 2 s after `started`
/// (when `cause` was sent), and checks that it closed its listener.
fn assert_stops_cleanly_within_two_seconds(plugin: &mut Plugin, started: Instant, cause: &str) {
    loop {
        if let Some(status) = plugin.child.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "still running 2 s after {cause}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_listener_gone(plugin);
}

/// The plugin's listener is gone: no socket file left, no TCP port open.
fn assert_listener_gone(plugin: &Plugin) {
    match plugin.network.as_str() {
        "unix" => assert!(
            !std::path::Path::new(&plugin.socket).exists(),
            "socket left behind"
        ),
        _ => assert!(
            std::net::TcpStream::connect(&plugin.socket).is_err(),
            "{} still accepts connections",
            plugin.socket
        ),
    }
}

/// GRPCController.Shutdown ends the process within 2 seconds.
fn controller_shutdown_exits_within_two_seconds(transport: &str) {
    let mut plugin = Plugin::start_on(transport);
    let started = runtime().block_on(async {
        let mut controller = plugin.controller().await;
        let started = Instant::now();
        // The process may exit before the response arrives; both are fine.
        let _ = controller.shutdown(Empty {}).await;
        started
    });
    assert_stops_cleanly_within_two_seconds(&mut plugin, started, "Shutdown");
}

/// SIGTERM ends the process within 2 seconds even while the host keeps its
/// connection open with a GRPCStdio stream and a broker stream running (the
/// graceful stop does not wait for them forever).
fn sigterm_with_open_streams_exits_within_two_seconds(transport: &str) {
    let mut plugin = Plugin::start_on(transport);
    let runtime = runtime();
    let channel = runtime.block_on(plugin.channel());
    let (stdio, broker) = runtime.block_on(async {
        let stdio = GrpcStdioClient::new(channel.clone())
            .stream_stdio(())
            .await
            .expect("StreamStdio opens")
            .into_inner();
        let broker = GrpcBrokerClient::new(channel.clone())
            .start_stream(tokio_stream::pending::<ConnInfo>())
            .await
            .expect("StartStream opens")
            .into_inner();
        (stdio, broker)
    });
    let started = Instant::now();
    Command::new("kill")
        .arg("-TERM")
        .arg(plugin.child.id().to_string())
        .status()
        .unwrap();
    assert_stops_cleanly_within_two_seconds(&mut plugin, started, "SIGTERM");
    drop((stdio, broker, channel));
}

/// `--debug` serves without TLS and prints a TF_REATTACH_PROVIDERS line that
/// Terraform can use; a plaintext client reaches the provider through it.
fn debug_mode_prints_reattach_line_and_serves(transport: &str) {
    let mut child = Command::new(BINARY)
        .arg("--debug")
        .env_remove(MAGIC_COOKIE_KEY)
        .env("CLUSTERPROXY_PLUGIN_TRANSPORT", transport)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines
        .by_ref()
        .map(Result::unwrap)
        .find(|l| l.contains("TF_REATTACH_PROVIDERS="))
        .expect("a TF_REATTACH_PROVIDERS line");
    let json = line.split_once('=').unwrap().1.trim().trim_matches('\'');
    let reattach: serde_json::Value = serde_json::from_str(json).unwrap();
    let entry = &reattach["registry.terraform.io/clusterproxy/clusterproxy"];
    assert_eq!(entry["Protocol"], "grpc");
    assert_eq!(entry["ProtocolVersion"], 6);
    assert_eq!(entry["Pid"], child.id());
    assert_eq!(entry["Addr"]["Network"], transport);
    let socket = entry["Addr"]["String"].as_str().unwrap().to_owned();
    runtime().block_on(async {
        let schema = ProviderClient::new(plain_channel(transport, &socket).await)
            .get_provider_schema(get_provider_schema::Request::default())
            .await
            .unwrap()
            .into_inner();
        assert!(schema.resource_schemas.contains_key("clusterproxy_profile"));
    });
    terminate(&mut child);
}

/// A ReadDataSource that runs for a minute or more when nothing stops it:
/// 20k entries checked against 500 destinations for every client (in the
/// report, which always runs the coverage check).
fn long_read_request() -> read_data_source::Request {
    let destinations: Vec<String> = (0..500)
        .map(|i| format!("https://d-{i}.outside.example/"))
        .collect();
    read_report_request_with(&mixed_entries(20_000), &destinations)
}

/// Waits until the plugin has spent `cpu` of CPU time (so the long call is
/// running, whatever the machine's load), at most 60 s.
fn wait_until_busy(plugin: &Plugin, cpu: Duration) {
    let started = Instant::now();
    while cpu_time(plugin.child.id()) < cpu {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the plugin never got busy"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for the plugin to exit, at most 1 s after `since`; returns how long it took.
fn exit_within_one_second(plugin: &mut Plugin, since: Instant, cause: &str) -> Duration {
    loop {
        if let Some(status) = plugin.child.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            return since.elapsed();
        }
        assert!(
            since.elapsed() < Duration::from_secs(1),
            "still running 1 s after {cause}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// SIGTERM during a long ReadDataSource cancels it: the process is gone within 1 s.
fn sigterm_during_a_long_read_exits_within_one_second(transport: &str) {
    let mut plugin = Plugin::start_on(transport);
    let runtime = runtime();
    let mut client = runtime.block_on(plugin.provider());
    let call = runtime.spawn(async move { client.read_data_source(long_read_request()).await });
    wait_until_busy(&plugin, Duration::from_millis(600));
    let sent = Instant::now();
    Command::new("kill")
        .arg("-TERM")
        .arg(plugin.child.id().to_string())
        .status()
        .unwrap();
    exit_within_one_second(&mut plugin, sent, "SIGTERM");
    // The call ends with the cancellation diagnostic or a closed connection, never a state.
    if let Ok(Ok(response)) = runtime.block_on(call) {
        let response = response.into_inner();
        assert!(response.state.is_none());
        assert_eq!(response.diagnostics[0].summary, "Provider stopped");
    }
}

/// The host going away (its connection closed, as when Terraform is killed)
/// during a long ReadDataSource ends the plugin within 1 s.
fn closed_connection_during_a_long_read_ends_the_plugin(transport: &str) {
    let mut plugin = Plugin::start_on(transport);
    let runtime = runtime();
    let mut client = runtime.block_on(plugin.provider());
    runtime.spawn(async move { client.read_data_source(long_read_request()).await });
    wait_until_busy(&plugin, Duration::from_millis(600));
    let closed = Instant::now();
    // Dropping the runtime ends the call and closes the connection.
    drop(runtime);
    exit_within_one_second(&mut plugin, closed, "the connection closed");
    assert_listener_gone(&plugin);
}

/// StopProvider during the long call `start` makes: the call ends with the
/// "Provider stopped" diagnostic and no result (`stopped` reads whether there
/// is a result, and the diagnostics, from the response) after the plugin has
/// spent less than 1 s of CPU time on it (uncancelled, it runs a minute or
/// more; CPU time, not wall time, so a loaded machine cannot fail it), and
/// the plugin keeps serving.
fn stop_provider_cancels<T: Send + 'static>(
    transport: &str,
    start: impl FnOnce(
        ProviderClient<Channel>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>,
    stopped: impl FnOnce(T) -> (bool, Vec<Diagnostic>),
) {
    let mut plugin = Plugin::start_on(transport);
    let runtime = runtime();
    let client = runtime.block_on(plugin.provider());
    let call = runtime.spawn(start(client.clone()));
    wait_until_busy(&plugin, Duration::from_millis(600));
    let sent = cpu_time(plugin.child.id());
    runtime.block_on(async {
        let stop = client
            .clone()
            .stop_provider(stop_provider::Request {})
            .await
            .unwrap()
            .into_inner();
        assert_eq!(stop.error, "");
        let (has_result, diagnostics) = stopped(call.await.unwrap());
        let spent = cpu_time(plugin.child.id()).saturating_sub(sent);
        assert!(
            spent < Duration::from_secs(1),
            "{spent:?} of CPU after the stop"
        );
        assert!(!has_result);
        assert_eq!(diagnostics[0].summary, "Provider stopped");
        let next = client
            .clone()
            .read_data_source(read_no_proxy_request())
            .await
            .unwrap()
            .into_inner();
        assert!(next.diagnostics.is_empty(), "{:?}", next.diagnostics);
        assert!(next.state.is_some());
    });
    terminate(&mut plugin.child);
}

/// StopProvider cancels a long ReadDataSource.
fn stop_provider_cancels_a_long_read(transport: &str) {
    stop_provider_cancels(
        transport,
        |mut client| Box::pin(async move { client.read_data_source(long_read_request()).await }),
        |response| {
            let response = response.unwrap().into_inner();
            (response.state.is_some(), response.diagnostics)
        },
    );
}

/// A PlanResourceChange of a profile creating a NO_PROXY set of 600k
/// entries (30 MB of msgpack, under gRPC's 64 MiB): seconds of work.
fn long_plan_request() -> plan_resource_change::Request {
    let server = Server::new(&ClusterProxy);
    let schema = &server.registry().resources()["clusterproxy_profile"].schema;
    let ty = schema.object_type();
    let mut config = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    config.set_attr("name", Value::string("corp"));
    config.set_attr(
        "http_proxy",
        Value::string("http://proxy.corp.example:3128"),
    );
    config.set_attr(
        "no_proxy",
        Value::Set(
            mixed_entries(600_000)
                .into_iter()
                .map(Value::String)
                .collect(),
        ),
    );
    let wire = |value: &Value| {
        Some(DynamicValue {
            msgpack: msgpack::encode(value, &ty).unwrap(),
            json: Vec::new(),
        })
    };
    plan_resource_change::Request {
        type_name: "clusterproxy_profile".into(),
        prior_state: wire(&Value::null()),
        proposed_new_state: wire(&config),
        config: wire(&config),
        ..Default::default()
    }
}

/// StopProvider cancels a long PlanResourceChange.
fn stop_provider_cancels_a_long_plan(transport: &str) {
    let request = long_plan_request();
    stop_provider_cancels(
        transport,
        |mut client| Box::pin(async move { client.plan_resource_change(request).await }),
        |response| {
            let response = response.unwrap().into_inner();
            (response.planned_state.is_some(), response.diagnostics)
        },
    );
}

/// An early error after the socket is bound (here a client certificate that
/// is not PEM) ends the plugin with a message and leaves no socket file
/// behind in the socket directory.
#[test]
fn early_error_removes_the_socket_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = Command::new(BINARY)
        .env(
            MAGIC_COOKIE_KEY,
            clusterproxy::framework::plugin::MAGIC_COOKIE_VALUE,
        )
        .env("PLUGIN_PROTOCOL_VERSIONS", "6")
        .env("PLUGIN_CLIENT_CERT", "not a certificate")
        .env("PLUGIN_UNIX_SOCKET_DIR", dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!run.status.success());
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("plugin error"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// The client's socket below TLS, counting the TLS records the plugin sends.
struct RecordCounter {
    socket: support::Socket,
    records: Arc<AtomicUsize>,
    /// The record header read so far (5 bytes: type, version, length).
    header: Vec<u8>,
    /// Bytes of the current record's body still to come.
    body_left: usize,
}

impl RecordCounter {
    fn new(socket: support::Socket, records: Arc<AtomicUsize>) -> Self {
        Self {
            socket,
            records,
            header: Vec::new(),
            body_left: 0,
        }
    }

    fn scan(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.body_left > 0 {
                let skip = self.body_left.min(bytes.len());
                self.body_left -= skip;
                bytes = &bytes[skip..];
                continue;
            }
            let take = (5 - self.header.len()).min(bytes.len());
            self.header.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.header.len() == 5 {
                self.body_left = usize::from(u16::from_be_bytes([self.header[3], self.header[4]]));
                self.header.clear();
                self.records.fetch_add(1, Ordering::SeqCst);
            }
        }
    }
}

impl AsyncRead for RecordCounter {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.socket).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            self.scan(&buf.filled()[before..]);
        }
        polled
    }
}

impl AsyncWrite for RecordCounter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.socket).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.socket).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.socket).poll_shutdown(cx)
    }
}

/// A unary response leaves the plugin in at most two TLS records: the
/// connection takes HTTP/2's vectored writes, so a frame header and its
/// payload are encrypted together instead of each piece on its own. (h2
/// flushes once after a data frame it does not copy, so headers and data go
/// in one record and the trailers in a second; without vectored writes,
/// three or four.)
fn a_response_is_at_most_two_tls_records(transport: &str) {
    let mut plugin = Plugin::start_on(transport);
    let records = Arc::new(AtomicUsize::new(0));
    let counted = records.clone();
    runtime().block_on(async {
        let channel = plugin
            .channel_over(move |socket| RecordCounter::new(socket, counted.clone()))
            .await;
        let mut client = ProviderClient::new(channel);
        // The first call also carries the connection's settings.
        read_clean(&mut client).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut per_call = Vec::new();
        for _ in 0..5 {
            let before = records.load(Ordering::SeqCst);
            read_clean(&mut client).await;
            per_call.push(records.load(Ordering::SeqCst) - before);
        }
        assert!(
            per_call.iter().all(|&n| n <= 2),
            "TLS records per response: {per_call:?}"
        );
    });
    terminate(&mut plugin.child);
}
