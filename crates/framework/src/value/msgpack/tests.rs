//! Byte-exact encodings, round trips, and decoding of hostile input.

use super::*;
use std::collections::BTreeMap;

fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    )
}

#[test]
fn byte_exact_encodings_from_the_msgpack_spec() {
    assert_eq!(encode(&Value::Null, &Type::String).unwrap(), [0xc0]);
    assert_eq!(
        encode(&Value::unknown(), &Type::String).unwrap(),
        [0xd4, 0x00, 0x00]
    );
    assert_eq!(encode(&Value::bool(true), &Type::Bool).unwrap(), [0xc3]);
    // Numbers go out as decimal text (see encode_into).
    assert_eq!(encode(&Value::int(5), &Type::Number).unwrap(), [0xa1, b'5']);
    assert_eq!(
        encode(&Value::int(-1), &Type::Number).unwrap(),
        [0xa2, b'-', b'1']
    );
    assert_eq!(
        encode(&Value::int(300), &Type::Number).unwrap(),
        [0xa3, b'3', b'0', b'0']
    );
    assert_eq!(
        encode(&Value::string("ab"), &Type::String).unwrap(),
        [0xa2, b'a', b'b']
    );
    let ty = Type::object([("b", Type::String), ("a", Type::list(Type::Bool))]);
    let v = obj(&[
        ("b", Value::string("x")),
        ("a", Value::list(vec![Value::bool(false)])),
    ]);
    // fixmap(2) "a" [false] "b" "x": names sorted
    assert_eq!(
        encode(&v, &ty).unwrap(),
        [0x82, 0xa1, b'a', 0x91, 0xc2, 0xa1, b'b', 0xa1, b'x']
    );
    assert_eq!(
        encode(&Value::Number(Number::Float(0.5)), &Type::Number).unwrap(),
        [0xa3, b'0', b'.', b'5']
    );
}

#[test]
fn decodes_every_number_form() {
    let n = |bytes: &[u8]| decode(bytes, &Type::Number).unwrap();
    assert_eq!(n(&[0xd0, 0xfe]), Value::int(-2));
    assert_eq!(
        n(&[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        Value::Number(Number::Decimal("18446744073709551615".into()))
    );
    assert_eq!(
        n(&[0xca, 0x3f, 0xc0, 0, 0]),
        Value::Number(Number::Float(1.5))
    );
    let big = "123456789012345678901234567890";
    let mut bytes = vec![0xa0 | big.len() as u8];
    bytes.extend_from_slice(big.as_bytes());
    assert_eq!(n(&bytes), Value::Number(Number::Decimal(big.into())));
    assert!(decode(&[0xa1, b'x'], &Type::Number).is_err());
}

#[test]
fn unknown_and_refined_unknown_decode_at_any_type() {
    for ty in [
        Type::String,
        Type::list(Type::String),
        Type::object([("a", Type::Bool)]),
        Type::Dynamic,
    ] {
        assert!(decode(&[0xd4, 0x00, 0x00], &ty).unwrap().is_unknown());
    }
    // ext 12 payload: {1: true, 2: "ab", 5: 1, 6: 3, 9: "ignored"}
    let payload = [
        0x85, 0x01, 0xc3, 0x02, 0xa2, b'a', b'b', 0x05, 0x01, 0x06, 0x03, 0x09, 0xa1, b'z',
    ];
    let mut bytes = vec![0xc7, payload.len() as u8, 12];
    bytes.extend_from_slice(&payload);
    let Value::Unknown(r) = decode(&bytes, &Type::String).unwrap() else {
        panic!("not unknown")
    };
    assert!(r.not_null);
    assert_eq!(r.string_prefix.as_deref(), Some("ab"));
    assert_eq!((r.length_min, r.length_max), (Some(1), Some(3)));
    // number bounds: {3: [0, true], 4: [10.5, false]}
    let payload = [
        0x82, 0x03, 0x92, 0x00, 0xc3, 0x04, 0x92, 0xcb, 0x40, 0x25, 0, 0, 0, 0, 0, 0, 0xc2,
    ];
    let mut bytes = vec![0xc7, payload.len() as u8, 12];
    bytes.extend_from_slice(&payload);
    let Value::Unknown(r) = decode(&bytes, &Type::Number).unwrap() else {
        panic!("not unknown")
    };
    assert_eq!(r.number_lower, Some((Number::Int(0), true)));
    assert_eq!(r.number_upper, Some((Number::Float(10.5), false)));
    // garbage payload: still unknown, no refinements
    assert!(decode(&[0xd5, 12, 0xc1, 0xff], &Type::String)
        .unwrap()
        .is_unknown());
}

#[test]
fn objects_fill_missing_attributes_and_reject_unknown_ones() {
    let ty = Type::object([("a", Type::String), ("b", Type::String)]);
    let v = decode(&[0x81, 0xa1, b'a', 0xa1, b'x'], &ty).unwrap();
    assert_eq!(v, obj(&[("a", Value::string("x")), ("b", Value::Null)]));
    let err = decode(&[0x81, 0xa1, b'z', 0xc0], &ty).unwrap_err();
    assert!(err.message.contains("unsupported attribute"), "{err}");
}

#[test]
fn errors_name_the_path() {
    let ty = Type::object([("xs", Type::list(Type::String))]);
    let err = decode(&[0x81, 0xa2, b'x', b's', 0x92, 0xa1, b'a', 0x01], &ty).unwrap_err();
    assert_eq!(err.path, ".xs[1]");
    // Nested collections: every segment, in order.
    let inner = |b: Type| Type::object([("m", Type::map(Type::list(Type::object([("b", b)]))))]);
    let element = |b: &str| obj(&[("b", Value::string(b))]);
    let value = obj(&[(
        "m",
        Value::Map(BTreeMap::from([(
            "k".to_owned(),
            Value::list(vec![element("1"), element("x")]),
        )])),
    )]);
    let bytes = encode(&value, &inner(Type::String)).unwrap();
    let err = decode(&bytes, &inner(Type::Number)).unwrap_err();
    assert_eq!(err.path, ".m[\"k\"][1].b");
    assert_eq!(err.message, "invalid number literal");
}

#[test]
fn dynamic_values_carry_their_type() {
    let v = Value::Typed(Box::new((
        Type::list(Type::String),
        Value::list(vec![Value::string("a")]),
    )));
    let bytes = encode(&v, &Type::Dynamic).unwrap();
    assert_eq!(&bytes[..2], &[0x92, 0xc4]);
    assert_eq!(decode(&bytes, &Type::Dynamic).unwrap(), v);
    assert!(encode(&Value::string("untyped"), &Type::Dynamic).is_err());
}

#[test]
fn hostile_lengths_do_not_allocate() {
    assert!(decode(&[0xdd, 0xff, 0xff, 0xff, 0xff], &Type::list(Type::String)).is_err());
    assert!(decode(&[0xdf, 0xff, 0xff, 0xff, 0xff], &Type::map(Type::String)).is_err());
    assert!(decode(&[0xdb, 0xff, 0xff, 0xff, 0xff], &Type::String).is_err());
    let deep = vec![0x91; 10_000];
    let mut ty = Type::String;
    for _ in 0..100 {
        ty = Type::list(ty);
    }
    assert!(decode(&deep, &ty).is_err());
    assert!(decode(&[0xc0, 0xc0], &Type::String).is_err());
}

#[test]
fn sets_maps_and_tuples_round_trip() {
    let ty = Type::object([
        ("s", Type::set(Type::Number)),
        ("m", Type::map(Type::Bool)),
        ("t", Type::Tuple(vec![Type::String, Type::Number])),
    ]);
    let v = obj(&[
        ("s", Value::Set(vec![Value::int(2), Value::int(1)])),
        (
            "m",
            Value::Map(BTreeMap::from([("k".to_owned(), Value::bool(true))])),
        ),
        (
            "t",
            Value::Tuple(vec![Value::string("a"), Value::unknown()]),
        ),
    ]);
    assert_eq!(decode(&encode(&v, &ty).unwrap(), &ty).unwrap(), v);
}

/// `encoded_len` counts exactly what `encode` writes, at every width of a
/// string, binary, array and map header (the counts where msgpack moves to
/// a wider header), for unknowns, numbers and dynamic values.
#[test]
fn encoded_len_is_the_length_of_the_encoding() {
    let mut cases: Vec<(Value, Type)> = vec![
        (Value::Null, Type::String),
        (Value::unknown(), Type::list(Type::String)),
        (Value::bool(false), Type::Bool),
        (Value::int(-12345), Type::Number),
        (
            Value::Typed(Box::new((Type::String, Value::string("x")))),
            Type::Dynamic,
        ),
    ];
    for n in [0, 15, 16, 31, 32, 255, 256, 65_535, 65_536] {
        cases.push((Value::string("s".repeat(n)), Type::String));
        cases.push((
            Value::list(vec![Value::bool(true); n]),
            Type::list(Type::Bool),
        ));
        cases.push((
            Value::Map((0..n).map(|i| (i.to_string(), Value::Null)).collect()),
            Type::map(Type::String),
        ));
        let names: Vec<String> = (0..n.min(300)).map(|i| format!("a{i}")).collect();
        let object_type = Type::object(names.iter().map(|k| (k.as_str(), Type::String)));
        let object = Value::Object(
            names
                .iter()
                .map(|k| (k.clone(), Value::string(k.as_str())))
                .collect(),
        );
        cases.push((object, object_type));
    }
    for (value, ty) in cases {
        let encoded = encode(&value, &ty).unwrap();
        assert_eq!(encoded_len(&value, &ty).unwrap(), encoded.len(), "{ty:?}");
        assert_eq!(encoded.capacity(), encoded.len(), "{ty:?}");
    }
    assert!(encoded_len(&Value::bool(true), &Type::String).is_err());
}
