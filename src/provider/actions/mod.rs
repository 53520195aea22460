//! Actions (Terraform 1.14 and later), one per file.

pub(crate) mod proxy_check;
