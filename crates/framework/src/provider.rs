//! The provider contract: what the server serves.

use std::sync::Arc;

use super::action::Action;
use super::data_source::DataSource;
use super::ephemeral_resource::EphemeralResource;
use super::function::Function;
use super::list_resource::ListResource;
use super::resource::Resource;
use super::schema::Schema;

/// A provider: its configuration schema and what it offers.
pub trait Provider: Send + Sync {
    /// The schema of the `provider` block.
    fn schema(&self) -> Schema;

    /// The managed resource types, served under their
    /// [`Resource::type_name`].
    fn resources(&self) -> Vec<Arc<dyn Resource>>;

    /// The data sources, served under their [`DataSource::type_name`].
    fn data_sources(&self) -> Vec<Arc<dyn DataSource>>;

    /// The ephemeral resources, served under their
    /// [`EphemeralResource::type_name`] from Terraform 1.10 on (older
    /// versions ignore them). None by default.
    fn ephemeral_resources(&self) -> Vec<Arc<dyn EphemeralResource>> {
        Vec::new()
    }

    /// The list resources, served under their [`ListResource::type_name`]
    /// from Terraform 1.14 on (`terraform query`; older versions ignore
    /// them). None by default.
    fn list_resources(&self) -> Vec<Arc<dyn ListResource>> {
        Vec::new()
    }

    /// The actions, served under their [`Action::type_name`] from
    /// Terraform 1.14 on (older versions refuse an `action` block). None by
    /// default.
    fn actions(&self) -> Vec<Arc<dyn Action>> {
        Vec::new()
    }

    /// The provider-defined functions, served under their [`Function::name`]
    /// from Terraform 1.8 on (older versions ignore them).
    fn functions(&self) -> Vec<Arc<dyn Function>>;
}
