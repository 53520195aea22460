//! Expected diagnostics, read from Terraform's machine-readable output in
//! the manner of terraform-plugin-testing's `ExpectError` and plancheck.

use serde_json::Value;

use crate::harness::{diagnostic_text, Run, Terraform, Workdir};

/// A run and the diagnostic [`Workdir::expect_diagnostic`] found in it.
#[derive(Debug)]
pub struct Reported {
    /// The whole run (for leak checks).
    pub run: Run,
    /// The matching diagnostic, as Terraform's JSON output holds it.
    pub diagnostic: Value,
}

impl Reported {
    /// The diagnostic's summary and detail, one line apart.
    pub fn text(&self) -> String {
        diagnostic_text(&self.diagnostic)
    }
}

/// Whether `diagnostic` has `severity`, holds `summary` in its summary or
/// detail, and has its source snippet on the line of `attribute` (`attribute
/// = ...`) or on the whole line `attribute`.
fn diagnostic_matches(diagnostic: &Value, severity: &str, summary: &str, attribute: &str) -> bool {
    let at_attribute = |code: &str| {
        code.lines().any(|line| {
            line.trim_start()
                .strip_prefix(attribute)
                .is_some_and(|rest| rest.is_empty() || rest.trim_start().starts_with('='))
        })
    };
    diagnostic["severity"] == severity
        && diagnostic_text(diagnostic).contains(summary)
        && diagnostic["snippet"]["code"]
            .as_str()
            .is_some_and(at_attribute)
}

impl Workdir {
    /// Runs `terraform ARGS... -json` (a plan, apply or validate) and
    /// expects a diagnostic of `severity` (`error`: the command fails;
    /// `warning`: it succeeds) whose summary or detail contains `summary` and
    /// whose source snippet (Terraform's structured `snippet.code`) is the
    /// line of `attribute` (so the diagnostic carries its attribute path), or
    /// the whole line `attribute` (e.g. a block header), in the manner of
    /// terraform-plugin-testing's `ExpectError`/plancheck. Returns the run
    /// and the diagnostic.
    pub fn expect_diagnostic(
        &self,
        args: &[&str],
        severity: &str,
        summary: &str,
        attribute: &str,
    ) -> Reported {
        let mut json_args = args.to_vec();
        json_args.push("-json");
        let run = self.run(&json_args);
        assert_eq!(
            run.code == 0,
            severity != "error",
            "terraform {} exited {} with an expected {severity} on {}:\n{}",
            json_args.join(" "),
            run.code,
            self.tf.version_string(),
            run.combined()
        );
        // A plugin panic shows only as text (Terraform's crash report); no
        // JSON field carries it.
        assert!(!run.combined().contains("panic"), "{}", run.combined());
        let diagnostics = run.diagnostics();
        let diagnostic = diagnostics
            .iter()
            .find(|d| diagnostic_matches(d, severity, summary, attribute))
            .unwrap_or_else(|| {
                panic!(
                    "{summary}: no {severity} diagnostic at `{attribute}` on {}:\n{diagnostics:#?}",
                    self.tf.version_string()
                )
            })
            .clone();
        Reported { run, diagnostic }
    }

    /// [`Workdir::expect_diagnostic`] for an error: the command fails.
    pub fn expect_diagnostic_at(&self, args: &[&str], summary: &str, attribute: &str) -> Reported {
        self.expect_diagnostic(args, "error", summary, attribute)
    }
}

/// Plans each bad configuration `(main.tf, summary, attribute, mention)`
/// beside the provider example and `files`, expecting the error diagnostic
/// at `attribute` (see [`Workdir::expect_diagnostic`]) whose summary or
/// detail also holds `mention`. `secret`, a value the configurations hold,
/// shows nowhere in the output.
pub fn expect_bad_inputs<C: AsRef<str>>(
    tf: &Terraform,
    files: &[(&str, &str)],
    secret: Option<&str>,
    cases: &[(C, &str, &str, Option<&str>)],
) {
    for (config, summary, attribute, mention) in cases {
        let work = Workdir::with_provider(tf, config.as_ref());
        for (name, content) in files {
            work.write_file(name, content);
        }
        let reported = work.expect_diagnostic_at(&["plan"], summary, attribute);
        if let Some(mention) = mention {
            assert!(
                reported.text().contains(mention),
                "{summary}: {mention} not mentioned on {}:\n{}",
                tf.version_string(),
                reported.text()
            );
        }
        if let Some(secret) = secret {
            assert!(
                !reported.run.combined().contains(secret),
                "{summary}: the secret shows on {}",
                tf.version_string()
            );
        }
    }
}
