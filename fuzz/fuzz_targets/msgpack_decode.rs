//! Any bytes, decoded against schema-like types: never a panic, and a value
//! that decodes re-encodes and decodes to the same value.

#![no_main]

use clusterproxy::framework::value::{msgpack, Type};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let types = [
        Type::String,
        Type::Number,
        Type::Dynamic,
        Type::list(Type::String),
        Type::set(Type::Number),
        Type::map(Type::Bool),
        Type::Tuple(vec![Type::String, Type::Dynamic]),
        Type::object([
            ("entries", Type::list(Type::String)),
            ("name", Type::String),
            (
                "nested",
                Type::object([("n", Type::Number), ("d", Type::Dynamic)]),
            ),
        ]),
    ];
    for ty in &types {
        if let Ok(value) = msgpack::decode(data, ty) {
            let bytes = msgpack::encode(&value, ty).expect("a decoded value encodes");
            let again = msgpack::decode(&bytes, ty).expect("an encoded value decodes");
            assert_eq!(again, value);
        }
    }
});
