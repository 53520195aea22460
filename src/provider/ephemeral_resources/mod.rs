//! Ephemeral resources (Terraform 1.10 and later), one per file.

pub(crate) mod proxy_check;
