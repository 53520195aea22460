//! The data-source docs examples, applied through the whole cycle with a
//! password and a CA certificate that need care.

use serde_json::Value;

use crate::cycle::{hcl_string, run_cycle, Cycle};
use crate::harness::{example, Terraform, Workdir};

/// The proxy password of the data-source examples' tests: every character
/// that needs care (`%`, `"`, `\`, `$`, space).
pub const EXAMPLE_PASSWORD: &str = r#"p%40ss "w\rd" $HOME x"#;

/// [`EXAMPLE_PASSWORD`] percent-encoded, as it appears inside proxy URLs.
pub const EXAMPLE_PASSWORD_ENCODED: &str = "p%2540ss%20%22w%5Crd%22%20%24HOME%20x";

/// A fresh self-signed CA certificate as PEM, with `sans` as subjectAltNames.
pub fn ca_certificate(sans: &[&str]) -> String {
    let mut params =
        rcgen::CertificateParams::new(sans.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
            .unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let key = rcgen::KeyPair::generate().unwrap();
    params.self_signed(&key).unwrap().pem()
}

/// Applies the docs example of `data_source` through the whole cycle (known at
/// plan time, empty second plan, refresh-only, destroy), with
/// [`EXAMPLE_PASSWORD`] in a var file when the example reads `proxy_password`
/// and a fresh CA as `proxy-ca.pem` when it reads that file. Checks that plan
/// output and trace logs never show the password as is, percent-encoded or
/// as systemd writes it (`%` doubled), and returns the outputs.
pub fn apply_data_source_example(
    tf: &Terraform,
    data_source: &str,
) -> serde_json::Map<String, Value> {
    let (password, password_encoded) = (EXAMPLE_PASSWORD, EXAMPLE_PASSWORD_ENCODED);
    let config = example(&format!("data-sources/{data_source}/data-source.tf"));
    let work = Workdir::with_provider(tf, &config);
    if config.contains("proxy-ca.pem") {
        work.write_file("proxy-ca.pem", &ca_certificate(&["proxy-ca.corp.example"]));
    }
    let needs_password = config.contains("proxy_password");
    let cycle = if needs_password {
        work.write_file(
            "test.tfvars",
            &format!("proxy_password = {}\n", hcl_string(password)),
        );
        Cycle::with_vars()
    } else {
        Cycle::default()
    };
    let outputs = run_cycle(&work, &cycle);
    if needs_password {
        let in_dropins = password_encoded.replace('%', "%%");
        for secret in [password, password_encoded, &in_dropins] {
            work.assert_secret_absent(&["plan", "-var-file=test.tfvars"], secret);
        }
    }
    outputs
}
