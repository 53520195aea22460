//! The managed resource contract.

use super::diagnostics::Diagnostics;
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

    /// Deletes the object.
    fn delete(&self, _prior: &Value, _diags: &mut Diagnostics) {}

    /// Refreshes the state. `None` means the object is gone.
    fn read(&self, current: &Value, _diags: &mut Diagnostics) -> Option<Value> {
        Some(current.clone())
    }

    /// Builds a full state object from an import ID, or adds an error.
    fn import(&self, id: &str, diags: &mut Diagnostics) -> Option<Value>;

    /// Converts JSON state written by schema `version` into a state object of
    /// the current schema, or adds an error.
    fn upgrade_state(&self, version: i64, json: &[u8], diags: &mut Diagnostics) -> Option<Value>;
}
