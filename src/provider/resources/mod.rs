//! Managed resources, one per file.

pub mod profile;
