//! The committed docs/ must equal what the generator renders from the
//! schemas and examples. `UPDATE_DOCS=1 cargo test --test docs` rewrites them.

use std::path::Path;

use clusterproxy::framework::docs::{generate, DocsConfig};
use clusterproxy::provider::{ClusterProxy, NAME};

#[test]
fn committed_docs_match_the_generator() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = DocsConfig {
        provider_name: NAME.to_owned(),
        index_body: "The clusterproxy provider merges NO_PROXY lists and renders HTTP(S) proxy settings for Kubernetes clusters behind a corporate proxy. Every result is computed locally, deterministically and at plan time.\n\n## Logging\n\nWith `TF_LOG_PROVIDER_CLUSTERPROXY` (or `TF_LOG_PROVIDER`, or `TF_LOG`) set to `debug` or `trace`, the provider logs one line when a call arrives and one when it is served: the RPC, a request id, the resource, data source or function, and the duration. No configured value is logged, nor anything derived from one (a size or a length); the HTTP/2, gRPC and TLS libraries it uses log at warning and above only.".to_owned(),
        examples_dir: root.join("examples"),
    };
    let pages = generate(&ClusterProxy, &config).expect("every example exists");
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let mut stale = Vec::new();
    for page in &pages {
        let path = root.join("docs").join(&page.path);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &page.content).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(page.content.as_str()) {
            stale.push(page.path.clone());
        }
    }
    assert!(
        stale.is_empty(),
        "docs out of date: {stale:?}; run `make generate`"
    );
}
