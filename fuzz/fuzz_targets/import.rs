//! Any text as any artifact kind, also nested deep or repeated to a large
//! size, and any import ID: the importers never panic and refuse hostile
//! nesting and sizes before parsing.

#![no_main]

use clusterproxy::domain::import::{id, kinds, parse, MAX_INPUT_BYTES, MAX_NESTING};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((selector, rest)) = data.split_first() else {
        return;
    };
    let kinds = kinds();
    let kind = kinds[usize::from(*selector) % kinds.len()];
    let text = String::from_utf8_lossy(rest);
    let _ = parse(kind, &text);
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
