//! Any text as a NO_PROXY setting and a destination: parsing, every client
//! model and the merge never panic, and a successful merge is idempotent.

#![no_main]

use clusterproxy::domain::no_proxy::{merge, Destination, Dialect, Entry, MergeOptions, Source};
use clusterproxy::domain::InputField;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (list, url) = text
        .split_once('\n')
        .unwrap_or((&text, "http://example.com/"));
    let entries: Vec<String> = list.split(',').map(str::to_owned).collect();
    for entry in &entries {
        let _ = Entry::parse(entry);
    }
    if let Ok(destination) = Destination::parse(url) {
        for dialect in Dialect::all() {
            let _ = dialect.bypasses(list, &destination);
        }
    }
    let options = MergeOptions::default();
    if let Ok(once) = merge(&[Source::list(InputField::Installation, entries)], &options) {
        let twice = merge(
            &[Source::list(InputField::Installation, once.list.clone())],
            &options,
        )
        .expect("a merged list merges");
        assert_eq!(once.list, twice.list);
    }
});
