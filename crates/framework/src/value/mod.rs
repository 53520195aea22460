//! Terraform values (the cty type system): types, values with null and
//! unknown, and their two wire codecs ([`msgpack`], [`json`]).

pub mod conform;
pub mod json;
pub mod msgpack;
mod number;
mod types;

use std::collections::BTreeMap;

pub use number::Number;
pub use types::Type;

/// What Terraform promises about an unknown value (Terraform >= 1.6 "refined
/// unknowns"). Every field is optional; unknown refinement keys are ignored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Refinements {
    /// The value will not be null.
    pub not_null: bool,
    /// A string value will start with this prefix.
    pub string_prefix: Option<String>,
    /// A number will be at least this (value, inclusive).
    pub number_lower: Option<(Number, bool)>,
    /// A number will be at most this (value, inclusive).
    pub number_upper: Option<(Number, bool)>,
    /// A collection will have at least this many elements.
    pub length_min: Option<u64>,
    /// A collection will have at most this many elements.
    pub length_max: Option<u64>,
}

/// A Terraform value. Collections hold their elements; the element and
/// attribute types live in the [`Type`] the codecs are driven by.
#[derive(Debug, Clone)]
pub enum Value {
    /// Null of any type.
    Null,
    /// Not known until apply, possibly with refinements.
    Unknown(Box<Refinements>),
    /// A boolean.
    Bool(bool),
    /// A number of arbitrary precision.
    Number(Number),
    /// A UTF-8 string.
    String(String),
    /// An ordered list.
    List(Vec<Value>),
    /// A set; order carries no meaning (equality ignores it).
    Set(Vec<Value>),
    /// A map with string keys.
    Map(BTreeMap<String, Value>),
    /// An object with a fixed set of attributes.
    Object(BTreeMap<String, Value>),
    /// A fixed-length sequence of values of possibly different types.
    Tuple(Vec<Value>),
    /// A value at a `dynamic` position, with the concrete type it was sent with.
    Typed(Box<(Type, Value)>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) | (Unknown(_), Unknown(_)) => true,
            (Bool(a), Bool(b)) => a == b,
            (Number(a), Number(b)) => a == b,
            (String(a), String(b)) => a == b,
            (List(a), List(b)) | (Tuple(a), Tuple(b)) => a == b,
            (Set(a), Set(b)) => same_elements(a, b),
            (Map(a), Map(b)) | (Object(a), Object(b)) => a == b,
            (Typed(a), Typed(b)) => a == b,
            _ => false,
        }
    }
}

/// Set equality: the same length and each element of either set in the
/// other. Elements are bucketed by a hash that equal values share (see
/// [`eq_hash`]), so the comparison is linear in the elements rather than one
/// scan of the other set per element; keyed per comparison, so no input can
/// be crafted to collide.
fn same_elements(a: &[Value], b: &[Value]) -> bool {
    use std::collections::HashMap;
    use std::hash::BuildHasher;
    if a.len() != b.len() {
        return false;
    }
    if a.len() <= 8 {
        return a.iter().all(|x| b.contains(x)) && b.iter().all(|y| a.contains(y));
    }
    let keys = std::collections::hash_map::RandomState::new();
    let hash = |v: &Value| {
        let mut hasher = keys.build_hasher();
        eq_hash(v, &keys, &mut hasher);
        std::hash::Hasher::finish(&hasher)
    };
    let buckets = |values: &[Value]| {
        let mut map: HashMap<u64, Vec<usize>> = HashMap::with_capacity(values.len());
        let hashes: Vec<u64> = values.iter().map(hash).collect();
        for (i, h) in hashes.iter().enumerate() {
            map.entry(*h).or_default().push(i);
        }
        (map, hashes)
    };
    let (in_a, hashes_a) = buckets(a);
    let (in_b, hashes_b) = buckets(b);
    let contained = |x: &Value, h: u64, map: &HashMap<u64, Vec<usize>>, other: &[Value]| {
        map.get(&h)
            .is_some_and(|candidates| candidates.iter().any(|&i| other[i] == *x))
    };
    a.iter()
        .zip(&hashes_a)
        .all(|(x, &h)| contained(x, h, &in_b, b))
        && b.iter()
            .zip(&hashes_b)
            .all(|(y, &h)| contained(y, h, &in_a, a))
}

/// Feeds `value` to `hasher` so that values equal under `PartialEq` hash
/// alike: every unknown alike (they compare equal), `-0.0` as `0.0`, and a
/// set's elements in any order (their hashes, each under `keys`, are added
/// up).
fn eq_hash(
    value: &Value,
    keys: &std::collections::hash_map::RandomState,
    hasher: &mut impl std::hash::Hasher,
) {
    use std::hash::{BuildHasher, Hash};
    std::mem::discriminant(value).hash(hasher);
    match value {
        Value::Null | Value::Unknown(_) => {}
        Value::Bool(b) => b.hash(hasher),
        Value::Number(Number::Int(i)) => i.hash(hasher),
        Value::Number(Number::Float(f)) => {
            (if *f == 0.0 { 0.0f64 } else { *f }).to_bits().hash(hasher)
        }
        Value::Number(Number::Decimal(d)) => d.hash(hasher),
        Value::String(s) => s.hash(hasher),
        Value::List(items) | Value::Tuple(items) => {
            items.len().hash(hasher);
            items.iter().for_each(|v| eq_hash(v, keys, hasher));
        }
        Value::Set(items) => {
            let sum = items.iter().fold(0u64, |sum, v| {
                let mut element = keys.build_hasher();
                eq_hash(v, keys, &mut element);
                sum.wrapping_add(std::hash::Hasher::finish(&element))
            });
            (items.len(), sum).hash(hasher);
        }
        Value::Map(entries) | Value::Object(entries) => {
            entries.len().hash(hasher);
            for (k, v) in entries {
                k.hash(hasher);
                eq_hash(v, keys, hasher);
            }
        }
        Value::Typed(typed) => {
            typed.0.hash(hasher);
            eq_hash(&typed.1, keys, hasher);
        }
    }
}

impl Value {
    /// Shorthand for [`Value::Null`].
    pub fn null() -> Self {
        Value::Null
    }

    /// Unknown, without refinements.
    pub fn unknown() -> Self {
        Value::Unknown(Box::default())
    }

    /// A string value from anything that converts to a `String`.
    pub fn string(s: impl Into<String>) -> Self {
        Value::String(s.into())
    }

    /// A string, or null for `None`.
    pub fn opt_string(s: Option<impl Into<String>>) -> Self {
        s.map_or(Value::Null, Value::string)
    }

    /// Shorthand for [`Value::Bool`].
    pub fn bool(b: bool) -> Self {
        Value::Bool(b)
    }

    /// An integer number.
    pub fn int(n: i64) -> Self {
        Value::Number(Number::Int(n))
    }

    /// Shorthand for [`Value::List`].
    pub fn list(items: Vec<Value>) -> Self {
        Value::List(items)
    }

    /// A map value from `(key, value)` pairs; a repeated key keeps the last.
    pub fn map(entries: impl IntoIterator<Item = (String, Value)>) -> Self {
        Value::Map(entries.into_iter().collect())
    }

    /// An object value from `(name, value)` pairs; a repeated name keeps the
    /// last.
    pub fn object(attributes: impl IntoIterator<Item = (String, Value)>) -> Self {
        Value::Object(attributes.into_iter().collect())
    }

    /// True for null (not for unknown).
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// True for an unknown value (not for known values containing unknowns).
    pub fn is_unknown(&self) -> bool {
        matches!(self, Value::Unknown(_))
    }

    /// True when neither the value nor anything inside it is unknown.
    pub fn is_wholly_known(&self) -> bool {
        match self {
            Value::Unknown(_) => false,
            Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
                items.iter().all(Value::is_wholly_known)
            }
            Value::Map(entries) | Value::Object(entries) => {
                entries.values().all(Value::is_wholly_known)
            }
            Value::Typed(typed) => typed.1.is_wholly_known(),
            _ => true,
        }
    }

    /// An object attribute (`None` if this is not an object or has no such attribute).
    pub fn get_attr(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(attributes) => attributes.get(name),
            _ => None,
        }
    }

    /// Sets an object attribute; does nothing on non-objects.
    pub fn set_attr(&mut self, name: &str, value: Value) {
        if let Value::Object(attributes) = self {
            attributes.insert(name.to_owned(), value);
        }
    }

    /// Moves attribute `name` out of an object, leaving null in its place
    /// (`None` for any other value or a name it lacks): a large value
    /// changes hands without a copy.
    pub fn take_attr(&mut self, name: &str) -> Option<Value> {
        match self {
            Value::Object(attributes) => attributes
                .get_mut(name)
                .map(|v| std::mem::replace(v, Value::Null)),
            _ => None,
        }
    }

    /// The string, if this is a known string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is a known bool.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is a known number.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The elements of a list, set or tuple.
    pub fn elements(&self) -> Option<&[Value]> {
        match self {
            Value::List(items) | Value::Set(items) | Value::Tuple(items) => Some(items),
            _ => None,
        }
    }

    /// The entries of a map or the attributes of an object.
    pub fn entries(&self) -> Option<&BTreeMap<String, Value>> {
        match self {
            Value::Map(entries) | Value::Object(entries) => Some(entries),
            _ => None,
        }
    }
}

/// Deepest nesting the decoders accept (Terraform schemas are far shallower).
pub(crate) const MAX_DEPTH: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    /// Large sets (the hashed path) agree with the element-wise definition:
    /// order never counts, content always does, nested sets and objects
    /// compare by content, `-0.0` equals `0.0`, unknowns equal each other.
    #[test]
    fn large_set_equality_agrees_with_containment() {
        let element = |i: usize| {
            Value::object([
                ("name".to_owned(), Value::string(format!("e{i}"))),
                (
                    "inner".to_owned(),
                    Value::Set(vec![
                        Value::Number(Number::Int(i as i64)),
                        Value::string("k"),
                    ]),
                ),
            ])
        };
        let forward: Vec<Value> = (0..100).map(element).collect();
        let mut backward = forward.clone();
        backward.reverse();
        if let Value::Object(first) = &mut backward[0] {
            if let Some(Value::Set(inner)) = first.get_mut("inner") {
                inner.reverse();
            }
        }
        assert_eq!(Value::Set(forward.clone()), Value::Set(backward.clone()));
        let mut changed = backward.clone();
        changed[50] = element(1000);
        assert_ne!(Value::Set(forward.clone()), Value::Set(changed));
        let zeros = |z: f64| {
            Value::Set(
                (0..20)
                    .map(|i| Value::Number(Number::Float(i as f64 + 0.5)))
                    .chain([Value::Number(Number::Float(z))])
                    .collect(),
            )
        };
        assert_eq!(zeros(0.0), zeros(-0.0));
        let unknowns = |n: usize| {
            Value::Set(
                (0..n)
                    .map(|i| Value::string(i.to_string()))
                    .chain([Value::unknown()])
                    .collect(),
            )
        };
        assert_eq!(unknowns(20), unknowns(20));
        // Same length, one side with a duplicate: not equal either way.
        let strings =
            |items: &[&str]| Value::Set(items.iter().map(|s| Value::string(*s)).collect());
        let many: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        let mut with_duplicate: Vec<&str> = many.iter().map(String::as_str).collect();
        let distinct = strings(&with_duplicate);
        with_duplicate[19] = "0";
        assert_ne!(distinct, strings(&with_duplicate));
        assert_ne!(strings(&with_duplicate), distinct);
    }

    #[test]
    fn set_equality_ignores_order_but_not_content() {
        let a = Value::Set(vec![Value::string("x"), Value::string("y")]);
        let b = Value::Set(vec![Value::string("y"), Value::string("x")]);
        let c = Value::Set(vec![Value::string("y"), Value::string("z")]);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(
            Value::List(vec![Value::string("x"), Value::string("y")]),
            Value::List(vec![Value::string("y"), Value::string("x")])
        );
    }

    #[test]
    fn wholly_known_looks_inside_collections() {
        let v = Value::object([("a".to_owned(), Value::list(vec![Value::unknown()]))]);
        assert!(!v.is_wholly_known());
        assert!(!v.is_unknown());
        assert!(Value::object([("a".to_owned(), Value::Null)]).is_wholly_known());
    }

    #[test]
    fn attribute_access() {
        let mut v = Value::object([("a".to_owned(), Value::string("x"))]);
        assert_eq!(v.get_attr("a").and_then(Value::as_str), Some("x"));
        v.set_attr("a", Value::bool(true));
        assert_eq!(v.get_attr("a").and_then(Value::as_bool), Some(true));
        assert!(Value::string("x").get_attr("a").is_none());
    }
}
