//! The JSON wire form of values (DynamicValue.json and stored state).
//! Unknown values have no JSON form.

use serde_json::{Map, Value as Json};

use super::msgpack::{DecodeError, EncodeError};
use super::{Number, Type, Value};

/// Decodes JSON bytes as a value of type `ty`.
pub fn decode(input: &[u8], ty: &Type) -> Result<Value, DecodeError> {
    let json: Json = serde_json::from_slice(input).map_err(|e| DecodeError {
        path: String::new(),
        message: format!("invalid JSON: {e}"),
    })?;
    from_json(&json, ty, &mut String::new(), 0)
}

// Converts parsed JSON to a value of type `ty`.
fn from_json(
    json: &Json,
    ty: &Type,
    path: &mut String,
    depth: usize,
) -> Result<Value, DecodeError> {
    DecodeError::check_depth(path, depth)?;
    let nested = |json: &Json, ty: &Type, step: String, path: &mut String| {
        let len = path.len();
        path.push_str(&step);
        let value = from_json(json, ty, path, depth + 1);
        path.truncate(len);
        value
    };
    match (json, ty) {
        (Json::Null, _) => Ok(Value::Null),
        (Json::Bool(b), Type::Bool) => Ok(Value::Bool(*b)),
        (Json::Number(n), Type::Number) => Number::from_decimal(&n.to_string())
            .map(Value::Number)
            .ok_or_else(|| DecodeError::at(path, format!("invalid number {n}"))),
        (Json::String(s), Type::Number) => Number::from_decimal(s)
            .map(Value::Number)
            .ok_or_else(|| DecodeError::at(path, format!("invalid number {s:?}"))),
        (Json::String(s), Type::String) => Ok(Value::String(s.clone())),
        (Json::Array(items), Type::List(element) | Type::Set(element)) => {
            let items = items
                .iter()
                .enumerate()
                .map(|(i, item)| nested(item, element, format!("[{i}]"), path))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(if matches!(ty, Type::List(_)) {
                Value::List(items)
            } else {
                Value::Set(items)
            })
        }
        (Json::Array(items), Type::Tuple(elements)) if items.len() == elements.len() => items
            .iter()
            .zip(elements)
            .enumerate()
            .map(|(i, (item, t))| nested(item, t, format!("[{i}]"), path))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Tuple),
        (Json::Object(entries), Type::Map(element)) => entries
            .iter()
            .map(|(k, v)| Ok((k.clone(), nested(v, element, format!("[{k:?}]"), path)?)))
            .collect::<Result<_, DecodeError>>()
            .map(Value::Map),
        (Json::Object(entries), Type::Object(attributes)) => {
            if let Some(extra) = entries.keys().find(|k| !attributes.contains_key(*k)) {
                return Err(DecodeError::at(
                    path,
                    format!("unsupported attribute {extra:?}"),
                ));
            }
            attributes
                .iter()
                .map(|(name, t)| {
                    let value = match entries.get(name) {
                        Some(v) => nested(v, t, format!(".{name}"), path)?,
                        None => Value::Null,
                    };
                    Ok((name.clone(), value))
                })
                .collect::<Result<_, DecodeError>>()
                .map(Value::Object)
        }
        (Json::Object(entries), Type::Dynamic) => {
            let (Some(type_json), Some(value)) = (entries.get("type"), entries.get("value")) else {
                return Err(DecodeError::at(
                    path,
                    "dynamic value needs \"type\" and \"value\"".into(),
                ));
            };
            let concrete = Type::from_json(type_json).map_err(|m| DecodeError::at(path, m))?;
            let inner = from_json(value, &concrete, path, depth + 1)?;
            Ok(Value::Typed(Box::new((concrete, inner))))
        }
        (json, ty) => Err(DecodeError::at(
            path,
            format!("{json} is not valid for type {}", ty.to_json()),
        )),
    }
}

/// Encodes a wholly known value of type `ty` as JSON bytes.
pub fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>, EncodeError> {
    Ok(to_json(value, ty)?.to_string().into_bytes())
}

/// Converts a wholly known value of type `ty` to JSON.
pub fn to_json(value: &Value, ty: &Type) -> Result<Json, EncodeError> {
    match (value, ty) {
        (Value::Null, _) => Ok(Json::Null),
        (Value::Unknown(_), _) => Err(EncodeError("unknown values have no JSON form".into())),
        (Value::Typed(typed), Type::Dynamic) => {
            let (concrete, inner) = typed.as_ref();
            let mut object = Map::new();
            object.insert("value".into(), to_json(inner, concrete)?);
            object.insert("type".into(), concrete.to_json());
            Ok(Json::Object(object))
        }
        (Value::Bool(b), Type::Bool) => Ok(Json::Bool(*b)),
        (Value::Number(n), Type::Number) => serde_json::from_str(&n.to_string())
            .map_err(|e| EncodeError(format!("number {n} has no JSON form: {e}"))),
        (Value::String(s), Type::String) => Ok(Json::String(s.clone())),
        (Value::List(items), Type::List(element)) | (Value::Set(items), Type::Set(element)) => {
            items
                .iter()
                .map(|item| to_json(item, element))
                .collect::<Result<_, _>>()
                .map(Json::Array)
        }
        (Value::Tuple(items), Type::Tuple(elements)) if items.len() == elements.len() => items
            .iter()
            .zip(elements)
            .map(|(item, t)| to_json(item, t))
            .collect::<Result<_, _>>()
            .map(Json::Array),
        (Value::Map(entries), Type::Map(element)) => entries
            .iter()
            .map(|(k, v)| Ok((k.clone(), to_json(v, element)?)))
            .collect::<Result<_, EncodeError>>()
            .map(Json::Object),
        (Value::Object(values), Type::Object(attributes)) => {
            if let Some(extra) = values.keys().find(|k| !attributes.contains_key(*k)) {
                return Err(EncodeError(format!(
                    "attribute {extra:?} is not in the type"
                )));
            }
            attributes
                .iter()
                .map(|(name, t)| {
                    let value = values
                        .get(name)
                        .ok_or_else(|| EncodeError(format!("attribute {name:?} is missing")))?;
                    Ok((name.clone(), to_json(value, t)?))
                })
                .collect::<Result<_, EncodeError>>()
                .map(Json::Object)
        }
        (value, ty) => Err(EncodeError(format!(
            "{value:?} does not conform to type {}",
            ty.to_json()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_json_round_trips_with_big_numbers() {
        let ty = Type::object([
            ("n", Type::Number),
            ("big", Type::Number),
            ("xs", Type::set(Type::String)),
            ("d", Type::Dynamic),
        ]);
        let raw = br#"{"n":1.5,"big":123456789012345678901234567890,"xs":["a"],"d":{"value":["x"],"type":["list","string"]}}"#;
        let value = decode(raw, &ty).unwrap();
        assert_eq!(
            value.get_attr("big").unwrap().as_number(),
            Some(&Number::Decimal("123456789012345678901234567890".into()))
        );
        assert_eq!(decode(&encode(&value, &ty).unwrap(), &ty).unwrap(), value);
    }

    #[test]
    fn missing_attributes_are_null_and_extra_ones_fail() {
        let ty = Type::object([("a", Type::String), ("b", Type::Bool)]);
        assert!(decode(br#"{"a":"x"}"#, &ty)
            .unwrap()
            .get_attr("b")
            .unwrap()
            .is_null());
        let err = decode(br#"{"a":"x","zz":1}"#, &ty).unwrap_err();
        assert!(err.message.contains("zz"));
        let err = decode(br#"{"a":1}"#, &ty).unwrap_err();
        assert_eq!(err.path, ".a");
    }

    #[test]
    fn unknown_cannot_be_encoded() {
        assert!(encode(&Value::unknown(), &Type::String).is_err());
    }
}
