//! Provider-defined functions (Terraform >= 1.8).

pub mod merge_no_proxy;
pub mod no_proxy_bypasses;
pub mod render;
pub mod render_redacted;
