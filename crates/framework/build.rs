//! Compiles every protocol definition under proto/ with a pure-Rust protobuf
//! compiler (protox), so building needs no system `protoc`.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_dir = PathBuf::from("proto");
    println!("cargo:rerun-if-changed={}", proto_dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&proto_dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "proto"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Ok(());
    }
    let descriptors = protox::compile(&files, [&proto_dir])?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
