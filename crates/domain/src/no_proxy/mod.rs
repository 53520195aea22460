//! The NO_PROXY engine: entry grammar, merging with semantic de-duplication
//! and safe subsumption, per-client dialects (how each client reads the
//! setting, and the rendering it understands best), and the coverage check.

pub mod cluster;
pub mod coverage;
pub mod destination;
pub mod dialect;
pub mod entry;
pub mod forms;
pub mod merge;
pub mod render;
pub mod typed;
mod write;

pub use cluster::{Cloud, Cluster};
pub use coverage::{gaps, gaps_with, setting_for, Gap};
pub use destination::Destination;
pub use dialect::Dialect;
pub use entry::{Entries, Entry, Host};
pub use forms::Remark;
pub use merge::{merge, normalize, MergeOptions, Merged, Origins, Source, Subsumed};
pub use render::{group_warnings, render, ClientWarning, Rendering, WarningGroup};
