//! The MessagePack wire form of values (hashicorp/terraform
//! docs/plugin-protocol/object-wire-format.md, go-cty cty/msgpack).
//!
//! The decoder is hand-written so it can never panic or over-allocate on
//! hostile input: every length is checked against the bytes that remain.

use std::fmt;

use super::{Number, Refinements, Type, Value, MAX_DEPTH};

/// Extension type Terraform uses for refined unknown values.
const REFINED_UNKNOWN_EXT: i8 = 12;

/// Why decoding failed, and where in the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Path to the failing element, e.g. `.pod_cidrs[2]`.
    pub path: String,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "at {}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for DecodeError {}

impl DecodeError {
    /// An error at `path`.
    pub(crate) fn at(path: &str, message: String) -> DecodeError {
        DecodeError {
            path: path.to_owned(),
            message,
        }
    }

    /// The error of an element: `segment` (`[2]`, `["key"]`) inserted at byte
    /// `at` of the path, where the element's own path begins. Paths are
    /// written only for errors, not for every element decoded.
    fn within(mut self, at: usize, segment: fmt::Arguments<'_>) -> DecodeError {
        self.path.insert_str(at, &segment.to_string());
        self
    }

    /// Fails at `path` when `depth` exceeds the nesting limit.
    pub(crate) fn check_depth(path: &str, depth: usize) -> Result<(), DecodeError> {
        if depth > MAX_DEPTH {
            return Err(DecodeError::at(path, "value nested too deeply".into()));
        }
        Ok(())
    }
}

/// Why encoding failed (a value that does not conform to its type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncodeError {}

/// One MessagePack item header.
#[derive(Debug, Clone, Copy)]
enum Item<'a> {
    Nil,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(&'a [u8]),
    Bin(&'a [u8]),
    Array(usize),
    Map(usize),
    Ext(i8, &'a [u8]),
}

struct Reader<'a> {
    input: &'a [u8],
    position: usize,
}

impl<'a> Reader<'a> {
    fn new(input: &'a [u8]) -> Self {
        Self { input, position: 0 }
    }

    fn remaining(&self) -> usize {
        self.input.len() - self.position
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.remaining() {
            return Err("unexpected end of input".into());
        }
        let bytes = &self.input[self.position..self.position + n];
        self.position += n;
        Ok(bytes)
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn uint(&mut self, width: usize) -> Result<u64, String> {
        Ok(self
            .take(width)?
            .iter()
            .fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
    }

    fn length(&mut self, width: usize) -> Result<usize, String> {
        usize::try_from(self.uint(width)?).map_err(|_| "length too large".to_owned())
    }

    /// A collection length, rejected when the input cannot hold that many items.
    fn count(&mut self, width: usize, bytes_per_item: usize) -> Result<usize, String> {
        let n = self.length(width)?;
        if n.saturating_mul(bytes_per_item) > self.remaining() {
            return Err(format!("collection of {n} items is longer than the input"));
        }
        Ok(n)
    }

    fn ext(&mut self, len: usize) -> Result<Item<'a>, String> {
        let kind = self.byte()? as i8;
        Ok(Item::Ext(kind, self.take(len)?))
    }

    fn next(&mut self) -> Result<Item<'a>, String> {
        let marker = self.byte()?;
        Ok(match marker {
            0x00..=0x7f => Item::Int(i64::from(marker)),
            0x80..=0x8f => Item::Map(self.count_fixed(usize::from(marker & 0x0f), 2)?),
            0x90..=0x9f => Item::Array(self.count_fixed(usize::from(marker & 0x0f), 1)?),
            0xa0..=0xbf => Item::Str(self.take(usize::from(marker & 0x1f))?),
            0xc0 => Item::Nil,
            0xc2 => Item::Bool(false),
            0xc3 => Item::Bool(true),
            0xc4 => {
                let n = self.length(1)?;
                Item::Bin(self.take(n)?)
            }
            0xc5 => {
                let n = self.length(2)?;
                Item::Bin(self.take(n)?)
            }
            0xc6 => {
                let n = self.length(4)?;
                Item::Bin(self.take(n)?)
            }
            0xc7 => {
                let n = self.length(1)?;
                self.ext(n)?
            }
            0xc8 => {
                let n = self.length(2)?;
                self.ext(n)?
            }
            0xc9 => {
                let n = self.length(4)?;
                self.ext(n)?
            }
            0xca => Item::Float(f64::from(f32::from_bits(self.uint(4)? as u32))),
            0xcb => Item::Float(f64::from_bits(self.uint(8)?)),
            0xcc => Item::Int(self.uint(1)? as i64),
            0xcd => Item::Int(self.uint(2)? as i64),
            0xce => Item::Int(self.uint(4)? as i64),
            0xcf => Item::Uint(self.uint(8)?),
            0xd0 => Item::Int(i64::from(self.uint(1)? as u8 as i8)),
            0xd1 => Item::Int(i64::from(self.uint(2)? as u16 as i16)),
            0xd2 => Item::Int(i64::from(self.uint(4)? as u32 as i32)),
            0xd3 => Item::Int(self.uint(8)? as i64),
            0xd4 => self.ext(1)?,
            0xd5 => self.ext(2)?,
            0xd6 => self.ext(4)?,
            0xd7 => self.ext(8)?,
            0xd8 => self.ext(16)?,
            0xd9 => {
                let n = self.length(1)?;
                Item::Str(self.take(n)?)
            }
            0xda => {
                let n = self.length(2)?;
                Item::Str(self.take(n)?)
            }
            0xdb => {
                let n = self.length(4)?;
                Item::Str(self.take(n)?)
            }
            0xdc => Item::Array(self.count(2, 1)?),
            0xdd => Item::Array(self.count(4, 1)?),
            0xde => Item::Map(self.count(2, 2)?),
            0xdf => Item::Map(self.count(4, 2)?),
            0xe0..=0xff => Item::Int(i64::from(marker as i8)),
            0xc1 => return Err("reserved marker 0xc1".into()),
        })
    }

    fn count_fixed(&self, n: usize, bytes_per_item: usize) -> Result<usize, String> {
        if n * bytes_per_item > self.remaining() {
            return Err(format!("collection of {n} items is longer than the input"));
        }
        Ok(n)
    }

    /// Skips one whole item, including nested items.
    fn skip(&mut self, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err("value nested too deeply".into());
        }
        match self.next()? {
            Item::Array(n) => (0..n).try_for_each(|_| self.skip(depth + 1)),
            Item::Map(n) => (0..n * 2).try_for_each(|_| self.skip(depth + 1)),
            _ => Ok(()),
        }
    }
}

/// Decodes a value of type `ty`.
pub fn decode(input: &[u8], ty: &Type) -> Result<Value, DecodeError> {
    let mut reader = Reader::new(input);
    let mut path = String::new();
    let value = decode_value(&mut reader, ty, &mut path, 0)?;
    if reader.remaining() != 0 {
        return Err(DecodeError {
            path: String::new(),
            message: format!("{} unexpected bytes after the value", reader.remaining()),
        });
    }
    Ok(value)
}

fn decode_value(
    reader: &mut Reader<'_>,
    ty: &Type,
    path: &mut String,
    depth: usize,
) -> Result<Value, DecodeError> {
    DecodeError::check_depth(path, depth)?;
    let item = reader.next().map_err(|m| DecodeError::at(path, m))?;
    match (item, ty) {
        (Item::Nil, _) => Ok(Value::Null),
        (Item::Ext(kind, payload), _) => {
            Ok(Value::Unknown(Box::new(if kind == REFINED_UNKNOWN_EXT {
                refinements(payload)
            } else {
                Refinements::default()
            })))
        }
        (Item::Bool(b), Type::Bool) => Ok(Value::Bool(b)),
        (Item::Int(i), Type::Number) => Ok(Value::Number(Number::Int(i))),
        (Item::Uint(u), Type::Number) => Ok(Value::Number(Number::from_u64(u))),
        (Item::Float(f), Type::Number) if f.is_finite() => Ok(Value::Number(Number::from_f64(f))),
        (Item::Str(bytes), Type::Number) => std::str::from_utf8(bytes)
            .ok()
            .and_then(Number::from_decimal)
            .map(Value::Number)
            .ok_or_else(|| DecodeError::at(path, "invalid number literal".into())),
        (Item::Str(bytes), Type::String) => String::from_utf8(bytes.to_vec())
            .map(Value::String)
            .map_err(|_| DecodeError::at(path, "string is not valid UTF-8".into())),
        (Item::Array(n), Type::List(element) | Type::Set(element)) => {
            let mut items = Vec::with_capacity(n);
            for i in 0..n {
                let at = path.len();
                let item = decode_value(reader, element, path, depth + 1);
                items.push(item.map_err(|e| e.within(at, format_args!("[{i}]")))?);
            }
            Ok(if matches!(ty, Type::List(_)) {
                Value::List(items)
            } else {
                Value::Set(items)
            })
        }
        (Item::Array(n), Type::Tuple(elements)) => {
            if n != elements.len() {
                return Err(DecodeError::at(
                    path,
                    format!("tuple needs {} elements, got {n}", elements.len()),
                ));
            }
            let mut items = Vec::with_capacity(n);
            for (i, element) in elements.iter().enumerate() {
                let at = path.len();
                let item = decode_value(reader, element, path, depth + 1);
                items.push(item.map_err(|e| e.within(at, format_args!("[{i}]")))?);
            }
            Ok(Value::Tuple(items))
        }
        (Item::Map(n), Type::Map(element)) => {
            let mut entries = std::collections::BTreeMap::new();
            for _ in 0..n {
                let key = decode_key(reader, path)?;
                let at = path.len();
                let value = decode_value(reader, element, path, depth + 1)
                    .map_err(|e| e.within(at, format_args!("[{key:?}]")))?;
                entries.insert(key, value);
            }
            Ok(Value::Map(entries))
        }
        (Item::Map(n), Type::Object(attributes)) => {
            let mut values = std::collections::BTreeMap::new();
            for _ in 0..n {
                let key = decode_key(reader, path)?;
                let Some(attribute_type) = attributes.get(&key) else {
                    return Err(DecodeError::at(
                        path,
                        format!("unsupported attribute {key:?}"),
                    ));
                };
                let len = path.len();
                path.push('.');
                path.push_str(&key);
                let value = decode_value(reader, attribute_type, path, depth + 1)?;
                path.truncate(len);
                values.insert(key, value);
            }
            for name in attributes.keys() {
                values.entry(name.clone()).or_insert(Value::Null);
            }
            Ok(Value::Object(values))
        }
        (Item::Array(2), Type::Dynamic) => {
            let type_json = match reader.next().map_err(|m| DecodeError::at(path, m))? {
                Item::Bin(bytes) | Item::Str(bytes) => bytes,
                _ => return Err(DecodeError::at(path, "dynamic value without a type".into())),
            };
            let concrete = serde_json::from_slice(type_json)
                .map_err(|e| e.to_string())
                .and_then(|json| Type::from_json(&json))
                .map_err(|m| DecodeError::at(path, format!("invalid dynamic type: {m}")))?;
            let value = decode_value(reader, &concrete, path, depth + 1)?;
            Ok(Value::Typed(Box::new((concrete, value))))
        }
        (item, ty) => Err(DecodeError::at(
            path,
            format!("{} is not valid for type {}", describe(&item), ty.to_json()),
        )),
    }
}

fn decode_key(reader: &mut Reader<'_>, path: &str) -> Result<String, DecodeError> {
    match reader.next() {
        Ok(Item::Str(bytes)) => String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError {
            path: path.to_owned(),
            message: "key is not valid UTF-8".into(),
        }),
        Ok(other) => Err(DecodeError {
            path: path.to_owned(),
            message: format!("map key must be a string, got {}", describe(&other)),
        }),
        Err(message) => Err(DecodeError {
            path: path.to_owned(),
            message,
        }),
    }
}

fn describe(item: &Item<'_>) -> &'static str {
    match item {
        Item::Nil => "nil",
        Item::Bool(_) => "a bool",
        Item::Int(_) | Item::Uint(_) => "an integer",
        Item::Float(_) => "a float",
        Item::Str(_) => "a string",
        Item::Bin(_) => "binary data",
        Item::Array(_) => "an array",
        Item::Map(_) => "a map",
        Item::Ext(..) => "an extension",
    }
}

/// Reads the refinements of a refined unknown. A malformed payload gives no
/// refinements instead of an error: they are hints, never required.
fn refinements(payload: &[u8]) -> Refinements {
    let mut result = Refinements::default();
    let mut reader = Reader::new(payload);
    let Ok(Item::Map(n)) = reader.next() else {
        return result;
    };
    for _ in 0..n {
        let key = match reader.next() {
            Ok(Item::Int(k)) => k,
            _ => return result,
        };
        let start = reader.position;
        if reader.skip(0).is_err() {
            return result;
        }
        let mut value = Reader::new(&payload[start..reader.position]);
        match (key, value.next()) {
            (1, Ok(Item::Bool(b))) => result.not_null = b,
            (2, Ok(Item::Str(s))) => {
                result.string_prefix = std::str::from_utf8(s).ok().map(str::to_owned)
            }
            (3, Ok(Item::Array(2))) => result.number_lower = bound(&mut value),
            (4, Ok(Item::Array(2))) => result.number_upper = bound(&mut value),
            (5, Ok(Item::Int(n))) => result.length_min = u64::try_from(n).ok(),
            (6, Ok(Item::Int(n))) => result.length_max = u64::try_from(n).ok(),
            _ => {}
        }
    }
    result
}

fn bound(reader: &mut Reader<'_>) -> Option<(Number, bool)> {
    let number = match reader.next().ok()? {
        Item::Int(i) => Number::Int(i),
        Item::Uint(u) => Number::from_u64(u),
        Item::Float(f) if f.is_finite() => Number::from_f64(f),
        Item::Str(s) => Number::from_decimal(std::str::from_utf8(s).ok()?)?,
        _ => return None,
    };
    match reader.next().ok()? {
        Item::Bool(inclusive) => Some((number, inclusive)),
        _ => None,
    }
}

/// Encodes `value` as type `ty`, into a buffer of exactly its size
/// ([`encoded_len`]), so that a large result is never copied as its buffer
/// grows.
pub fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(encoded_len(value, ty)?);
    encode_into(&mut out, value, ty)?;
    Ok(out)
}

/// The number of bytes [`encode`] writes for `value` as type `ty`, counted
/// by the encoder itself without writing them: a result is measured against
/// a message limit before anything is encoded.
pub fn encoded_len(value: &Value, ty: &Type) -> Result<usize, EncodeError> {
    let mut counter = Counter(0);
    encode_into(&mut counter, value, ty)?;
    Ok(counter.0)
}

/// A writer that only counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn io(e: impl fmt::Display) -> EncodeError {
    EncodeError(e.to_string())
}

fn encode_into<W: std::io::Write>(
    out: &mut W,
    value: &Value,
    ty: &Type,
) -> Result<(), EncodeError> {
    use rmp::encode as mp;
    match (value, ty) {
        (Value::Null, _) => mp::write_nil(out).map_err(io),
        (Value::Unknown(_), _) => {
            mp::write_ext_meta(out, 1, 0).map_err(io)?;
            out.write_all(&[0]).map_err(io)
        }
        (Value::Typed(typed), Type::Dynamic) => {
            let (concrete, inner) = typed.as_ref();
            mp::write_array_len(out, 2).map_err(io)?;
            mp::write_bin(out, &concrete.to_json_bytes()).map_err(io)?;
            encode_into(out, inner, concrete)
        }
        (Value::Bool(b), Type::Bool) => mp::write_bool(out, *b).map_err(io),
        // Every number as its decimal text: Terraform then reads it as it
        // reads state JSON (go-cty's ParseNumberVal, 512-bit precision), not
        // as a 64-bit integer or a double. Terraform 1.11 compares a
        // refreshed object with the prior one read from the state file
        // (`reflect.DeepEqual` in internal/states/state_equal.go), precision
        // included, so a native integer made every refresh-only plan with a
        // number attribute exit 2 ("No changes").
        (Value::Number(n), Type::Number) => match n {
            Number::Int(i) => mp::write_str(out, &i.to_string()).map_err(io),
            Number::Float(f) => mp::write_str(out, &f.to_string()).map_err(io),
            Number::Decimal(s) => mp::write_str(out, s).map_err(io),
        },
        (Value::String(s), Type::String) => mp::write_str(out, s).map_err(io),
        (Value::List(items), Type::List(element)) | (Value::Set(items), Type::Set(element)) => {
            mp::write_array_len(out, len32(items.len())?).map_err(io)?;
            items
                .iter()
                .try_for_each(|item| encode_into(out, item, element))
        }
        (Value::Tuple(items), Type::Tuple(elements)) if items.len() == elements.len() => {
            mp::write_array_len(out, len32(items.len())?).map_err(io)?;
            items
                .iter()
                .zip(elements)
                .try_for_each(|(item, t)| encode_into(out, item, t))
        }
        (Value::Map(entries), Type::Map(element)) => {
            mp::write_map_len(out, len32(entries.len())?).map_err(io)?;
            entries.iter().try_for_each(|(k, v)| {
                mp::write_str(out, k).map_err(io)?;
                encode_into(out, v, element)
            })
        }
        (Value::Object(values), Type::Object(attributes)) => {
            if let Some(extra) = values.keys().find(|k| !attributes.contains_key(*k)) {
                return Err(EncodeError(format!(
                    "attribute {extra:?} is not in the type"
                )));
            }
            mp::write_map_len(out, len32(attributes.len())?).map_err(io)?;
            attributes.iter().try_for_each(|(name, t)| {
                let value = values
                    .get(name)
                    .ok_or_else(|| EncodeError(format!("attribute {name:?} is missing")))?;
                mp::write_str(out, name).map_err(io)?;
                encode_into(out, value, t)
            })
        }
        (value, ty) => Err(EncodeError(format!(
            "{value:?} does not conform to type {}",
            ty.to_json()
        ))),
    }
}

fn len32(n: usize) -> Result<u32, EncodeError> {
    u32::try_from(n).map_err(|_| EncodeError("collection too large".into()))
}

#[cfg(test)]
mod tests;
