//! The canonical order of merged entries (see [`crate::no_proxy::entry`]),
//! sorted per class on packed keys, with semantic duplicates dropped.

use super::Origin;
use crate::no_proxy::entry::{Entry, OrderKey};

/// Sorts the parsed entries into the canonical order and drops semantic
/// duplicates. Of equal entries, the first user input's stays (before a
/// built-in default's): the input position completes the key, so no stable
/// sort is needed. The keys are computed once, not in every comparison.
pub(super) fn canonical_order(
    parsed: Vec<(Entry, Option<Origin>)>,
) -> (Vec<Entry>, Vec<Option<Origin>>) {
    // Each class of the order key is sorted on its own, in the key's order
    // (`*` and names, then IPv4, then IPv6): addresses and blocks as packed
    // integers (network, prefix, port with `None` first, default flag, input
    // position), which sort several times faster than the general key; names
    // behind their first 16 bytes as one integer, so most comparisons end
    // without reading the strings.
    let port_rank = |port: Option<u16>| port.map_or(0, |p| u32::from(p) + 1);
    let mut names = Vec::new();
    let mut v4: Vec<u128> = Vec::new();
    let mut v6: Vec<(u128, u64)> = Vec::new();
    for (at, (entry, origin)) in parsed.iter().enumerate() {
        let default = origin.is_none();
        match entry.order_key() {
            OrderKey::V4(addr, prefix, port) => v4.push(
                u128::from(addr) << 96
                    | u128::from(prefix) << 88
                    | u128::from(port_rank(port)) << 64
                    | u128::from(default) << 63
                    | at as u128,
            ),
            OrderKey::V6(addr, prefix, port) => v6.push((
                addr,
                u64::from(prefix) << 56
                    | u64::from(port_rank(port)) << 36
                    | u64::from(default) << 35
                    | at as u64,
            )),
            key => names.push((name_prefix(&key), key, default, at)),
        }
    }
    names.sort_unstable();
    v4.sort_unstable();
    v6.sort_unstable();
    // Equal keys are equal entries: the first of each run stays.
    names.dedup_by(|later, first| later.1 == first.1);
    v4.dedup_by(|later, first| *later >> 64 == *first >> 64);
    v6.dedup_by(|later, first| later.0 == first.0 && later.1 >> 36 == first.1 >> 36);
    let order: Vec<usize> = names
        .into_iter()
        .map(|(_, _, _, at)| at)
        .chain(v4.into_iter().map(|key| (key & ((1 << 63) - 1)) as usize))
        .chain(
            v6.into_iter()
                .map(|(_, low)| (low & ((1 << 35) - 1)) as usize),
        )
        .collect();
    let mut slots: Vec<Option<(Entry, Option<Origin>)>> = parsed.into_iter().map(Some).collect();
    order.into_iter().filter_map(|at| slots[at].take()).unzip()
}

/// The first 16 bytes of a name key, big-endian, zero-padded: ordered as the
/// names are (no name holds a zero byte, and a shorter name sorts first), and
/// 0 for `*`, which comes before every name.
fn name_prefix(key: &OrderKey<'_>) -> u128 {
    let OrderKey::Domain(name, ..) = key else {
        return 0;
    };
    let mut bytes = [0u8; 16];
    let len = name.len().min(16);
    bytes[..len].copy_from_slice(&name.as_bytes()[..len]);
    u128::from_be_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::no_proxy::merge::tests::{source, targets};
    use crate::no_proxy::merge::{merge, Dialect};
    use crate::InputField;

    /// The per-class packed sort gives the order of the general key
    /// (`order_key`, default flag, position) with its first-of-equals dedup,
    /// ports (none first), prefixes, defaults and repeats included.
    #[test]
    fn packed_order_equals_the_general_key_order() {
        let texts = [
            "10.0.0.1",
            "10.0.0.0/8",
            "10.0.0.1:443",
            "10.0.0.1:80",
            "10.0.0.0/24",
            "b.example",
            ".b.example",
            "b.example:8080",
            "*",
            "fd00::1",
            "fd00::/8",
            "[fd00::1]:443",
            "::1",
            "127.0.0.1",
            "10.0.0.1",
            "a.example",
            "fd00::1",
            "0.0.0.0/0",
            "::/0",
            "[::1]:65535",
            "255.255.255.255:65535",
            "10.0.0.0/8",
            // Names equal in their first 16 bytes, or a prefix of another.
            "registry.corp.example",
            ".registry.corp.example",
            "registry.corp.example:443",
            "registry.corp.example.org",
            "registry.corp.ex",
            "registry.corp.e",
            "registry.corp.exb",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "abcdefghijklmno",
            "b",
            "a-b.example",
            "a.example",
        ];
        let parsed: Vec<(Entry, Option<Origin>)> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let origin = (i % 3 != 0).then_some(Origin {
                    source: 0,
                    index: i,
                });
                (Entry::parse(t).unwrap().entry, origin)
            })
            .collect();
        let mut reference: Vec<(OrderKey, bool, usize)> = parsed
            .iter()
            .enumerate()
            .map(|(at, (e, o))| (e.order_key(), o.is_none(), at))
            .collect();
        reference.sort_unstable();
        reference.dedup_by(|later, first| later.0 == first.0);
        let expected: Vec<(Entry, Option<Origin>)> = reference
            .iter()
            .map(|(_, _, at)| parsed[*at].clone())
            .collect();
        let (entries, origins) = canonical_order(parsed.clone());
        let got: Vec<(Entry, Option<Origin>)> = entries.into_iter().zip(origins).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn dedupes_semantically_in_canonical_order() {
        let merged = merge(
            &[
                source(
                    InputField::Installation,
                    &[" Registry.Corp.Example. ", "10.0.0.1/32", "[FD00::1]"],
                ),
                source(
                    InputField::Extra,
                    &[
                        "registry.corp.example",
                        "10.0.0.1",
                        "fd00:0::1",
                        "b.example",
                    ],
                ),
            ],
            &targets(&[Dialect::GO]),
        )
        .unwrap();
        assert_eq!(
            merged.list,
            ["b.example", "registry.corp.example", "10.0.0.1", "fd00::1"]
        );
    }
}
