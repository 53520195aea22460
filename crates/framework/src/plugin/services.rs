//! The go-plugin services every plugin serves beside its own: controller
//! (shutdown), stdio (kept empty) and broker (idle).

#![allow(missing_docs, clippy::all, clippy::pedantic)]

tonic::include_proto!("plugin");
