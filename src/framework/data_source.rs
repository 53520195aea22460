//! The data source contract.

use super::diagnostics::{Diagnostic, Diagnostics};
use super::planning::check_plan;
use super::schema::Schema;
use super::value::Value;

/// A data source: computes a state object from its configuration.
///
/// The framework checks the configuration against [`DataSource::schema`]
/// (validators, required attributes), fills defaults, and verifies the
/// result is wholly known before it reaches Terraform.
pub trait DataSource: Send + Sync {
    /// Full type name, e.g. `clusterproxy_no_proxy`.
    fn type_name(&self) -> &'static str;

    /// The schema.
    fn schema(&self) -> Schema;

    /// Checks a configuration that may still hold unknown values (plan time).
    /// Only known values are checked.
    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Reads the data: returns the full state object for a wholly known
    /// configuration (defaults already filled). Returns `None` after adding an
    /// error diagnostic.
    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value>;
}

/// Reads `data_source` for `config` as ReadDataSource does: the schema's and
/// the data source's checks, defaults, the read, and the checks Terraform
/// holds results to (wholly known; configured values come back unchanged).
/// `schema` is `data_source.schema()`, computed once by the caller.
pub fn read_checked(
    data_source: &dyn DataSource,
    schema: &Schema,
    mut config: Value,
    diags: &mut Diagnostics,
) -> Option<Value> {
    schema.validate(&config, diags);
    if !diags.has_errors() {
        data_source.validate(&config, diags);
    }
    if diags.has_errors() {
        return None;
    }
    schema.apply_defaults(&mut config);
    let state = data_source.read(&config, diags)?;
    if diags.has_errors() {
        return None;
    }
    if state.is_null() || !state.is_wholly_known() {
        diags.push(Diagnostic::error(
            "Provider bug: incomplete data source result",
            "The data source returned a null or partly unknown result.",
        ));
        return None;
    }
    check_plan(schema, &config, &state, diags);
    (!diags.has_errors()).then_some(state)
}
