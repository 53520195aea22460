//! ReadDataSource requests for `clusterproxy_no_proxy` and
//! `clusterproxy_no_proxy_report`, and the CPU time of a process, for the
//! protocol tests and the benchmarks.

/// A ReadDataSource request for `clusterproxy_no_proxy` with a typical configuration.
#[allow(
    dead_code,
    reason = "each protocol test and benchmark uses some of the requests"
)]
pub fn read_no_proxy_request() -> clusterproxy::framework::proto::read_data_source::Request {
    read_no_proxy_request_with(&[], &[])
}

/// `n` mixed NO_PROXY entries (host names, domains, IPv4 and IPv6 addresses,
/// CIDR blocks, ports), deterministic; a few CIDR blocks repeat.
#[allow(
    dead_code,
    reason = "each protocol test and benchmark uses some of the requests"
)]
pub fn mixed_entries(n: usize) -> Vec<String> {
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

/// [`read_no_proxy_request`] with `extra` added to its installation list and
/// `must_bypass` set (when not empty).
#[allow(
    dead_code,
    reason = "each protocol test and benchmark uses some of the requests"
)]
pub fn read_no_proxy_request_with(
    extra: &[String],
    must_bypass: &[String],
) -> clusterproxy::framework::proto::read_data_source::Request {
    read_no_proxy_request_for(
        extra,
        must_bypass,
        Some(clusterproxy::domain::no_proxy::Dialect::default_names()),
    )
}

/// [`read_no_proxy_request_with`] naming `clients` (when `Some`: each is
/// rendered and reported) or leaving `clients` unset, as the plan benchmark
/// does.
#[allow(
    dead_code,
    reason = "each protocol test and benchmark uses some of the requests"
)]
pub fn read_no_proxy_request_for(
    extra: &[String],
    must_bypass: &[String],
    clients: Option<&[&str]>,
) -> clusterproxy::framework::proto::read_data_source::Request {
    read_request(
        &clusterproxy::provider::data_sources::no_proxy::NoProxyDataSource,
        extra,
        must_bypass,
        clients,
    )
}

/// [`read_no_proxy_request_with`] for `clusterproxy_no_proxy_report`, which
/// also runs the coverage check and renders every client.
#[allow(
    dead_code,
    reason = "each protocol test and benchmark uses some of the requests"
)]
pub fn read_report_request_with(
    extra: &[String],
    must_bypass: &[String],
) -> clusterproxy::framework::proto::read_data_source::Request {
    read_request(
        &clusterproxy::provider::data_sources::no_proxy_report::NoProxyReportDataSource,
        extra,
        must_bypass,
        Some(clusterproxy::domain::no_proxy::Dialect::default_names()),
    )
}

/// A ReadDataSource request for `data_source`, one of the two that take the
/// NO_PROXY inputs.
fn read_request(
    data_source: &dyn clusterproxy::framework::data_source::DataSource,
    extra: &[String],
    must_bypass: &[String],
    clients: Option<&[&str]>,
) -> clusterproxy::framework::proto::read_data_source::Request {
    use clusterproxy::framework::value::{msgpack, Value};
    let schema = data_source.schema();
    let ty = schema.object_type();
    let list = |items: &[&str]| Value::list(items.iter().map(|s| Value::string(*s)).collect());
    let mut config = Value::object(
        schema
            .attributes
            .iter()
            .map(|a| (a.name.clone(), Value::null())),
    );
    let installation: Vec<&str> = ["registry.corp.example", ".corp.example", "10.20.0.0/16"]
        .into_iter()
        .chain(extra.iter().map(String::as_str))
        .collect();
    config.set_attr("installation", list(&installation));
    if !must_bypass.is_empty() {
        config.set_attr(
            "must_bypass",
            Value::list(
                must_bypass
                    .iter()
                    .map(|s| Value::string(s.as_str()))
                    .collect(),
            ),
        );
    }
    config.set_attr("pod_cidrs", list(&["192.168.0.0/16"]));
    config.set_attr("service_cidrs", list(&["10.96.0.0/12"]));
    config.set_attr("apiserver_host", Value::string("api.prod-1.corp.example"));
    if let Some(clients) = clients {
        config.set_attr("clients", list(clients));
    }
    clusterproxy::framework::proto::read_data_source::Request {
        type_name: data_source.type_name().into(),
        config: Some(clusterproxy::framework::proto::DynamicValue {
            msgpack: msgpack::encode(&config, &ty).unwrap(),
            json: Vec::new(),
        }),
        ..Default::default()
    }
}

/// User plus system CPU time of process `pid` so far (/proc/<pid>/stat, in
/// clock ticks of 10 ms).
#[allow(
    dead_code,
    reason = "each protocol test and benchmark uses some of the requests"
)]
pub fn cpu_time(pid: u32) -> std::time::Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    std::time::Duration::from_millis((ticks(11) + ticks(12)) * 10)
}
