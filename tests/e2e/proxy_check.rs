//! `ephemeral "clusterproxy_proxy_check"` on Terraform 1.11 against a real
//! squid on loopback (tests/support/squid.rs) with a hostile password: the
//! right password lets the plan through, a wrong one stops it before any
//! resource changes and shows nowhere, an unreachable or silent proxy fails
//! within the timeout, `fail_on_error = false` reports without failing, and
//! the docs example gates a password rotation. Terraform 1.0.3 does not know
//! the block. The action of the same name (Terraform >= 1.14) runs the same
//! check when Terraform invokes it: it halts the roll it triggers on.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use crate::cycle::hcl_string;
use crate::diagnostics::expect_bad_inputs;
use crate::harness::{
    example, for_each_terraform_with, terraform_1_0, Capability, Terraform, Workdir,
};
use crate::squid::{Origin, Squid};

/// The proxy user.
const USER: &str = "svc-k8s";
/// Space, `/`, `#`, `%`, `:`, `@` and non-ASCII.
const PASSWORD: &str = "p@ss w/rd#%:é!";
/// Another hostile password the proxy refuses.
const WRONG: &str = "wr@ng w/rd#%:ö";

/// A configuration with the check (`arguments` in its block, the password
/// from an ephemeral variable) and a `terraform_data` after it whose
/// precondition `condition` reads its results.
fn config(arguments: &str, condition: &str) -> String {
    format!(
        r#"
variable "proxy_password" {{
  type      = string
  ephemeral = true
}}

ephemeral "clusterproxy_proxy_check" "gate" {{
{arguments}
}}

resource "terraform_data" "after" {{
  input = "created"
  lifecycle {{
    precondition {{
      condition     = {condition}
      error_message = "unexpected check results"
    }}
  }}
}}
"#
    )
}

/// The working directory of `main`, the password in a variables file
/// (never on the command line, which Terraform's trace log shows).
fn workdir(tf: &Terraform, main: &str, password: &str) -> Workdir {
    let work = Workdir::with_provider(tf, main);
    work.write_file(
        "secret.auto.tfvars",
        &format!("proxy_password = {}\n", hcl_string(password)),
    );
    work
}

fn direct(proxy: &str, url: &str, extra: &str) -> String {
    format!(
        "  http_proxy = {}\n  username = {}\n  password = var.proxy_password\n  url = {}\n{extra}",
        hcl_string(proxy),
        hcl_string(USER),
        hcl_string(url)
    )
}

/// The addresses of the resources in the state (none when there is no
/// state), from `show -json`.
fn state_list(work: &Workdir) -> Vec<String> {
    let state = work.state();
    state["values"]["root_module"]["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|resource| resource["address"].as_str().unwrap().to_owned())
        .collect()
}

/// The right password: the plan passes with `authenticated` and the
/// origin's 200, squid logs the user's GET, the origin sees it proxied, and
/// neither the plan's output nor the trace log holds the password; the
/// apply creates what follows the check.
#[test]
fn right_password_lets_the_plan_through() {
    for_each_terraform_with(
        Capability::Ephemeral,
        right_password_lets_the_plan_through_on,
    );
}

fn right_password_lets_the_plan_through_on(tf: &Terraform) {
    let squid = Squid::start(&[(USER, PASSWORD)]);
    let origin = Origin::start();
    let url = origin.url("127.0.0.1", "/v2/");
    let main = config(
        &direct(&squid.url(), &url, ""),
        "ephemeral.clusterproxy_proxy_check.gate.authenticated && ephemeral.clusterproxy_proxy_check.gate.status_code == 200 && ephemeral.clusterproxy_proxy_check.gate.error == null",
    );
    let work = workdir(tf, &main, PASSWORD);
    let run = work.assert_secret_absent(&["plan", "-json"], PASSWORD);
    assert_eq!(run.code, 0, "{}", run.combined());
    let log = squid.wait_for(|a| a.method == "GET" && a.status == 200);
    assert!(
        log.iter()
            .any(|a| a.user.as_deref() == Some(USER) && a.url.ends_with("/v2/")),
        "{log:?}"
    );
    assert!(origin.arrivals().iter().all(|a| a.via_proxy));
    // A saved plan holds no ephemeral value.
    work.run_ok(&["plan", "-out", "saved.tfplan"]);
    let saved = work.run_ok(&["show", "-json", "saved.tfplan"]);
    assert!(!saved.stdout.contains(PASSWORD) && saved.stdout.contains("terraform_data.after"));
    work.run_ok(&["apply", "-auto-approve"]);
    assert_eq!(state_list(&work), ["terraform_data.after"]);
}

/// An `https://` proxy is verified with `trusted_ca` (its CA is in no
/// store of the machine, so without it the TLS handshake fails, on
/// `trusted_ca`); an IPv6 proxy address works as any other.
#[test]
fn https_and_ipv6_proxies() {
    for_each_terraform_with(Capability::Ephemeral, https_and_ipv6_proxies_on);
}

fn https_and_ipv6_proxies_on(tf: &Terraform) {
    let origin = Origin::start();
    let passed = "ephemeral.clusterproxy_proxy_check.gate.authenticated && ephemeral.clusterproxy_proxy_check.gate.status_code == 200";
    let https = Squid::start_https(&[(USER, PASSWORD)]);
    let ca = hcl_string(https.ca_pem().unwrap());
    let url = origin.url("127.0.0.1", "/tls/");
    let trusted = config(
        &direct(&https.url(), &url, &format!("  trusted_ca = {ca}\n")),
        passed,
    );
    workdir(tf, &trusted, PASSWORD).run_ok(&["plan"]);
    let untrusted = config(&direct(&https.url(), &url, ""), passed);
    let reported = workdir(tf, &untrusted, PASSWORD).expect_diagnostic_at(
        &["plan"],
        "TLS with the proxy failed",
        "ephemeral \"clusterproxy_proxy_check\" \"gate\" {",
    );
    assert!(
        reported.text().contains("trusted_ca"),
        "{}",
        reported.text()
    );
    let ipv6 = Squid::start_ipv6(&[(USER, PASSWORD)]);
    let main = config(
        &direct(&ipv6.url(), &origin.url("[::1]", "/v6/"), ""),
        passed,
    );
    workdir(tf, &main, PASSWORD).run_ok(&["plan"]);
    let log = ipv6.wait_for(|a| a.status == 200);
    assert!(
        log.iter()
            .any(|a| a.user.as_deref() == Some(USER) && a.status == 200),
        "{log:?}"
    );
}

/// A wrong password: the plan fails on `password` with the proxy's 407,
/// nothing is created, and no output holds either password.
#[test]
fn wrong_password_stops_the_plan_before_anything_changes() {
    for_each_terraform_with(
        Capability::Ephemeral,
        wrong_password_stops_the_plan_before_anything_changes_on,
    );
}

fn wrong_password_stops_the_plan_before_anything_changes_on(tf: &Terraform) {
    let squid = Squid::start(&[(USER, PASSWORD)]);
    let origin = Origin::start();
    let main = config(
        &direct(&squid.url(), &origin.url("127.0.0.1", "/v2/"), ""),
        "ephemeral.clusterproxy_proxy_check.gate.url != \"\"",
    );
    let work = workdir(tf, &main, WRONG);
    let reported =
        work.expect_diagnostic_at(&["plan"], "Proxy refused the credentials", "password");
    assert!(
        reported.text().contains(&squid.url()),
        "{}",
        reported.text()
    );
    for secret in [WRONG, PASSWORD] {
        let run = work.assert_secret_absent(&["plan", "-json"], secret);
        assert_ne!(run.code, 0);
    }
    let run = work.run(&["apply", "-auto-approve"]);
    assert_ne!(run.code, 0, "{}", run.combined());
    assert!(state_list(&work).is_empty());
    assert!(squid
        .wait_for(|a| a.status == 407)
        .iter()
        .any(|a| a.status == 407));
    assert!(origin.arrivals().is_empty());
}

/// An `https://` URL goes through a CONNECT tunnel: a wrong password is the
/// proxy's 407 to the CONNECT; with `fail_on_error = false` the results say
/// so and the plan passes with a warning on `password`.
#[test]
fn fail_on_error_false_reports_a_refused_tunnel_without_failing() {
    for_each_terraform_with(
        Capability::Ephemeral,
        fail_on_error_false_reports_a_refused_tunnel_without_failing_on,
    );
}

fn fail_on_error_false_reports_a_refused_tunnel_without_failing_on(tf: &Terraform) {
    let squid = Squid::start(&[(USER, PASSWORD)]);
    let origin = Origin::start();
    // The plain-HTTP listener under an https:// URL: the tunnel opens, TLS fails.
    let url = origin
        .url("127.0.0.1", "/v2/")
        .replacen("http://", "https://", 1);
    let main = config(
        &direct(&squid.url(), &url, "  fail_on_error = false\n"),
        "!ephemeral.clusterproxy_proxy_check.gate.authenticated && ephemeral.clusterproxy_proxy_check.gate.status_code == 407 && startswith(ephemeral.clusterproxy_proxy_check.gate.error, \"proxy_auth_required: \")",
    );
    let work = workdir(tf, &main, WRONG);
    work.expect_diagnostic(
        &["plan"],
        "warning",
        "Proxy refused the credentials",
        "password",
    );
    let log = squid.wait_for(|a| a.method == "CONNECT");
    assert!(
        log.iter().any(|a| a.method == "CONNECT" && a.status == 407),
        "{log:?}"
    );
    work.run_ok(&["apply", "-auto-approve"]);
    assert_eq!(state_list(&work), ["terraform_data.after"]);
    // The right password opens the tunnel; the origin speaks no TLS, so
    // the handshake with the destination fails, reported as such.
    let main = config(
        &direct(&squid.url(), &url, "  fail_on_error = false\n"),
        "ephemeral.clusterproxy_proxy_check.gate.authenticated && ephemeral.clusterproxy_proxy_check.gate.status_code == null && startswith(ephemeral.clusterproxy_proxy_check.gate.error, \"tls: \")",
    );
    workdir(tf, &main, PASSWORD).expect_diagnostic(
        &["plan"],
        "warning",
        "TLS with the destination failed",
        "ephemeral \"clusterproxy_proxy_check\" \"gate\" {",
    );
}

/// A closed loopback port fails at once, on `http_proxy`; a proxy that
/// accepts the connection and never answers fails after `timeout` seconds.
/// Prints how long each plan took.
#[test]
fn unreachable_or_silent_proxy_fails_within_the_timeout() {
    for_each_terraform_with(
        Capability::Ephemeral,
        unreachable_or_silent_proxy_fails_within_the_timeout_on,
    );
}

fn unreachable_or_silent_proxy_fails_within_the_timeout_on(tf: &Terraform) {
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = "http://127.0.0.1:9/v2/";
    for (port, summary) in [
        (closed, "Proxy unreachable"),
        (silent.local_addr().unwrap().port(), "Proxy check timed out"),
    ] {
        let proxy = format!("http://127.0.0.1:{port}");
        let main = config(
            &direct(&proxy, url, "  timeout = 3\n"),
            "ephemeral.clusterproxy_proxy_check.gate.url != \"\"",
        );
        let work = workdir(tf, &main, PASSWORD);
        let started = Instant::now();
        work.expect_diagnostic_at(&["plan"], summary, "http_proxy");
        let took = started.elapsed();
        println!("{summary}: plan failed after {took:?}");
        assert!(took < Duration::from_secs(60), "{summary}: {took:?}");
        assert!(state_list(&work).is_empty());
    }
}

/// The variables of the rotation examples (the ephemeral resource's and the
/// action's): `squid` as the proxy, the user, the origin's `/v2/` as the
/// URL checked, and `password` at `version`.
fn rotation_vars(work: &Workdir, squid: &Squid, origin: &Origin, password: &str, version: u32) {
    work.write_file(
        "test.auto.tfvars",
        &format!(
            "proxy = {{ http_proxy = {}, username = {} }}\ncheck_url = {}\nproxy_password = {}\nproxy_password_version = {version}\n",
            hcl_string(&squid.url()),
            hcl_string(USER),
            hcl_string(&origin.url("127.0.0.1", "/v2/")),
            hcl_string(password),
        ),
    );
}

/// The docs example: the right password creates the profile; a rotation
/// (`password_wo_version` bump) to a password the proxy refuses fails at
/// plan time and leaves the profile as it was.
#[test]
fn rotation_gate_example_stops_a_refused_password() {
    for_each_terraform_with(
        Capability::Ephemeral,
        rotation_gate_example_stops_a_refused_password_on,
    );
}

fn rotation_gate_example_stops_a_refused_password_on(tf: &Terraform) {
    let squid = Squid::start(&[(USER, PASSWORD)]);
    let origin = Origin::start();
    let work = Workdir::with_provider(
        tf,
        &example("ephemeral-resources/clusterproxy_proxy_check/ephemeral-resource.tf"),
    );
    let vars = |password: &str, version: u32| {
        rotation_vars(&work, &squid, &origin, password, version);
    };
    vars(PASSWORD, 1);
    work.run_ok(&["apply", "-auto-approve"]);
    let before = work.resource_values("clusterproxy_profile.corp");
    assert_eq!(before["password_wo_version"], 1);
    vars(WRONG, 2);
    let reported =
        work.expect_diagnostic_at(&["plan"], "Proxy refused the credentials", "password");
    assert!(!reported.run.combined().contains(WRONG));
    let run = work.run(&["apply", "-auto-approve"]);
    assert_ne!(run.code, 0);
    assert_eq!(work.resource_values("clusterproxy_profile.corp"), before);
    // Where the pipeline cannot reach the proxy, `gate = false` lets the
    // plan through with a warning; a refused password still stops it (the
    // example's precondition on the 407).
    work.write_file("gate.auto.tfvars", "gate = false\n");
    work.expect_diagnostic_at(&["plan"], "The proxy refuses the new password", "condition");
}

/// A profile's settings with the password merged in: the right password
/// passes, a wrong one fails on `profile`, before the profile is created.
#[test]
fn profile_settings_with_the_password_merged_in() {
    for_each_terraform_with(
        Capability::Ephemeral,
        profile_settings_with_the_password_merged_in_on,
    );
}

fn profile_settings_with_the_password_merged_in_on(tf: &Terraform) {
    let squid = Squid::start(&[(USER, PASSWORD)]);
    let origin = Origin::start();
    let main = |url: &str| {
        format!(
            r#"
variable "proxy_password" {{
  type      = string
  ephemeral = true
}}

resource "clusterproxy_profile" "corp" {{
  name                = "corp"
  http_proxy          = {proxy}
  username            = {user}
  password_wo         = var.proxy_password
  password_wo_version = 1
}}

ephemeral "clusterproxy_proxy_check" "gate" {{
  profile = merge(clusterproxy_profile.corp.settings, {{ password = var.proxy_password }})
  url     = {url}
}}

resource "terraform_data" "after" {{
  input = "created"
  lifecycle {{
    precondition {{
      condition     = ephemeral.clusterproxy_proxy_check.gate.status_code == 200
      error_message = "unexpected check results"
    }}
  }}
}}
"#,
            proxy = hcl_string(&squid.url()),
            user = hcl_string(USER),
            url = hcl_string(url),
        )
    };
    let url = origin.url("127.0.0.1", "/profile/");
    let wrong = workdir(tf, &main(&url), WRONG);
    wrong.expect_diagnostic_at(&["plan"], "Proxy refused the credentials", "profile");
    assert!(state_list(&wrong).is_empty());
    let right = workdir(tf, &main(&url), PASSWORD);
    right.assert_secret_absent(&["apply", "-auto-approve"], PASSWORD);
    assert_eq!(
        state_list(&right),
        ["clusterproxy_profile.corp", "terraform_data.after"]
    );
}

/// Bad input: an error on the attribute, the password nowhere.
#[test]
fn bad_inputs_are_diagnostics_on_their_attribute() {
    for_each_terraform_with(
        Capability::Ephemeral,
        bad_inputs_are_diagnostics_on_their_attribute_on,
    );
}

fn bad_inputs_are_diagnostics_on_their_attribute_on(tf: &Terraform) {
    let block = |arguments: &str| {
        format!("variable \"proxy_password\" {{\n  type = string\n  ephemeral = true\n}}\n\nephemeral \"clusterproxy_proxy_check\" \"gate\" {{\n{arguments}\n}}\n")
    };
    let mut cases = bad_inputs(&block, "ephemeral \"clusterproxy_proxy_check\" \"gate\" {");
    cases.push((
        block("  https_proxy = \"http://127.0.0.1:9\"\n  url = \"http://a.example/\""),
        "No proxy for this URL",
        "url",
        Some("`http_proxy`"),
    ));
    let files = [("secret.auto.tfvars", "proxy_password = \"hunter2\"\n")];
    expect_bad_inputs(tf, &files, Some("hunter2"), &cases);
}

/// The bad inputs the ephemeral resource and the action refuse alike while
/// Terraform plans, each `(main.tf, summary, attribute, mention)`: `block`
/// makes a configuration from the arguments, `header` is the line a missing
/// argument is reported at.
fn bad_inputs(
    block: &dyn Fn(&str) -> String,
    header: &'static str,
) -> Vec<(String, &'static str, &'static str, Option<&'static str>)> {
    let proxy = "  http_proxy = \"http://127.0.0.1:9\"\n";
    vec![
        (
            block(&format!("{proxy}  url = \"registry.corp.example/v2/\"")),
            "Invalid URL",
            "url",
            Some("no absolute URL"),
        ),
        (
            block(&format!("{proxy}  url = \"ftp://registry.corp.example/\"")),
            "Invalid URL",
            "url",
            Some("`http` or `https`"),
        ),
        (
            block(&format!(
                "{proxy}  url = \"https://u:pw@registry.corp.example/\""
            )),
            "Invalid URL",
            "url",
            Some("user name or password"),
        ),
        (
            block(proxy),
            "Missing required argument",
            header,
            Some("url"),
        ),
        (
            block(&format!(
                "{proxy}  url = \"http://a.example/\"\n  timeout = 61"
            )),
            "Value out of range",
            "timeout",
            Some("from 1 to 60"),
        ),
        (
            block(&format!(
                "{proxy}  url = \"http://a.example/\"\n  timeout = 0"
            )),
            "Value out of range",
            "timeout",
            None,
        ),
        (
            block(&format!(
                "{proxy}  url = \"http://a.example/\"\n  username = \"svc\""
            )),
            "Password without value",
            "username",
            Some("`password`"),
        ),
    ]
}

/// `action "clusterproxy_proxy_check"` (Terraform >= 1.14), the docs
/// example against squid: the right password lets the rollout it triggers
/// on through, with the check's progress in `apply -json`; a rotation to a
/// password the proxy refuses halts the apply before the rollout changes
/// and shows the password nowhere; the right one then rolls it;
/// `apply -invoke` runs the check on demand and changes nothing, and fails
/// on a refused password.
#[test]
fn action_gate_example_halts_the_roll_on_a_refused_password() {
    for_each_terraform_with(
        Capability::Actions,
        action_gate_example_halts_the_roll_on_a_refused_password_on,
    );
}

/// The messages of `type` in the JSON lines of a run's output.
fn json_messages(stdout: &str, kind: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["type"] == kind)
        .collect()
}

fn action_gate_example_halts_the_roll_on_a_refused_password_on(tf: &Terraform) {
    let squid = Squid::start(&[(USER, PASSWORD)]);
    let origin = Origin::start();
    let work = Workdir::with_provider(tf, &example("actions/clusterproxy_proxy_check/action.tf"));
    let vars = |password: &str, version: u32| {
        rotation_vars(&work, &squid, &origin, password, version);
    };
    let version = tf.version_string();
    vars(PASSWORD, 1);
    let applied = work.run_ok(&["apply", "-auto-approve", "-json"]);
    let progress: Vec<String> = json_messages(&applied.stdout, "action_progress")
        .iter()
        .map(|m| m["hook"]["message"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(
        progress.iter().any(|m| m.starts_with("Requesting "))
            && progress.iter().any(|m| m.contains("HTTP 200")),
        "no progress of the check on {version}: {progress:?}"
    );
    assert_eq!(json_messages(&applied.stdout, "action_complete").len(), 1);
    let rolled = work.resource_values("terraform_data.rollout");

    vars(WRONG, 2);
    let refused = work.run(&["apply", "-auto-approve", "-json"]);
    assert_ne!(refused.code, 0, "a refused password applied on {version}");
    assert!(!json_messages(&refused.stdout, "action_errored").is_empty());
    assert!(
        crate::harness::json_diagnostics(&refused.stdout)
            .iter()
            .any(|d| d["summary"] == "Error when invoking action"
                && d["detail"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("Proxy refused the credentials: "))),
        "{}",
        refused.combined()
    );
    assert!(!refused.combined().contains(WRONG));
    assert_eq!(
        work.resource_values("terraform_data.rollout"),
        rolled,
        "the rollout changed after the check failed on {version}"
    );

    vars(PASSWORD, 2);
    work.run_ok(&["apply", "-auto-approve"]);
    assert_ne!(work.resource_values("terraform_data.rollout"), rolled);

    let state = work.state();
    let invoke = [
        "apply",
        "-auto-approve",
        "-json",
        "-invoke=action.clusterproxy_proxy_check.rollout",
    ];
    let invoked = work.run_ok(&invoke);
    assert_eq!(json_messages(&invoked.stdout, "action_complete").len(), 1);
    assert_eq!(
        work.state()["values"],
        state["values"],
        "-invoke changed the state"
    );
    vars(WRONG, 2);
    let refused = work.run(&invoke);
    assert_ne!(refused.code, 0);
    assert!(!refused.combined().contains(WRONG));
}

/// The action refuses, while Terraform validates its configuration, what
/// the ephemeral resource refuses, with the same diagnostics on the same
/// attributes; the password shows nowhere.
#[test]
fn the_action_refuses_what_the_ephemeral_resource_refuses() {
    for_each_terraform_with(Capability::Actions, |tf| {
        let block = |arguments: &str| {
            format!("variable \"proxy_password\" {{\n  type = string\n  ephemeral = true\n}}\n\naction \"clusterproxy_proxy_check\" \"gate\" {{\n  config {{\n{arguments}\n  }}\n}}\n")
        };
        let files = [("secret.auto.tfvars", "proxy_password = \"hunter2\"\n")];
        expect_bad_inputs(tf, &files, Some("hunter2"), &bad_inputs(&block, "config {"));
    });
}

/// Terraform 1.0.3 rejects the block (ephemeral resources need 1.10), as
/// the docs say.
#[test]
fn terraform_1_0_does_not_know_ephemeral_resources() {
    let old = terraform_1_0();
    let work = Workdir::with_provider(
        &old,
        &example("ephemeral-resources/clusterproxy_proxy_check/ephemeral-resource.tf"),
    );
    let run = work.run(&["validate"]);
    assert_ne!(run.code, 0);
    assert!(
        run.combined().contains("Unsupported block type") || run.combined().contains("ephemeral"),
        "{}",
        run.combined()
    );
}

/// What a proxy that re-signs TLS controls: its certificate's names, which
/// could carry the password it read from `Proxy-Authorization`.
const MARKER: &str = "marker-p4ssw0rd";

/// A TLS "proxy" on loopback whose certificate, signed by a CA of its own,
/// names only `MARKER.example` (never the address it is reached at): its
/// port and the CA (PEM). It serves handshakes until the test ends.
fn marked_tls_proxy() -> (u16, String) {
    use std::sync::Arc;
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, format!("{MARKER} CA"));
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(vec![format!("{MARKER}.example")]).unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, format!("{MARKER}.example"));
    let certificate = params.signed_by(&key, &ca).unwrap();
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::aws_lc_rs::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![certificate.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )
        .unwrap(),
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut connection = rustls::ServerConnection::new(config.clone()).unwrap();
            while connection.is_handshaking() && connection.complete_io(&mut stream).is_ok() {}
        }
    });
    (port, ca.pem())
}

/// A TLS failure is a fixed category in our words: the names a re-signing
/// proxy chose (a marker here) show nowhere, whether its certificate is
/// for another name (its CA trusted) or from an unknown CA. A proxy name
/// that does not resolve says so (`.invalid`: never looked up).
#[test]
fn tls_and_name_failures_are_fixed_categories() {
    for_each_terraform_with(
        Capability::Ephemeral,
        tls_and_name_failures_are_fixed_categories_on,
    );
}

fn tls_and_name_failures_are_fixed_categories_on(tf: &Terraform) {
    let (port, ca) = marked_tls_proxy();
    let proxy = format!("https://127.0.0.1:{port}");
    let url = "http://127.0.0.1:9/v2/";
    let condition = "ephemeral.clusterproxy_proxy_check.gate.url != \"\"";
    // Without `trusted_ca` in the block, Terraform points at the block.
    let block = "ephemeral \"clusterproxy_proxy_check\" \"gate\" {";
    for (trusted_ca, detail, at) in [
        (
            format!("  trusted_ca = {}\n", hcl_string(&ca)),
            "not valid for the name connected to",
            "trusted_ca",
        ),
        (String::new(), "not signed by a trusted CA", block),
    ] {
        let work = workdir(
            tf,
            &config(&direct(&proxy, url, &trusted_ca), condition),
            PASSWORD,
        );
        let reported = work.expect_diagnostic_at(&["plan"], "TLS with the proxy failed", at);
        assert!(reported.text().contains(detail), "{}", reported.text());
        let shown = reported.run.combined();
        assert!(
            !shown.contains(MARKER) && !shown.contains(PASSWORD),
            "{shown}"
        );
    }
    let work = workdir(
        tf,
        &config(
            &direct("http://proxy.corp.invalid:3128", url, ""),
            condition,
        ),
        PASSWORD,
    );
    let reported = work.expect_diagnostic_at(&["plan"], "Proxy name not resolved", "http_proxy");
    assert!(
        reported.text().contains("could not be resolved")
            && !reported.text().contains("uncategorized"),
        "{}",
        reported.text()
    );
}
