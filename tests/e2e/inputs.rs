//! End-to-end tests of the inputs every renderer data source shares
//! (proxy fields, `profile`, `clients`, the NO_PROXY lists), with real
//! Terraform 1.11 and 1.0.3: each bad input is a diagnostic on its
//! attribute, declared once in the shared schema.

use crate::diagnostics::expect_bad_inputs;
use crate::harness::{diagnostic_text, for_each_terraform, Workdir};

/// A renderer with one bad input line, and the diagnostic it must give at
/// which attribute.
const CASES: &[(&str, &str, &str)] = &[
    ("clients = []", "Invalid value", "clients"),
    ("clients = [\"go\", null]", "Null list element", "clients"),
    (
        "password = \"\"\n  username = \"svc\"",
        "Empty value",
        "password",
    ),
    ("username = \"\"", "Empty value", "username"),
    ("trusted_ca = \"\"", "Empty value", "trusted_ca"),
    ("pod_cidrs = [null]", "Null list element", "pod_cidrs"),
    (
        "extra = [\"a.example\", null]",
        "Null list element",
        "extra",
    ),
];

/// `data_source` with `http_proxy` and the bad line.
fn renderer(data_source: &str, line: &str) -> String {
    format!(
        "data \"{data_source}\" \"x\" {{\n  http_proxy = \"http://proxy.corp.example:3128\"\n  {line}\n}}\n"
    )
}

#[test]
fn shared_renderer_inputs_reject_bad_values_on_their_attribute() {
    let renderers = [
        "clusterproxy_systemd_dropin",
        "clusterproxy_capi_kubeadm",
        "clusterproxy_pod_env",
    ];
    let mut cases: Vec<(String, &str, &str, Option<&str>)> = renderers
        .iter()
        .flat_map(|data_source| {
            CASES.iter().map(|(line, summary, attribute)| {
                (renderer(data_source, line), *summary, *attribute, None)
            })
        })
        .collect();
    // The merging data source shares `clients` and its rules.
    cases.extend(CASES[..2].iter().map(|(line, summary, attribute)| {
        (
            format!("data \"clusterproxy_no_proxy\" \"x\" {{\n  installation = [\"a.example\"]\n  {line}\n}}\n"),
            *summary,
            *attribute,
            None,
        )
    }));
    for_each_terraform(|tf| {
        expect_bad_inputs(tf, &[], None, &cases);
        // `http_proxy = ""` is an empty value, never "no proxy configured".
        let work = Workdir::with_provider(
            tf,
            "data \"clusterproxy_pod_env\" \"x\" {\n  http_proxy = \"\"\n}\n",
        );
        let reported = work.expect_diagnostic_at(&["plan"], "Empty value", "http_proxy");
        let texts: Vec<String> = reported
            .run
            .diagnostics()
            .iter()
            .map(diagnostic_text)
            .collect();
        assert!(
            !texts
                .iter()
                .any(|text| text.contains("No proxy configured")),
            "{texts:#?}"
        );
    });
}

/// A profile excludes the fields it carries, each reported on the field.
#[test]
fn profile_conflicts_with_the_fields_it_carries() {
    let config = r#"
resource "clusterproxy_profile" "corp" {
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
}

data "clusterproxy_systemd_dropin" "x" {
  profile      = clusterproxy_profile.corp.settings
  https_proxy  = "http://other.corp.example:3128"
  installation = ["a.example"]
}
"#;
    for_each_terraform(|tf| {
        let work = Workdir::with_provider(tf, config);
        work.expect_diagnostic_at(&["plan"], "Conflicting attributes", "https_proxy");
        work.expect_diagnostic_at(&["plan"], "Conflicting attributes", "installation");
    });
}
