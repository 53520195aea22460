//! cty types and their JSON form (used in schemas and for dynamic values).

use std::collections::BTreeMap;

use serde_json::Value as Json;

/// A Terraform type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// `bool`
    Bool,
    /// `number`
    Number,
    /// `string`
    String,
    /// `list(T)`
    List(Box<Type>),
    /// `set(T)`
    Set(Box<Type>),
    /// `map(T)`
    Map(Box<Type>),
    /// `object({...})`
    Object(BTreeMap<String, Type>),
    /// `tuple([...])`
    Tuple(Vec<Type>),
    /// `any`: the concrete type travels with the value.
    Dynamic,
}

impl Type {
    /// The type `list(element)`.
    pub fn list(element: Type) -> Type {
        Type::List(Box::new(element))
    }

    /// The type `set(element)`.
    pub fn set(element: Type) -> Type {
        Type::Set(Box::new(element))
    }

    /// The type `map(element)`.
    pub fn map(element: Type) -> Type {
        Type::Map(Box::new(element))
    }

    /// The type `object({...})` with these attribute names and types.
    pub fn object<'a>(attributes: impl IntoIterator<Item = (&'a str, Type)>) -> Type {
        Type::Object(
            attributes
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        )
    }

    /// The JSON form, e.g. `["list","string"]`.
    pub fn to_json(&self) -> Json {
        match self {
            Type::Bool => Json::from("bool"),
            Type::Number => Json::from("number"),
            Type::String => Json::from("string"),
            Type::Dynamic => Json::from("dynamic"),
            Type::List(t) => Json::Array(vec!["list".into(), t.to_json()]),
            Type::Set(t) => Json::Array(vec!["set".into(), t.to_json()]),
            Type::Map(t) => Json::Array(vec!["map".into(), t.to_json()]),
            Type::Object(attributes) => Json::Array(vec![
                "object".into(),
                Json::Object(
                    attributes
                        .iter()
                        .map(|(k, v)| (k.clone(), v.to_json()))
                        .collect(),
                ),
            ]),
            Type::Tuple(elements) => Json::Array(vec![
                "tuple".into(),
                Json::Array(elements.iter().map(Type::to_json).collect()),
            ]),
        }
    }

    /// The JSON form as bytes, as schemas carry it.
    pub fn to_json_bytes(&self) -> Vec<u8> {
        self.to_json().to_string().into_bytes()
    }

    /// Parses the JSON form. Optional-attribute annotations of object types
    /// (a third array element) are accepted and ignored.
    pub fn from_json(json: &Json) -> Result<Type, String> {
        Self::from_json_at(json, 0)
    }

    fn from_json_at(json: &Json, depth: usize) -> Result<Type, String> {
        if depth > super::MAX_DEPTH {
            return Err("type nested too deeply".into());
        }
        let inner = |j: &Json| Self::from_json_at(j, depth + 1);
        match json {
            Json::String(name) => match name.as_str() {
                "bool" => Ok(Type::Bool),
                "number" => Ok(Type::Number),
                "string" => Ok(Type::String),
                "dynamic" => Ok(Type::Dynamic),
                other => Err(format!("unknown primitive type {other:?}")),
            },
            Json::Array(parts) => match (parts.first().and_then(Json::as_str), parts.get(1)) {
                (Some("list"), Some(t)) if parts.len() == 2 => Ok(Type::list(inner(t)?)),
                (Some("set"), Some(t)) if parts.len() == 2 => Ok(Type::set(inner(t)?)),
                (Some("map"), Some(t)) if parts.len() == 2 => Ok(Type::map(inner(t)?)),
                (Some("object"), Some(Json::Object(attrs))) if parts.len() <= 3 => attrs
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), inner(v)?)))
                    .collect::<Result<_, String>>()
                    .map(Type::Object),
                (Some("tuple"), Some(Json::Array(elems))) if parts.len() == 2 => elems
                    .iter()
                    .map(inner)
                    .collect::<Result<_, _>>()
                    .map(Type::Tuple),
                _ => Err(format!("invalid type {json}")),
            },
            other => Err(format!("invalid type {other}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_form_matches_cty() {
        let ty = Type::object([
            ("names", Type::list(Type::String)),
            ("tags", Type::map(Type::Bool)),
            ("pair", Type::Tuple(vec![Type::Number, Type::Dynamic])),
            ("ids", Type::set(Type::Number)),
        ]);
        assert_eq!(
            String::from_utf8(ty.to_json_bytes()).unwrap(),
            r#"["object",{"ids":["set","number"],"names":["list","string"],"pair":["tuple",["number","dynamic"]],"tags":["map","bool"]}]"#
        );
        assert_eq!(Type::from_json(&ty.to_json()).unwrap(), ty);
    }

    #[test]
    fn accepts_optional_attribute_annotation() {
        let json: Json = serde_json::from_str(r#"["object",{"a":"string"},["a"]]"#).unwrap();
        assert_eq!(
            Type::from_json(&json).unwrap(),
            Type::object([("a", Type::String)])
        );
    }

    #[test]
    fn rejects_malformed_types() {
        for bad in [
            r#""text""#,
            r#"["list"]"#,
            r#"["list","string","x"]"#,
            "3",
            r#"["object",[]]"#,
        ] {
            let json: Json = serde_json::from_str(bad).unwrap();
            assert!(Type::from_json(&json).is_err(), "{bad}");
        }
    }
}
