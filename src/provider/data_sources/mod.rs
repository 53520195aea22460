//! Data sources, one file each.
