//! End-to-end tests of the client models through `clusterproxy_no_proxy` with
//! real Terraform 1.11 and 1.0.3: the coverage check reports a destination
//! spelled the way a client reads differently (a trailing-dot name for Go),
//! `fail_on_gap` fails the plan on it, the default client set stays the
//! original eight, and the `undici` client gets its own rendering; the
//! `reqwest` client's rendering is read as intended by the real reqwest, and
//! the `httpx` client's by the real httpx (which rejects the shared list of a
//! dual-stack cluster, as the plan warns).

use crate::cycle::{run_cycle, Capability, Cycle};
use crate::harness::for_each_terraform_rendering;
use crate::harness::{example, Workdir};
use crate::oracle::Case;
use clusterproxy::domain::no_proxy::dialect::Decision;
use clusterproxy::domain::no_proxy::Dialect;
use serde_json::json;

/// A report checking one destination for `clients`; with `fail`, both it
/// and the list fail on a gap.
fn checked(clients: &str, destination: &str, fail: bool) -> String {
    let inputs = format!(
        r#"
  cluster_domain = "cluster.local"
  clients        = {clients}
  default_checks = false
  must_bypass    = ["{destination}"]
  fail_on_gap    = {fail}
"#
    );
    let list = if fail {
        format!("data \"clusterproxy_no_proxy\" \"check\" {{{inputs}}}\n")
    } else {
        String::new()
    };
    format!(
        r#"
{list}
data "clusterproxy_no_proxy_report" "check" {{{inputs}}}

output "gaps" {{
  value = data.clusterproxy_no_proxy_report.check.gaps_by_client
}}

output "checked" {{
  value = data.clusterproxy_no_proxy_report.check.checked
}}
"#
    )
}

/// Real Go sends `kubernetes.default.svc.cluster.local.` (trailing dot, as
/// pods write it to skip search domains) through the proxy although
/// `.cluster.local` is listed: the coverage check reports the gap, and with
/// `fail_on_gap` the plan fails. Without the dot there is no gap.
#[test]
fn trailing_dot_destination_is_a_gap_for_go() {
    let dotted = "https://kubernetes.default.svc.cluster.local./";
    let gap = "https://kubernetes.default.svc.cluster.local./";
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, &checked(r#"["go"]"#, dotted, true));
        let run = work.run(&["plan", "-json"]);
        assert_ne!(run.code, 0, "plan succeeded on {}", tf.version_string());
        let errors = run.error_texts();
        assert!(
            errors
                .iter()
                .any(|text| text.starts_with("NO_PROXY coverage gap\n")
                    && text.contains(&format!("go would proxy {gap}"))),
            "{errors:?}\n{}",
            run.combined()
        );

        let work = Workdir::with_provider(tf, &checked(r#"["go"]"#, dotted, false));
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(outputs["checked"], json!([gap]));
        assert_eq!(outputs["gaps"], json!({"go": [gap]}));

        let plain = "https://kubernetes.default.svc.cluster.local/";
        let work = Workdir::with_provider(tf, &checked(r#"["go"]"#, plain, true));
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(outputs["gaps"], json!({}));
    });
}

/// Without `clients` the list is made for the original eight (adding `undici`
/// changed no merged list) and nothing is rendered; `undici` named explicitly
/// gets its rendering, its warnings (in the report) and the bracketed IPv6
/// form in the shared list.
#[test]
fn default_clients_stay_the_original_eight_and_undici_is_opt_in() {
    let config = r#"
data "clusterproxy_no_proxy" "default" {
  installation = [".corp.example", "fd00::1", "10.0.0.0/8"]
}

data "clusterproxy_no_proxy" "undici" {
  installation = [".corp.example", "fd00::1", "10.0.0.0/8"]
  clients      = ["go", "undici"]
}

data "clusterproxy_no_proxy_report" "undici" {
  installation = [".corp.example", "fd00::1", "10.0.0.0/8"]
  clients      = ["go", "undici"]
}

output "default_clients_unset" {
  value = data.clusterproxy_no_proxy.default.clients == null
}

# Made for the default clients: Python and Node need the bracketed form.
output "default_bracketed" {
  value = contains(data.clusterproxy_no_proxy.default.entries, "[fd00::1]")
}

# Only named clients are rendered.
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
  value = [for w in data.clusterproxy_no_proxy_report.undici.client_warnings : w.entries if w.client == "undici"]
}
"#;
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, config);
        let outputs = run_cycle(&work, &Cycle::default());
        assert_eq!(outputs["default_clients_unset"], json!(true));
        assert_eq!(outputs["default_bracketed"], json!(true));
        assert_eq!(outputs["default_renderings"], json!([]));
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
            // One object per message: the leading dots, then the CIDR block.
            json!([[".corp.example", ".svc"], ["10.0.0.0/8"]])
        );
    });
}

/// `clients = ["reqwest"]` gets a rendering the real reqwest (tests/oracle/reqwest)
/// reads as intended: every listed destination direct, others proxied; with
/// `*`, IP literals direct too (reqwest's `*` covers names only, so the
/// rendering adds `0.0.0.0/0` and `::/0`), and the shared list keeps the other
/// entries for reqwest. The coverage check finds no gap for reqwest (a
/// `host:port` entry would be one: reqwest never matches it in the shared
/// list, so the rendering drops the port).
#[test]
fn reqwest_rendering_is_read_as_intended_by_reqwest() {
    let config = r#"
data "clusterproxy_no_proxy" "reqwest" {
  installation   = [".corp.example", "fd00::1", "10.0.0.0/8", "api.example:6443"]
  clients        = ["reqwest"]
  default_checks = false
  must_bypass    = ["https://a.corp.example/", "http://10.1.2.3/", "http://[fd00::1]/"]
  fail_on_gap    = true
}

data "clusterproxy_no_proxy_report" "reqwest" {
  installation   = [".corp.example", "fd00::1", "10.0.0.0/8", "api.example:6443"]
  clients        = ["reqwest"]
  default_checks = false
  must_bypass    = ["https://a.corp.example/", "http://10.1.2.3/", "http://[fd00::1]/"]
}

data "clusterproxy_no_proxy" "star" {
  installation = ["*", "10.0.0.0/8"]
  clients      = ["reqwest"]
}

output "reqwest" {
  value = data.clusterproxy_no_proxy.reqwest.renderings["reqwest"]
}

output "reqwest_gaps" {
  value = data.clusterproxy_no_proxy_report.reqwest.gaps_by_client
}

output "reqwest_warnings" {
  value = flatten([for w in data.clusterproxy_no_proxy_report.reqwest.client_warnings : w.entries if w.client == "reqwest"])
}

output "star" {
  value = data.clusterproxy_no_proxy.star.renderings["reqwest"]
}

output "star_entries" {
  value = data.clusterproxy_no_proxy.star.entries
}
"#;
    for_each_terraform_rendering(|tf| {
        let work = Workdir::with_provider(tf, config);
        let outputs = run_cycle(&work, &Cycle::default());
        let rendering = outputs["reqwest"].as_str().unwrap().to_owned();
        assert_eq!(
            rendering,
            "api.example,cluster.local,.corp.example,localhost,.svc,10.0.0.0/8,127.0.0.1,fd00::1"
        );
        assert_eq!(outputs["reqwest_gaps"], json!({}));
        assert_eq!(
            outputs["reqwest_warnings"],
            json!(["api.example:6443", ".corp.example", ".svc"])
        );
        let star = outputs["star"].as_str().unwrap().to_owned();
        assert_eq!(
            star,
            "*,0.0.0.0/0,::/0,cluster.local,localhost,.svc,10.0.0.0/8,127.0.0.1"
        );
        assert_eq!(
            outputs["star_entries"],
            json!([
                "*",
                "cluster.local",
                "localhost",
                ".svc",
                "10.0.0.0/8",
                "127.0.0.1"
            ])
        );

        let expect = [
            (&rendering, "https://a.corp.example/", Decision::Direct),
            (&rendering, "https://corp.example/", Decision::Direct),
            (&rendering, "https://API.example:6443/", Decision::Direct),
            (&rendering, "http://10.1.2.3:8080/", Decision::Direct),
            (&rendering, "http://[fd00:0::1]/", Decision::Direct),
            (
                &rendering,
                "https://kubernetes.default.svc/",
                Decision::Direct,
            ),
            (&rendering, "http://localhost/", Decision::Direct),
            (&rendering, "https://example.org/", Decision::Proxy),
            (&rendering, "http://192.168.1.1/", Decision::Proxy),
            (&rendering, "http://[::ffff:10.1.2.3]/", Decision::Proxy),
            (&star, "https://example.org/", Decision::Direct),
            (&star, "http://192.168.1.1/", Decision::Direct),
            (&star, "http://[2001:db8::5]/", Decision::Direct),
        ];
        let cases: Vec<Case> = expect
            .iter()
            .map(|(setting, url, _)| Case {
                setting: (*setting).clone(),
                url: (*url).to_owned(),
            })
            .collect();
        let want: Vec<Decision> = expect.iter().map(|e| e.2).collect();
        assert_eq!(crate::oracle::decide(Dialect::REQWEST, &cases), want);
    });
}

/// What the real httpx does with each URL when NO_PROXY is `no_proxy`.
fn real_httpx(no_proxy: &str, urls: &[&str]) -> Vec<Decision> {
    let cases: Vec<Case> = urls
        .iter()
        .map(|url| Case {
            setting: no_proxy.to_owned(),
            url: (*url).to_owned(),
        })
        .collect();
    crate::oracle::decide(Dialect::HTTPX, &cases)
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

data "clusterproxy_no_proxy_report" "httpx" {
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
  value = flatten([for w in data.clusterproxy_no_proxy_report.httpx.client_warnings : w.entries if w.client == "httpx"])
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
    use Decision::{Direct, Proxy};
    let intended = [
        Direct, Direct, Direct, Direct, Direct, Direct, Direct, Proxy, Proxy, Proxy, Proxy,
    ];
    for_each_terraform_rendering(|tf| {
        let work = Workdir::from_files(tf, &[("provider.tf", &provider), ("main.tf", config)]);
        let plan = work.run(&["plan", "-json"]);
        assert_eq!(plan.code, 0, "{}", plan.combined());
        let warned = !plan
            .warnings(|s| s == "httpx rejects this NO_PROXY value")
            .is_empty();
        assert!(warned, "{}", plan.stdout);
        let outputs = run_cycle(&work, &Cycle::default());
        let shared = outputs["no_proxy"].as_str().unwrap();
        assert!(real_httpx(shared, &urls)
            .iter()
            .all(|d| *d == Decision::Refused));
        let rendering = outputs["httpx"].as_str().unwrap();
        assert_eq!(
            rendering,
            "cluster.local,.corp.example,localhost,.localhost,registry.example.com:5000,.svc,10.0.0.7,127.0.0.1,fd00::1"
        );
        assert_eq!(real_httpx(rendering, &urls), intended, "{rendering}");
        assert_eq!(outputs["httpx_warnings"], json!(["fd00:10:96::/112"]));
        if !tf.supports(Capability::Functions) {
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
        assert_eq!(
            real_httpx("fd00::1", &["http://[fd00::1]/"]),
            [Decision::Direct]
        );
        assert_eq!(
            real_httpx("[fd00::1]", &["http://[fd00::1]/"]),
            [Decision::Refused]
        );
        assert_eq!(outputs["bare"], json!(true));
        assert_eq!(outputs["bracketed"], json!(false));
    });
}
