//! The action contract (protocol 6.10, Terraform >= 1.14: `action` blocks,
//! `lifecycle { action_trigger { ... } }` and `terraform apply -invoke`).
//!
//! An action does one thing at a moment Terraform chooses: before or after
//! a resource changes (its trigger's `events`), or when invoked. While
//! Terraform plans, [`Action::plan`] checks the configuration, which may
//! still hold unknown values; when the moment comes, [`Action::invoke`]
//! runs with the wholly known configuration and reports progress as it
//! goes. An error of the invocation halts the apply there: a trigger
//! `before_update` keeps its resource from changing (hashicorp/terraform
//! v1.15.5 internal/terraform/node_action_trigger_instance_apply.go stops
//! at the first Completed event with errors).
//!
//! Terraform removes ephemeral values from the configuration it saves in a
//! plan (`ephemeral.RemoveEphemeralValues`, the same file) and hands them to
//! the invocation: a secret given as an ephemeral value reaches the action
//! and no plan file.

use super::data_source::{checked_config, Unknown};
use super::diagnostics::Diagnostics;
use super::schema::Schema;
use super::value::Value;

/// An action.
pub trait Action: Send + Sync {
    /// Full type name, e.g. `clusterproxy_proxy_check`.
    fn type_name(&self) -> &'static str;

    /// The configuration's schema; the server asks once and keeps it.
    fn schema(&self) -> Schema;

    /// Checks a configuration that may still hold unknown values, after the
    /// schema's checks passed (ValidateActionConfig and PlanAction). Only
    /// known values are checked.
    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Runs the action for a wholly known, checked configuration (defaults
    /// filled), handing each progress message to `progress` as it goes;
    /// an error diagnostic says it failed.
    fn invoke(&self, config: &Value, progress: &mut dyn FnMut(String), diags: &mut Diagnostics);
}

/// Runs `action` as InvokeAction does: refuses a configuration that still
/// holds an unknown value (Terraform invokes only known ones), runs the
/// schema's and the action's checks, fills defaults, then invokes it.
/// `schema` is `action.schema()`, computed once by the caller.
pub fn invoke_checked(
    action: &dyn Action,
    schema: &Schema,
    config: Value,
    progress: &mut dyn FnMut(String),
    diags: &mut Diagnostics,
) {
    let unknown = Unknown {
        summary: "Unknown value in an action's configuration",
        detail: "Terraform invokes an action only once its configuration is known, and this request holds an unknown value here: nothing was run.",
    };
    let validate = |config: &Value, diags: &mut Diagnostics| action.validate(config, diags);
    if let Some(config) = checked_config(unknown, schema, validate, config, diags) {
        action.invoke(&config, progress, diags);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Diagnostic;
    use crate::schema::Attribute;
    use crate::value::Type;

    /// Reports its input as progress; refuses `input = "no"` in validate
    /// and `input = "fail"` when invoked.
    struct Echo;

    impl Action for Echo {
        fn type_name(&self) -> &'static str {
            "test_echo"
        }

        fn schema(&self) -> Schema {
            Schema::new(
                "test",
                vec![
                    Attribute::required("input", Type::String, "input"),
                    Attribute::with_default("mode", Type::String, Value::string("a"), "mode"),
                ],
            )
        }

        fn validate(&self, config: &Value, diags: &mut Diagnostics) {
            if config.get_attr("input") == Some(&Value::string("no")) {
                diags.push(Diagnostic::error("refused", "no"));
            }
        }

        fn invoke(
            &self,
            config: &Value,
            progress: &mut dyn FnMut(String),
            diags: &mut Diagnostics,
        ) {
            let input = config
                .get_attr("input")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mode = config
                .get_attr("mode")
                .and_then(Value::as_str)
                .unwrap_or_default();
            progress(format!("{input} {mode}"));
            if input == "fail" {
                diags.push(Diagnostic::error("failed", "fail"));
            }
        }
    }

    fn invoke(config: Value) -> (Vec<String>, Diagnostics) {
        let mut messages = Vec::new();
        let mut diags = Diagnostics::new();
        invoke_checked(
            &Echo,
            &Echo.schema(),
            config,
            &mut |m| messages.push(m),
            &mut diags,
        );
        (messages, diags)
    }

    fn config(input: Value) -> Value {
        Value::object([
            ("input".to_owned(), input),
            ("mode".to_owned(), Value::Null),
        ])
    }

    #[test]
    fn an_invocation_gets_the_defaults_and_reports_progress() {
        let (messages, diags) = invoke(config(Value::string("x")));
        assert!(!diags.has_errors(), "{diags:?}");
        assert_eq!(messages, ["x a"]);
        let (messages, diags) = invoke(config(Value::string("fail")));
        assert_eq!(messages, ["fail a"]);
        assert_eq!(diags.iter().next().unwrap().summary, "failed");
    }

    #[test]
    fn nothing_runs_on_an_unknown_or_refused_configuration() {
        for (input, summary) in [
            (
                Value::unknown(),
                "Unknown value in an action's configuration",
            ),
            (Value::string("no"), "refused"),
            (Value::Null, "Missing required argument"),
        ] {
            let (messages, diags) = invoke(config(input));
            assert!(messages.is_empty(), "{summary}");
            assert_eq!(diags.iter().next().unwrap().summary, summary);
        }
    }
}
