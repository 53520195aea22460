//! Any text as any artifact kind: the importers never panic.

#![no_main]

use clusterproxy::domain::import::{parse, KINDS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((selector, rest)) = data.split_first() else {
        return;
    };
    let kind = KINDS[usize::from(*selector) % KINDS.len()];
    let _ = parse(kind, &String::from_utf8_lossy(rest));
});
