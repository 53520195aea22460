//! The data source contract.

use super::diagnostics::Diagnostics;
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
