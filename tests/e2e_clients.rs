//! End-to-end tests of the client models through `clusterproxy_no_proxy` with
//! real Terraform 1.11 and 1.0.3: the coverage check reports a destination
//! spelled the way a client reads differently (a trailing-dot name for Go),
//! `fail_on_gap` fails the plan on it, the default client set stays the
//! original eight, the `undici` client gets its own rendering, and the real
//! httpx reads the `httpx` rendering as intended (and rejects the shared list
//! of a dual-stack cluster, which the plan warns about).

#[path = "e2e/mod.rs"]
mod harness;

use harness::{example, for_each_terraform, run_cycle, Cycle, Feature, Workdir};
use serde_json::{json, Value};

/// A data source checking one destination for `clients`.
fn checked(clients: &str, destination: &str, fail: bool) -> String {
    format!(
        r#"
data "clusterproxy_no_proxy" "check" {{
  cluster_domain = "cluster.local"
  clients        = {clients}
  default_checks = false
  must_bypass    = ["{destination}"]
  fail_on_gap    = {fail}
}}

output "gaps" {{
  value = data.clusterproxy_no_proxy.check.gaps
}}

output "checked" {{
  value = data.clusterproxy_no_proxy.check.checked
}}
"#
    )
}

/// The error diagnostics of a `terraform plan -json` run: `(summary, detail)`.
fn error_diagnostics(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["type"] == "diagnostic" && message["@level"] == "error")
        .map(|message| {
            let diagnostic = &message["diagnostic"];
            (
                diagnostic["summary"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                diagnostic["detail"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Real Go sends `kubernetes.default.svc.cluster.local.` (trailing dot, as
/// pods write it to skip search domains) through the proxy although
/// `.cluster.local` is listed: the coverage check reports the gap, and with
/// `fail_on_gap` the plan fails. Without the dot there is no gap.
#[test]
fn trailing_dot_destination_is_a_gap_for_go() {
    let provider = example("provider/provider.tf");
    let dotted = "https://kubernetes.default.svc.cluster.local./";
    let gap = "https://kubernetes.default.svc.cluster.local.:443/";
    for_each_terraform(|tf| {
        let work = Workdir::from_files(
            tf,
            &[
                ("provider.tf", &provider),
                ("main.tf", &checked(r#"["go"]"#, dotted, true)),
            ],
        );
        let run = work.run(&["plan", "-json"]);
        assert_ne!(run.code, 0, "plan succeeded on {}", tf.version_string());
        let errors = error_diagnostics(&run.stdout);
        assert!(
            errors
                .iter()
                .any(|(summary, detail)| summary == "NO_PROXY coverage gap"
                    && detail.contains(&format!("go would proxy {gap}"))),
            "{errors:?}\n{}",
            run.combined()
        );

        let work = Workdir::from_files(
            tf,
            &[
                ("provider.tf", &provider),
                ("main.tf", &checked(r#"["go"]"#, dotted, false)),
            ],
        );
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(outputs["checked"], json!([gap]));
        assert_eq!(
            outputs["gaps"],
            json!([{"client": "go", "destination": gap}])
        );

        let plain = "https://kubernetes.default.svc.cluster.local/";
        let work = Workdir::from_files(
            tf,
            &[
                ("provider.tf", &provider),
                ("main.tf", &checked(r#"["go"]"#, plain, true)),
            ],
        );
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(outputs["gaps"], json!([]));
    });
}

/// The default `clients` is the original eight (adding `undici` changed no
/// merged list), and `undici` named explicitly gets its rendering and the
/// bracketed IPv6 form in the shared list.
#[test]
fn default_clients_stay_the_original_eight_and_undici_is_opt_in() {
    let provider = example("provider/provider.tf");
    let config = r#"
data "clusterproxy_no_proxy" "default" {
  installation = [".corp.example", "fd00::1", "10.0.0.0/8"]
}

data "clusterproxy_no_proxy" "undici" {
  installation = [".corp.example", "fd00::1", "10.0.0.0/8"]
  clients      = ["go", "undici"]
}

output "default_clients" {
  value = data.clusterproxy_no_proxy.default.clients
}

output "default_renderings" {
  value = keys(data.clusterproxy_no_proxy.default.renderings)
}

output "undici" {
  value = data.clusterproxy_no_proxy.undici.renderings["undici"]
}

output "undici_entries" {
  value = data.clusterproxy_no_proxy.undici.entries
}

output "undici_warnings" {
  value = [for w in data.clusterproxy_no_proxy.undici.client_warnings : w.entry if w.client == "undici"]
}
"#;
    for_each_terraform(|tf| {
        let work = Workdir::from_files(tf, &[("provider.tf", &provider), ("main.tf", config)]);
        let outputs = run_cycle(&work, &Cycle::default());
        let eight = json!(["go", "curl", "python", "requests", "ruby", "wget", "java", "node"]);
        assert_eq!(outputs["default_clients"], eight);
        let mut sorted: Vec<&str> = eight
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        sorted.sort_unstable();
        assert_eq!(outputs["default_renderings"], json!(sorted));
        // In the canonical order: names, then IPv4, then IPv6.
        assert_eq!(
            outputs["undici"],
            json!("cluster.local,.corp.example,localhost,.svc,127.0.0.1,[fd00::1]")
        );
        assert_eq!(
            outputs["undici_entries"],
            json!([
                "cluster.local",
                ".corp.example",
                "localhost",
                ".svc",
                "10.0.0.0/8",
                "127.0.0.1",
                "fd00::1",
                "[fd00::1]"
            ])
        );
        assert_eq!(
            outputs["undici_warnings"],
            json!([".corp.example", ".svc", "10.0.0.0/8"])
        );
    });
}

/// What the real httpx (tests/oracle/decide_httpx.py) does with each URL when
/// NO_PROXY is `no_proxy`: `direct`, `proxy` or `refused`.
fn real_httpx(no_proxy: &str, urls: &[&str]) -> Vec<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new("python3")
        .arg(root.join("tests/oracle/decide_httpx.py"))
        .env("PYTHONPATH", root.join(".tools/python"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let input: String = urls
        .iter()
        .map(|url| json!({"no_proxy": no_proxy, "url": url}).to_string() + "\n")
        .collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "httpx driver failed");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// `clients = ["httpx", ...]` on a dual-stack cluster: the shared list holds
/// an IPv6 CIDR and a bracketed address, which make the real httpx reject the
/// whole value (the plan warns); httpx's own rendering leaves them out (with
/// client warnings) and the real httpx reads it as intended: the cluster's
/// names, the listed IPv4 and IPv6 addresses and localhost direct, the
/// service CIDR's addresses (not expressible) and other hosts through the proxy.
#[test]
fn httpx_rendering_is_read_by_httpx_as_intended() {
    let provider = example("provider/provider.tf");
    let config = r#"
data "clusterproxy_no_proxy" "httpx" {
  installation   = [".corp.example", "registry.example.com:5000", "fd00::1", "10.0.0.7", "fd00:10:96::/112"]
  cluster_domain = "cluster.local"
  clients        = ["go", "python", "httpx"]
}

output "no_proxy" {
  value = data.clusterproxy_no_proxy.httpx.no_proxy
}

output "httpx" {
  value = data.clusterproxy_no_proxy.httpx.renderings["httpx"]
}

output "httpx_warnings" {
  value = [for w in data.clusterproxy_no_proxy.httpx.client_warnings : w.entry if w.client == "httpx"]
}
"#;
    let urls = [
        "https://kubernetes.default.svc.cluster.local/",
        "https://api.corp.example/",
        "http://registry.example.com:5000/v2/",
        "http://[fd00::1]/",
        "http://10.0.0.7/",
        "http://localhost:8080/",
        "http://a.localhost/",
        "https://registry.example.com/",
        "https://corp.example/",
        "http://[fd00:10:96::1]/",
        "https://example.org/",
    ];
    let intended = [
        "direct", "direct", "direct", "direct", "direct", "direct", "direct", "proxy", "proxy",
        "proxy", "proxy",
    ];
    for_each_terraform(|tf| {
        let work = Workdir::from_files(tf, &[("provider.tf", &provider), ("main.tf", config)]);
        let plan = work.run(&["plan", "-json"]);
        assert_eq!(plan.code, 0, "{}", plan.combined());
        let warned = plan
            .stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .any(|m| {
                m["type"] == "diagnostic"
                    && m["@level"] == "warn"
                    && m["diagnostic"]["summary"] == "httpx rejects this NO_PROXY value"
            });
        assert!(warned, "{}", plan.stdout);
        let outputs = run_cycle(&work, &Cycle::default());
        let shared = outputs["no_proxy"].as_str().unwrap();
        assert!(real_httpx(shared, &urls).iter().all(|d| d == "refused"));
        let rendering = outputs["httpx"].as_str().unwrap();
        assert_eq!(
            rendering,
            "cluster.local,.corp.example,localhost,.localhost,registry.example.com:5000,.svc,10.0.0.7,127.0.0.1,fd00::1"
        );
        assert_eq!(real_httpx(rendering, &urls), intended, "{rendering}");
        assert_eq!(outputs["httpx_warnings"], json!(["fd00:10:96::/112"]));
        if !tf.supports(Feature::Functions) {
            return;
        }
        // no_proxy_bypasses answers for httpx as the real httpx does.
        let function = r#"
output "bare" {
  value = provider::clusterproxy::no_proxy_bypasses("fd00::1", "http://[fd00::1]/", "httpx")
}

output "bracketed" {
  value = provider::clusterproxy::no_proxy_bypasses("[fd00::1]", "http://[fd00::1]/", "httpx")
}
"#;
        let work = Workdir::from_files(tf, &[("provider.tf", &provider), ("main.tf", function)]);
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(real_httpx("fd00::1", &["http://[fd00::1]/"]), ["direct"]);
        assert_eq!(real_httpx("[fd00::1]", &["http://[fd00::1]/"]), ["refused"]);
        assert_eq!(outputs["bare"], json!(true));
        assert_eq!(outputs["bracketed"], json!(false));
    });
}
