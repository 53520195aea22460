//! The I/O layer under the provider: reads what the domain classifies. The
//! domain (`clusterproxy-domain`) is pure and is handed names and text; this
//! crate opens the files (`file.rs`: an artifact file within bounds, for the
//! `file:` import and the fleet scan alike) and walks a fleet's directory
//! (`walk.rs`: the scan behind the `clusterproxy_profile` list resource).
//! It knows neither the plugin protocol nor the provider.

pub mod file;
pub mod walk;
