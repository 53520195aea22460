//! The provider contract: what the server serves.

use std::sync::Arc;

use super::data_source::DataSource;
use super::function::Function;
use super::resource::Resource;
use super::schema::Schema;

/// A provider: its configuration schema and what it offers.
pub trait Provider: Send + Sync {
    /// Provider configuration schema.
    fn schema(&self) -> Schema;

    /// Managed resource types.
    fn resources(&self) -> Vec<Arc<dyn Resource>>;

    /// Data source types.
    fn data_sources(&self) -> Vec<Arc<dyn DataSource>>;

    /// Functions.
    fn functions(&self) -> Vec<Arc<dyn Function>>;
}
