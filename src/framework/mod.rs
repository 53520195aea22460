//! Terraform plugin framework: go-plugin host, protocol-6 server, typed
//! values, schema and diagnostics. Knows nothing about proxies.
