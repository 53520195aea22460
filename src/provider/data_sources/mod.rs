//! Data sources, one file each.

pub mod no_proxy;
