//! Peak resident memory of the real plugin binary for the worst input of
//! each RPC a password enters through, on the user's path (what Terraform
//! sends: the profile's validation and plan, a renderer data source, the
//! `render` function, the proxy check, an import): the largest password
//! that fits gRPC's 64 MiB message limit beside the rest of the request,
//! and the longest one accepted (255 bytes of `%`, each percent-encoded
//! into three); and for large NO_PROXY lists (100k, 125k and 500k entries)
//! read by `clusterproxy_no_proxy` and rendered by
//! `render("openshift_proxy")`, which takes `settings` of 125k (at most
//! 3 MiB) and refuses 500k unread; and for list configurations
//! (the list resource validated and listed, `clusterproxy_fleet` read)
//! with 200,000 excludes (refused), as many as the caps take, and none.
//! Each case runs in a fresh
//! plugin, whose peak (`VmHWM`) is read before and after the one request.
//! Prints, per case, the request and response sizes, the peak and the CPU
//! time the plugin spent on the request; fails
//! when a response is more than 64 KiB larger than 8 times its request or
//! the peak grows by more than 8 times the request plus 64 MiB, and for the
//! large lists when the peak grows by more than 3 times the request and the
//! response together, for list configurations by more than 10 times the
//! request plus 8 MiB.
//!
//! Run with `cargo bench --bench peak_rss` (release build), or
//! `cargo bench --profile dev --bench peak_rss` to reuse the dev build.

// A benchmark without criterion: `harness = false`, its own `main`.
#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Duration;

use clusterproxy::framework::model::Field as _;
use clusterproxy::framework::proto::{self, DynamicValue};
use clusterproxy::framework::server::grpc::MAX_MESSAGE_SIZE;
use clusterproxy::framework::server::Server;
use clusterproxy::framework::value::{msgpack, Type, Value};
use clusterproxy::provider::ClusterProxy;
use prost::Message as _;
use support::{terminate, Plugin};

const MIB: usize = 1 << 20;
const PROXY: &str = "http://proxy.corp.example:3128";

/// A memory figure of `pid` in KiB from /proc/<pid>/status.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// The CPU time `pid` has used, user and system, in milliseconds (from
/// /proc/<pid>/stat, in clock ticks of 10 ms).
fn cpu_ms(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name, which ends at the last `)`.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks * 10
}

/// `value` of type `ty` as the wire carries it.
fn dynamic(value: &Value, ty: &Type) -> DynamicValue {
    DynamicValue {
        msgpack: msgpack::encode(value, ty).unwrap(),
        json: Vec::new(),
    }
}

/// An object of the schema's type with `set` and null elsewhere.
fn config(schema: &clusterproxy::framework::schema::Schema, set: &[(&str, Value)]) -> Value {
    let mut value = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    for (name, v) in set {
        value.set_attr(name, v.clone());
    }
    value
}

/// One request of the benchmark.
enum Request {
    Validate(proto::validate_resource_config::Request),
    Plan(proto::plan_resource_change::Request),
    Read(proto::read_data_source::Request),
    Call(proto::call_function::Request),
    Open(proto::open_ephemeral_resource::Request),
    Import(proto::import_resource_state::Request),
    ValidateList(proto::validate_list_resource_config::Request),
    List(proto::list_resource::Request),
}

impl Request {
    fn encoded_len(&self) -> usize {
        match self {
            Request::Validate(r) => r.encoded_len(),
            Request::Plan(r) => r.encoded_len(),
            Request::Read(r) => r.encoded_len(),
            Request::Call(r) => r.encoded_len(),
            Request::Open(r) => r.encoded_len(),
            Request::Import(r) => r.encoded_len(),
            Request::ValidateList(r) => r.encoded_len(),
            Request::List(r) => r.encoded_len(),
        }
    }

    /// Sends it; the response's size and how many diagnostics (or a
    /// function error) it holds, or the status the call failed with.
    async fn send(
        self,
        client: &mut proto::provider_client::ProviderClient<tonic::transport::Channel>,
    ) -> Result<(usize, usize), tonic::Status> {
        Ok(match self {
            Request::Validate(r) => {
                let response = client.validate_resource_config(r).await?.into_inner();
                (response.encoded_len(), response.diagnostics.len())
            }
            Request::Plan(r) => {
                let response = client.plan_resource_change(r).await?.into_inner();
                (response.encoded_len(), response.diagnostics.len())
            }
            Request::Read(r) => {
                let response = client.read_data_source(r).await?.into_inner();
                (response.encoded_len(), response.diagnostics.len())
            }
            Request::Call(r) => {
                let response = client.call_function(r).await?.into_inner();
                (
                    response.encoded_len(),
                    usize::from(response.error.is_some()),
                )
            }
            Request::Open(r) => {
                let response = client.open_ephemeral_resource(r).await?.into_inner();
                (response.encoded_len(), response.diagnostics.len())
            }
            Request::Import(r) => {
                let response = client.import_resource_state(r).await?.into_inner();
                (response.encoded_len(), response.diagnostics.len())
            }
            Request::ValidateList(r) => {
                let response = client.validate_list_resource_config(r).await?.into_inner();
                (response.encoded_len(), response.diagnostics.len())
            }
            Request::List(r) => {
                // Every event of the stream, as Terraform reads them.
                let mut stream = client.list_resource(r).await?.into_inner();
                let (mut bytes, mut diagnostics) = (0, 0);
                while let Some(event) = stream.message().await? {
                    bytes += event.encoded_len();
                    diagnostics += event.diagnostic.len();
                }
                (bytes, diagnostics)
            }
        })
    }
}

/// How much a case's peak may grow over the idle plugin.
#[derive(Clone, Copy)]
enum Bound {
    /// 8 times the request plus 64 MiB (a password, refused or accepted).
    Password,
    /// 3 times the request and the response together (a large list).
    Large,
    /// 10 times the request, plus 8 MiB for the walk and the import of
    /// the artifacts found (which do not grow with the request).
    Listing,
}

impl Bound {
    /// Whether a growth of `grown` bytes is within the bound.
    fn holds(self, grown: usize, request_bytes: usize, response_bytes: usize) -> bool {
        match self {
            Bound::Password => {
                response_bytes <= 8 * request_bytes + 64 * 1024
                    && grown <= 8 * request_bytes + 64 * MIB
            }
            Bound::Large => grown <= 3 * (request_bytes + response_bytes),
            Bound::Listing => grown <= 10 * request_bytes + 8 * MIB,
        }
    }
}

/// `n` distinct NO_PROXY entries, as a list value.
fn entries(n: usize) -> Value {
    Value::list(
        (0..n)
            .map(|i| Value::string(format!("host-{i}.corp.example")))
            .collect(),
    )
}

/// The large-list cases: `clusterproxy_no_proxy` with two clients rendered
/// and `render("openshift_proxy")`, 100k, 125k (the render's `settings`
/// just within their 3 MiB) and 500k entries each.
fn large_lists() -> Vec<(String, Request)> {
    let server = Server::new(&ClusterProxy);
    let no_proxy = &server.registry().data_sources()["clusterproxy_no_proxy"].schema;
    let settings_type = clusterproxy::provider::attributes::Settings::ty();
    let mut out = Vec::new();
    for n in [100_000, 125_000, 500_000] {
        let clients = Value::list(vec![Value::string("curl"), Value::string("go")]);
        out.push((
            format!(
                "ReadDataSource no_proxy, {}k entries, curl and go rendered",
                n / 1000
            ),
            Request::Read(proto::read_data_source::Request {
                type_name: "clusterproxy_no_proxy".into(),
                config: Some(dynamic(
                    &config(
                        no_proxy,
                        &[("installation", entries(n)), ("clients", clients)],
                    ),
                    &no_proxy.object_type(),
                )),
                ..Default::default()
            }),
        ));
        let settings = Value::object([
            ("http_proxy".to_owned(), Value::string(PROXY)),
            ("https_proxy".to_owned(), Value::null()),
            ("username".to_owned(), Value::null()),
            ("password".to_owned(), Value::null()),
            ("no_proxy".to_owned(), entries(n)),
            ("trusted_ca".to_owned(), Value::null()),
            ("password_required".to_owned(), Value::bool(false)),
            ("revision".to_owned(), Value::null()),
        ]);
        out.push((
            format!("CallFunction render openshift_proxy, {}k entries", n / 1000),
            Request::Call(proto::call_function::Request {
                name: "render".into(),
                arguments: vec![
                    dynamic(&Value::string("openshift_proxy"), &Type::String),
                    dynamic(&settings, &settings_type),
                    dynamic(&Value::null(), &Type::Dynamic),
                ],
            }),
        ));
    }
    out
}

/// `count` distinct exclude globs of 256 characters that match nothing.
fn excludes(count: usize) -> Value {
    Value::list(
        (0..count)
            .map(|i| Value::string(format!("{i:07}-{}", "x".repeat(248))))
            .collect(),
    )
}

/// The list configuration cases: the list resource (validated and listed)
/// and `clusterproxy_fleet`, with 200,000 excludes of 256 characters (the
/// probe's 52 MB request, refused on `exclude`) and with as many as the
/// caps take (255, of the 65,536 characters in all), over the fleet
/// fixtures.
fn list_configurations() -> Vec<(String, Request)> {
    let server = Server::new(&ClusterProxy);
    let list = &server.registry().list_resources()["clusterproxy_profile"].schema;
    let fleet = &server.registry().data_sources()["clusterproxy_fleet"].schema;
    let directory = Value::string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fleet"));
    let mut out = Vec::new();
    for (count, label) in [
        (200_000, "200k excludes (refused)"),
        (255, "255 excludes (the caps)"),
        (0, "no excludes"),
    ] {
        let set = [
            ("directory", directory.clone()),
            ("exclude", excludes(count)),
        ];
        let list_config = dynamic(&config(list, &set), &list.object_type());
        out.push((
            format!("ValidateListResourceConfig profile, {label}"),
            Request::ValidateList(proto::validate_list_resource_config::Request {
                type_name: "clusterproxy_profile".into(),
                config: Some(list_config.clone()),
                include_resource_object: None,
                limit: None,
            }),
        ));
        out.push((
            format!("ListResource profile, {label}"),
            Request::List(proto::list_resource::Request {
                type_name: "clusterproxy_profile".into(),
                config: Some(list_config),
                include_resource_object: true,
                limit: 100,
            }),
        ));
        out.push((
            format!("ReadDataSource fleet, {label}"),
            Request::Read(proto::read_data_source::Request {
                type_name: "clusterproxy_fleet".into(),
                config: Some(dynamic(&config(fleet, &set), &fleet.object_type())),
                ..Default::default()
            }),
        ));
    }
    out
}

/// The cases: a name, the request and its bound.
fn cases() -> Vec<(String, Request, Bound)> {
    let mut out: Vec<(String, Request, Bound)> = passwords()
        .into_iter()
        .map(|(name, request)| (name, request, Bound::Password))
        .collect();
    out.extend(
        large_lists()
            .into_iter()
            .map(|(name, request)| (name, request, Bound::Large)),
    );
    out.extend(
        list_configurations()
            .into_iter()
            .map(|(name, request)| (name, request, Bound::Listing)),
    );
    out
}

/// The password cases: a name and the request.
fn passwords() -> Vec<(String, Request)> {
    let server = Server::new(&ClusterProxy);
    let registry = server.registry();
    let profile = &registry.resources()["clusterproxy_profile"].schema;
    let dropin = &registry.data_sources()["clusterproxy_systemd_dropin"].schema;
    let check = &registry.ephemeral_resources()["clusterproxy_proxy_check"].schema;
    let settings_type = clusterproxy::provider::attributes::Settings::ty();
    let mut out = Vec::new();
    for (label, size) in [("60 MiB", 60 * MIB), ("255 B of %", 255)] {
        let password = if size == 255 {
            "%".repeat(255)
        } else {
            "p".repeat(size)
        };
        // The plan request holds the password twice (configuration and
        // proposed state): half of it fits.
        let half = if size > 255 {
            &password[..password.len() / 2]
        } else {
            &password[..]
        };
        let profile_config = |password: &str| {
            config(
                profile,
                &[
                    ("name", Value::string("corp")),
                    ("http_proxy", Value::string(PROXY)),
                    ("username", Value::string("svc")),
                    ("password", Value::string(password)),
                ],
            )
        };
        let ty = profile.object_type();
        out.push((
            format!("ValidateResourceConfig profile, password {label}"),
            Request::Validate(proto::validate_resource_config::Request {
                type_name: "clusterproxy_profile".into(),
                config: Some(dynamic(&profile_config(&password), &ty)),
                ..Default::default()
            }),
        ));
        out.push((
            format!("PlanResourceChange profile, password {label} (half when 60 MiB)"),
            Request::Plan(proto::plan_resource_change::Request {
                type_name: "clusterproxy_profile".into(),
                prior_state: Some(dynamic(&Value::null(), &ty)),
                proposed_new_state: Some(dynamic(&profile_config(half), &ty)),
                config: Some(dynamic(&profile_config(half), &ty)),
                ..Default::default()
            }),
        ));
        let units = Value::list(vec![Value::string("containerd"), Value::string("kubelet")]);
        out.push((
            format!("ReadDataSource systemd_dropin, password {label}"),
            Request::Read(proto::read_data_source::Request {
                type_name: "clusterproxy_systemd_dropin".into(),
                config: Some(dynamic(
                    &config(
                        dropin,
                        &[
                            ("http_proxy", Value::string(PROXY)),
                            ("username", Value::string("svc")),
                            ("password", Value::string(&password)),
                            ("units", units.clone()),
                        ],
                    ),
                    &dropin.object_type(),
                )),
                ..Default::default()
            }),
        ));
        let settings = Value::object([
            ("http_proxy".to_owned(), Value::string(PROXY)),
            ("https_proxy".to_owned(), Value::null()),
            ("username".to_owned(), Value::string("svc")),
            ("password".to_owned(), Value::string(&password)),
            ("no_proxy".to_owned(), Value::list(Vec::new())),
            ("trusted_ca".to_owned(), Value::null()),
            ("password_required".to_owned(), Value::bool(false)),
            ("revision".to_owned(), Value::null()),
        ]);
        let options_type = Type::object([("units", Type::list(Type::String))]);
        let options = Value::Typed(Box::new((
            options_type,
            Value::object([("units".to_owned(), units)]),
        )));
        out.push((
            format!("CallFunction render systemd_dropin, password {label}"),
            Request::Call(proto::call_function::Request {
                name: "render".into(),
                arguments: vec![
                    dynamic(&Value::string("systemd_dropin"), &Type::String),
                    dynamic(&settings, &settings_type),
                    dynamic(&options, &Type::Dynamic),
                ],
            }),
        ));
        out.push((
            format!("OpenEphemeralResource proxy_check, password {label}"),
            Request::Open(proto::open_ephemeral_resource::Request {
                type_name: "clusterproxy_proxy_check".into(),
                config: Some(dynamic(
                    &config(
                        check,
                        &[
                            // A closed loopback port: an accepted password
                            // fails to connect, never leaving the machine.
                            ("http_proxy", Value::string("http://127.0.0.1:9")),
                            ("username", Value::string("svc")),
                            ("password", Value::string(&password)),
                            ("url", Value::string("http://127.0.0.1:9/")),
                            ("timeout", Value::int(1)),
                            ("fail_on_error", Value::bool(false)),
                        ],
                    ),
                    &check.object_type(),
                )),
                ..Default::default()
            }),
        ));
    }
    // The largest artifact an import reads (4 MiB), all of it the password,
    // inline (refused) and from a file.
    let artifact = |password: &str| {
        format!("[Service]\nEnvironment=\"HTTP_PROXY=http://svc:{password}@proxy.corp.example:3128\" \"HTTPS_PROXY=http://svc:{password}@proxy.corp.example:3128\"\n")
    };
    let password = "p".repeat(2 * MIB - 200);
    let file = std::env::temp_dir().join(format!("peak-rss-{}.conf", std::process::id()));
    std::fs::write(&file, artifact(&password)).unwrap();
    out.push((
        "ImportResourceState systemd, 4 MiB inline artifact (password 2 MiB)".into(),
        Request::Import(proto::import_resource_state::Request {
            type_name: "clusterproxy_profile".into(),
            id: format!("systemd:inline:{}", artifact(&password)),
            ..Default::default()
        }),
    ));
    out.push((
        "ImportResourceState systemd, 4 MiB file: artifact (password 2 MiB)".into(),
        Request::Import(proto::import_resource_state::Request {
            type_name: "clusterproxy_profile".into(),
            id: format!("systemd:file:{}", file.display()),
            ..Default::default()
        }),
    ));
    out
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument filters the cases.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut failed = Vec::new();
    for (name, request, bound) in cases() {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let mut plugin = Plugin::start();
        let mut client = runtime
            .block_on(plugin.provider())
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE);
        let pid = plugin.child.id();
        let before = status_kib(pid, "VmHWM");
        let cpu_before = cpu_ms(pid);
        let request_bytes = request.encoded_len();
        let sent = runtime.block_on(request.send(&mut client));
        std::thread::sleep(Duration::from_millis(100));
        let peak = status_kib(pid, "VmHWM");
        let cpu = cpu_ms(pid) - cpu_before;
        drop(client);
        terminate(&mut plugin.child);
        let grown = peak.saturating_sub(before) as usize * 1024;
        let (response_bytes, reported) = match sent {
            Ok(sent) => sent,
            Err(status) => {
                println!("{name}: failed: {status}");
                failed.push(name);
                continue;
            }
        };
        println!(
            "{name}: request {:.2} MiB, response {response_bytes} B ({reported} diagnostics/errors), peak RSS {:.1} MiB (+{:.1} MiB over the idle plugin, {:.2}x the request, {:.2}x request and response), CPU {cpu} ms",
            request_bytes as f64 / MIB as f64,
            peak as f64 / 1024.0,
            grown as f64 / MIB as f64,
            grown as f64 / request_bytes as f64,
            grown as f64 / (request_bytes + response_bytes) as f64,
        );
        if !bound.holds(grown, request_bytes, response_bytes) {
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "out of bounds: {failed:#?}");
}
