//! Generated protocol-6 messages and the `Provider` service (from
//! proto/tfplugin6.proto).

#![allow(missing_docs, clippy::all, clippy::pedantic)]

tonic::include_proto!("tfplugin6");
