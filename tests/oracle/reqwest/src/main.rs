//! Oracle driver for Rust reqwest's system-proxy NO_PROXY handling: JSON lines
//! `{no_proxy, url}` on stdin, `direct`, `proxy` or `refused` per line on stdout.
//!
//! For each setting the driver puts `NO_PROXY`/`no_proxy` (and
//! `HTTP_PROXY`/`HTTPS_PROXY`, pointing at a listener on 127.0.0.1) into the
//! environment and builds a default `reqwest::Client`, so reqwest reads them
//! itself (`ClientBuilder::build` -> `proxy::Matcher::system` -> hyper-util's
//! `client::proxy::matcher::Matcher::from_system`), exactly as a program does
//! that never configures a proxy. Each URL is then requested with that client:
//!
//! - `proxy`: the loopback listener (the proxy) accepted a connection for it;
//!   it closes the connection at once, so the request fails there;
//! - `refused`: reqwest rejected the URL before choosing a route (a builder error);
//! - `direct`: the request failed while connecting to the destination itself:
//!   names reach the resolver below, which answers every name with an error,
//!   and IP literals are refused or unreachable, because the test runs this
//!   driver in a network namespace whose only interface is loopback
//!   (`unshare -rn`). Nothing leaves loopback.
//!
//! Any other outcome (a response, a timeout) stops the driver with an error.

use std::io::{BufRead, BufWriter, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A resolver that answers every name with an error, so a direct request for
/// a name never sends a DNS query.
struct NoDns;

impl reqwest::dns::Resolve for NoDns {
    fn resolve(&self, _name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        Box::pin(async { Err("oracle: no name resolution".into()) })
    }
}

fn client(setting: &str, proxy: &str) -> reqwest::Client {
    // The runtime is single-threaded: no other thread reads the environment
    // while it changes.
    for key in ["ALL_PROXY", "all_proxy", "REQUEST_METHOD"] {
        std::env::remove_var(key);
    }
    for key in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
        std::env::set_var(key, proxy);
    }
    std::env::set_var("NO_PROXY", setting);
    std::env::set_var("no_proxy", setting);
    reqwest::Client::builder()
        .dns_resolver(Arc::new(NoDns))
        .timeout(Duration::from_secs(20))
        .build()
        .expect("a default client builds")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a loopback port");
    let proxy = format!("http://{}", listener.local_addr().unwrap());
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });

    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut current: Option<(String, reqwest::Client)> = None;
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("read stdin");
        let case: serde_json::Value = serde_json::from_str(&line).expect("a JSON line");
        let setting = case["no_proxy"].as_str().expect("no_proxy is a string");
        let url = case["url"].as_str().expect("url is a string");
        if current.as_ref().is_none_or(|(s, _)| s != setting) {
            current = Some((setting.to_owned(), client(setting, &proxy)));
        }
        let client = &current.as_ref().unwrap().1;
        let before = accepted.load(Ordering::SeqCst);
        let result = client.get(url).send().await;
        let answer = if accepted.load(Ordering::SeqCst) != before {
            "proxy"
        } else {
            match result {
                Err(e) if e.is_builder() => "refused",
                Err(e) if e.is_connect() => "direct",
                Err(e) => panic!("{url} with NO_PROXY={setting:?}: unexpected error {e:?}"),
                Ok(r) => panic!("{url} with NO_PROXY={setting:?}: unexpected response {r:?}"),
            }
        };
        writeln!(out, "{answer}").expect("write stdout");
    }
    out.flush().expect("flush stdout");
}
