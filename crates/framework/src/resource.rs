//! The managed resource contract.

use super::diagnostics::{Diagnostic, Diagnostics};
use super::schema::Schema;
use super::value::Value;

/// A managed resource.
///
/// The framework does the schema-driven part of planning (defaults, unknown
/// computed values, plan modifiers, replacement) and checks every invariant
/// Terraform enforces; the resource only fills in what it knows.
pub trait Resource: Send + Sync {
    /// Full type name, e.g. `clusterproxy_profile`.
    fn type_name(&self) -> &'static str;

    /// The schema; its version is the current state version.
    fn schema(&self) -> Schema;

    /// Checks a configuration that may still hold unknown values.
    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Refines a planned object: `planned` holds the configuration, defaults,
    /// prior values kept by plan modifiers, and unknown for other computed
    /// attributes. Compute what can be known at plan time.
    fn modify_plan(
        &self,
        _prior: Option<&Value>,
        _config: &Value,
        _planned: &mut Value,
        _diags: &mut Diagnostics,
    ) {
    }

    /// Creates or updates the object and returns its new, wholly known state.
    /// `prior` is `None` on create.
    fn apply(
        &self,
        prior: Option<&Value>,
        config: &Value,
        planned: &Value,
        diags: &mut Diagnostics,
    ) -> Option<Value>;

    /// Deletes the object; after an error diagnostic Terraform keeps the
    /// prior state.
    fn delete(&self, _prior: &Value, _diags: &mut Diagnostics) {}

    /// Refreshes the state. `None` means the object is gone.
    fn read(&self, current: &Value, _diags: &mut Diagnostics) -> Option<Value> {
        Some(current.clone())
    }

    /// Builds a full state object from an import ID, or adds an error. By
    /// default the resource cannot be imported.
    fn import(&self, _id: &str, diags: &mut Diagnostics) -> Option<Value> {
        diags.push(Diagnostic::error(
            "Resource import not supported",
            format!("{} cannot be imported.", self.type_name()),
        ));
        None
    }

    /// Converts JSON state written by an earlier schema `version` into a
    /// state object of the current schema, or adds an error. By default
    /// there is no earlier version.
    fn upgrade_state(&self, version: i64, _json: &[u8], diags: &mut Diagnostics) -> Option<Value> {
        diags.push(Diagnostic::error(
            "Unknown state version",
            format!("{} has no schema version {version}.", self.type_name()),
        ));
        None
    }
}
