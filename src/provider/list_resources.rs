//! The list resources (`list` blocks of `.tfquery.hcl` files, `terraform
//! query`, Terraform >= 1.14): one file each.

pub(crate) mod profile;
