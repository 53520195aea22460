//! Leak checks: a secret in none of the forms it could take in Terraform's
//! output and trace log.

use crate::harness::{Run, Workdir};

impl Workdir {
    /// Runs `terraform ARGS...` with `TF_LOG=trace` and asserts that neither
    /// stdout, stderr nor the trace log (which must hold the provider's own
    /// lines) contains `secret` in any of its [`secret_forms`]. Returns the run.
    pub fn assert_secret_absent(&self, args: &[&str], secret: &str) -> Run {
        self.assert_secrets_absent(args, &[], &[secret])
    }

    /// [`Workdir::assert_secret_absent`] for every one of `secrets`, in one
    /// run with the environment variables `env` added (secrets go to
    /// Terraform as `TF_VAR_*`: its trace log quotes its command line,
    /// `-var` values included).
    pub fn assert_secrets_absent(
        &self,
        args: &[&str],
        env: &[(String, &str)],
        secrets: &[&str],
    ) -> Run {
        let log_path = self.dir.path().join("trace.log");
        let _ = std::fs::remove_file(&log_path);
        let output = self
            .command(args)
            .envs(env.iter().map(|(name, value)| (name.as_str(), *value)))
            .env("TF_LOG", "trace")
            .env("TF_LOG_PATH", &log_path)
            .output()
            .expect("spawn terraform");
        let run = Run::from_output(output);
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        assert!(
            log.contains("provider.terraform-provider-clusterproxy") && log.contains("tf_rpc="),
            "the trace log holds no log line of the provider"
        );
        for form in secrets.iter().flat_map(|secret| secret_forms(secret)) {
            for (name, text) in [
                ("stdout", &run.stdout),
                ("stderr", &run.stderr),
                ("trace log", &log),
            ] {
                assert!(
                    !text.contains(&form),
                    "secret leaked into {name} of terraform {} on {} (as {form:?})",
                    args.join(" "),
                    self.tf.version_string()
                );
            }
        }
        run
    }
}

/// The forms a leaked `secret` could take in output and logs: as is,
/// JSON-escaped, and base64-encoded inside a larger text (the characters
/// that depend on the secret alone, for each of the three byte alignments).
pub fn secret_forms(secret: &str) -> Vec<String> {
    use base64::Engine as _;
    let mut forms = vec![secret.to_owned()];
    // Percent-encoded as in a proxy URL (every byte outside RFC 3986's
    // unreserved set), and with `%` doubled as systemd writes it.
    let encoded: String = secret
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    forms.push(encoded.replace('%', "%%"));
    forms.push(encoded);
    let escaped = serde_json::to_string(secret).expect("JSON string");
    forms.push(escaped[1..escaped.len() - 1].to_owned());
    for offset in 0..3usize {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(secret.as_bytes());
        let encoded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&bytes);
        let start = (offset * 8).div_ceil(6);
        let end = bytes.len() * 8 / 6;
        if end >= start + 8 {
            forms.push(encoded[start..end].to_owned());
        }
    }
    forms.sort();
    forms.dedup();
    forms
}

/// The leak check finds a secret base64-encoded at any offset inside a
/// larger text (e.g. a CAPI `base64` file), and JSON-escaped.
#[test]
fn secret_forms_find_encoded_secrets() {
    use base64::Engine as _;
    let secret = r#"p%40ss "w\rd" $HOME x"#;
    let forms = secret_forms(secret);
    for prefix in ["", "a", "ab", "abc"] {
        let document = format!("HTTP_PROXY=http://u:{secret}@proxy:3128\n{prefix}");
        for text in [format!("{prefix}{document}"), document] {
            let encoded = base64::engine::general_purpose::STANDARD.encode(&text);
            assert!(forms.iter().any(|f| encoded.contains(f)), "{encoded}");
        }
    }
    let escaped = serde_json::to_string(&format!("x{secret}y")).unwrap();
    assert!(forms.iter().any(|f| escaped.contains(f)), "{escaped}");
    let url = "http://u:p%2540ss%20%22w%5Crd%22%20%24HOME%20x@proxy:3128";
    assert!(forms.iter().any(|f| url.contains(f)), "{url}");
    let systemd = url.replace('%', "%%");
    assert!(forms.iter().any(|f| systemd.contains(f)), "{systemd}");
    let unrelated = base64::engine::general_purpose::STANDARD.encode("p%40ss w rd HOME x");
    assert!(!forms.iter().any(|f| unrelated.contains(f)));
}

/// A hostile password: every character that ends userinfo early or needs
/// percent-encoding.
const HOSTILE: &str = "p@ss:w/rd#%";

/// A sensitive proxy URL given where a NO_PROXY entry or a destination is
/// expected (the profile's and a renderer's `no_proxy` inputs, the three
/// functions), written raw and percent-encoded: every plan fails on the
/// attribute, and no diagnostic (plan -json) holds the password in any form.
#[test]
fn a_proxy_url_in_a_diagnostic_never_shows_its_password() {
    use crate::diagnostics::expect_bad_inputs;
    let encoded: String = secret_forms(HOSTILE)
        .into_iter()
        .find(|f| f.starts_with("p%40"))
        .expect("percent-encoded form");
    crate::harness::for_each_terraform_with(crate::harness::Capability::Functions, |tf| {
        for password in [HOSTILE, encoded.as_str()] {
            let variable = format!(
                "variable \"proxy_url\" {{\n  type      = string\n  sensitive = true\n  default   = \"http://svc:{password}@proxy.corp.example:3128\"\n}}\n"
            );
            let cases = [
                (
                    "resource \"clusterproxy_profile\" \"corp\" {\n  name       = \"corp\"\n  http_proxy = \"http://proxy.corp.example:3128\"\n  no_proxy   = [\".corp.example\", var.proxy_url]\n}\n",
                    "URL given as a NO_PROXY entry",
                    "no_proxy",
                ),
                (
                    "data \"clusterproxy_systemd_dropin\" \"x\" {\n  http_proxy = \"http://proxy.corp.example:3128\"\n  extra      = [var.proxy_url]\n}\n",
                    "URL given as a NO_PROXY entry",
                    "extra",
                ),
                (
                    "output \"x\" {\n  sensitive = true\n  value     = provider::clusterproxy::merge_no_proxy([[\".corp.example\", var.proxy_url]], null)\n}\n",
                    "URL given as a NO_PROXY entry",
                    "value",
                ),
                (
                    "output \"x\" {\n  sensitive = true\n  value     = provider::clusterproxy::no_proxy_bypasses(\".corp.example\", replace(var.proxy_url, \"http:\", \"ftp:\"), \"go\")\n}\n",
                    "is not http or https",
                    "value",
                ),
                (
                    "output \"x\" {\n  sensitive = true\n  value     = provider::clusterproxy::no_proxy_bypasses(\".corp.example\", replace(var.proxy_url, \"3128\", \"99999\"), \"go\")\n}\n",
                    "has no valid host and port",
                    "value",
                ),
            ];
            for (config, summary, attribute) in cases {
                let config = format!("{variable}{config}");
                for form in secret_forms(password) {
                    expect_bad_inputs(tf, &[], Some(&form), &[(&config, summary, attribute, None)]);
                }
            }
        }
    });
}

/// A user name without a password is refused by the renderer data sources
/// and by `render`, on the attribute, naming the fix.
#[test]
fn a_user_name_without_a_password_is_refused() {
    use crate::diagnostics::expect_bad_inputs;
    crate::harness::for_each_terraform(|tf| {
        let mut cases = vec![(
            "data \"clusterproxy_systemd_dropin\" \"x\" {\n  http_proxy = \"http://proxy.corp.example:3128\"\n  username   = \"svc-k8s\"\n}\n".to_owned(),
            "User name without password",
            "username",
            Some("set `password`"),
        ), (
            "data \"clusterproxy_capi_kubeadm\" \"x\" {\n  http_proxy   = \"http://proxy.corp.example:3128\"\n  username     = \"svc-k8s\"\n  cluster_name = \"prod\"\n}\n".to_owned(),
            "User name without password",
            "username",
            Some("render_redacted"),
        )];
        if tf.supports(crate::harness::Capability::Functions) {
            cases.push((
                "resource \"clusterproxy_profile\" \"corp\" {\n  name       = \"corp\"\n  http_proxy = \"http://proxy.corp.example:3128\"\n  username   = \"svc-k8s\"\n}\n\noutput \"x\" {\n  value = provider::clusterproxy::render(\"systemd_dropin\", clusterproxy_profile.corp.settings, null)\n}\n".to_owned(),
                "User name without password",
                "value",
                Some("password"),
            ));
        }
        expect_bad_inputs(tf, &[], None, &cases);
    });
}

/// A configuration over the 64 MiB the provider reads in one message (a
/// 65 MiB `description` beside a password) fails the plan with the
/// provider's refusal, which names the limit and reads the same whatever the
/// password takes: the transport's own named the request's exact size,
/// which counts every byte of the password.
#[test]
fn a_request_over_the_message_limit_tells_nothing_of_the_password() {
    crate::harness::for_each_terraform_rendering(|tf| {
        let refusal = |password: &str| {
            let work = Workdir::with_provider(
                tf,
                &format!(
                    "variable \"password\" {{\n  type      = string\n  sensitive = true\n  default   = \"{password}\"\n}}\n\nresource \"clusterproxy_profile\" \"corp\" {{\n  name        = \"corp\"\n  description = file(\"${{path.module}}/description.txt\")\n  http_proxy  = \"http://proxy.corp.example:3128\"\n  username    = \"svc\"\n  password    = var.password\n}}\n"
                ),
            );
            work.write_file("description.txt", &"x".repeat(65 << 20));
            let run = work.run(&["plan", "-json"]);
            assert_ne!(run.code, 0, "{}", run.combined());
            let errors = run.error_texts();
            assert!(
                errors.len() == 1
                    && errors[0].contains(
                        "The request takes more than the 67108864 bytes (64 MiB) the provider reads in one message"
                    )
                    && !errors[0].contains("found"),
                "{}: {errors:#?}",
                tf.version_string()
            );
            errors[0].clone()
        };
        assert_eq!(refusal("s3cret"), refusal("s3cret-and-longer"));
    });
}
