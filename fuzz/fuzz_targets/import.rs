//! Any text as any artifact kind, also nested deep or repeated to a large
//! size, and any import ID: the importers never panic and refuse hostile
//! nesting and sizes before parsing. The same text sniffed for proxy
//! settings under a file name: the sniff never panics, and each setting it
//! finds names a line of the text and a key written on that line.

#![no_main]

use clusterproxy::domain::import::sniff::sniff;
use clusterproxy::domain::import::{id, kinds, parse, MAX_INPUT_BYTES, MAX_NESTING};
use libfuzzer_sys::fuzz_target;

/// File names the sniff tells formats by (name, extension), one passed over.
const NAMES: [&str; 8] = [
    "values.yaml",
    "config.json",
    "Dockerfile",
    "settings.xml",
    "proxy.conf",
    ".env",
    "Jenkinsfile",
    "README.md",
];

fuzz_target!(|data: &[u8]| {
    let Some((selector, rest)) = data.split_first() else {
        return;
    };
    let kinds = kinds();
    let kind = kinds[usize::from(*selector) % kinds.len()];
    let text = String::from_utf8_lossy(rest);
    let _ = parse(kind, &text);
    let name = NAMES[usize::from(selector >> 3) % NAMES.len()];
    if let Some(sniffed) = sniff(name, &text) {
        let lines: Vec<&str> = text.lines().collect();
        for setting in &sniffed.settings {
            let line = lines
                .get(setting.line.wrapping_sub(1))
                .expect("a line of the text");
            assert!(setting.key.starts_with("a `proxy` block") || line.contains(&setting.key));
        }
        let _ = sniffed.reason("folder/file");
    }
    // The ID parser on the same bytes; without `/` no path is ever opened.
    if !text.contains('/') {
        let _ = id::parse(&format!("{kind}{text}"));
    }
    // The same text nested past the limit, and repeated past the size cap.
    let opener = if selector & 0x40 == 0 { "{a: " } else { "- [" };
    let nested = format!("{}{text}", opener.repeat(MAX_NESTING + 1));
    assert!(parse(kind, &nested).is_err() || kind == "systemd");
    if selector & 0x80 != 0 && !text.is_empty() {
        let big = text.repeat(MAX_INPUT_BYTES / text.len() + 1);
        assert!(parse(kind, &big).is_err());
    }
});
