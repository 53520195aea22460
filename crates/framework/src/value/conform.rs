//! Conversion of a value of one type to another, as Terraform converts an
//! argument to a parameter's type: tuples become lists or sets, objects
//! become objects or maps, numbers and bools become strings. Values whose
//! shape does not fit are an error naming the path.

use super::{Number, Type, Value};

/// Converts `value`, of type `actual`, to `target`. An object attribute the
/// target lacks is an error (nothing is dropped silently); one the value
/// lacks is null.
pub fn conform(value: &Value, actual: &Type, target: &Type) -> Result<Value, String> {
    conform_at(value, actual, target, &mut String::new())
}

fn conform_at(
    value: &Value,
    actual: &Type,
    target: &Type,
    path: &mut String,
) -> Result<Value, String> {
    if let Value::Typed(typed) = value {
        return conform_at(&typed.1, &typed.0, target, path);
    }
    if value.is_null() {
        return Ok(Value::Null);
    }
    if actual == target && !matches!(target, Type::Dynamic) {
        return Ok(value.clone());
    }
    let mismatch = |path: &str| {
        let at = if path.is_empty() {
            String::new()
        } else {
            format!(" at {path}")
        };
        Err(format!(
            "expected {}{at}, got {}",
            target.to_json(),
            actual.to_json()
        ))
    };
    let mut nested = |value: &Value, actual: &Type, target: &Type, step: String| {
        let len = path.len();
        path.push_str(&step);
        let result = conform_at(value, actual, target, path);
        path.truncate(len);
        result
    };
    match (target, actual, value) {
        (Type::Dynamic, _, _) => Ok(Value::Typed(Box::new((actual.clone(), value.clone())))),
        (Type::String, Type::Number, Value::Number(n)) => Ok(Value::string(n.to_string())),
        (Type::String, Type::Bool, Value::Bool(b)) => Ok(Value::string(b.to_string())),
        (Type::Number, Type::String, Value::String(s)) => match Number::from_decimal(s) {
            Some(n) => Ok(Value::Number(n)),
            None => mismatch(path),
        },
        (Type::List(element) | Type::Set(element), _, _) => {
            let items = value.elements().unwrap_or_default();
            let types: Vec<&Type> = match actual {
                Type::List(a) | Type::Set(a) => vec![a.as_ref(); items.len()],
                Type::Tuple(types) if types.len() == items.len() => types.iter().collect(),
                _ => return mismatch(path),
            };
            let converted = items
                .iter()
                .zip(types)
                .enumerate()
                .map(|(i, (item, ty))| nested(item, ty, element, format!("[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(match target {
                Type::List(_) => Value::List(converted),
                _ => Value::Set(converted),
            })
        }
        (Type::Map(element), Type::Map(_) | Type::Object(_), _) => {
            let entries = value.entries().cloned().unwrap_or_default();
            entries
                .iter()
                .map(|(key, item)| {
                    let ty = match actual {
                        Type::Map(a) => a.as_ref().clone(),
                        Type::Object(types) => types.get(key).cloned().unwrap_or(Type::Dynamic),
                        _ => Type::Dynamic,
                    };
                    Ok((
                        key.clone(),
                        nested(item, &ty, element, format!("[{key:?}]"))?,
                    ))
                })
                .collect::<Result<_, String>>()
                .map(Value::Map)
        }
        (Type::Object(targets), Type::Object(types), _) => {
            let entries = value.entries().cloned().unwrap_or_default();
            if let Some(extra) = types.keys().find(|k| !targets.contains_key(*k)) {
                let at = if path.is_empty() {
                    String::new()
                } else {
                    format!(" in {path}")
                };
                return Err(format!("unsupported attribute {extra:?}{at}"));
            }
            targets
                .iter()
                .map(|(name, target)| {
                    let converted = match (entries.get(name), types.get(name)) {
                        (Some(item), Some(ty)) => nested(item, ty, target, format!(".{name}"))?,
                        _ => Value::Null,
                    };
                    Ok((name.clone(), converted))
                })
                .collect::<Result<Vec<_>, String>>()
                .map(Value::object)
        }
        _ => mismatch(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_and_objects_take_the_target_shape() {
        let tuple = Type::Tuple(vec![Type::String, Type::Number]);
        let value = Value::Tuple(vec![Value::string("a"), Value::int(10)]);
        assert_eq!(
            conform(&value, &tuple, &Type::list(Type::String)).unwrap(),
            Value::list(vec![Value::string("a"), Value::string("10")])
        );
        let object = Type::object([("pods", tuple.clone())]);
        let target = Type::object([("pods", Type::list(Type::String)), ("other", Type::Bool)]);
        let converted = conform(
            &Value::object([("pods".to_owned(), value)]),
            &object,
            &target,
        )
        .unwrap();
        assert_eq!(converted.get_attr("other"), Some(&Value::Null));
    }

    #[test]
    fn what_does_not_fit_is_an_error_with_its_path() {
        let object = Type::object([("nope", Type::String)]);
        let error = conform(
            &Value::object([("nope".to_owned(), Value::string("x"))]),
            &object,
            &Type::object([("pods", Type::String)]),
        )
        .unwrap_err();
        assert!(error.contains("nope"), "{error}");
        let list = Type::list(Type::Bool);
        let error = conform(
            &Value::list(vec![Value::bool(true)]),
            &list,
            &Type::list(Type::Number),
        )
        .unwrap_err();
        assert!(error.contains("[0]"), "{error}");
    }
}
