//! Typed models: Rust structs whose fields are the attributes of a schema or
//! the attributes of an object value, each named once.
//!
//! [`model!`](crate::model!) declares a struct, the schema attribute of each
//! field (mode, description, validators...) and the conversions from and to
//! [`Value`]; [`object!`](crate::object) declares an object-typed value (e.g.
//! the element of a list-of-object attribute) with its conversions only. A
//! field marked `[embed]` takes the attributes of another model, flattened
//! into this one (shared inputs). Each struct also gets one associated
//! constant per attribute holding its name (`Config::units == "units"`), for
//! diagnostics that point at an attribute.
//!
//! Null and unknown are typed as in terraform-plugin-framework: [`Maybe`]
//! keeps them apart where a value may still be unknown (validation at plan
//! time); `Option<T>` reads null (and unknown) as `None`, and `String`,
//! `bool`, `Vec<T>` read them as empty, for known configurations.

use std::collections::BTreeMap;

use super::schema::Attribute;
use super::value::{Number, Type, Value};

/// A Rust type that stands for a Terraform type.
pub trait Field: Sized + Clone {
    /// The Terraform type.
    fn ty() -> Type;
    /// Reads a value of type [`Field::ty`]; null and unknown read as the
    /// empty value (`""`, `false`, `[]`, `None`).
    fn read(value: &Value) -> Self;
    /// Reads a known, non-null value; `None` when it does not hold one of
    /// this type (the value of `Option<Self>`).
    fn read_some(value: &Value) -> Option<Self> {
        (!value.is_null() && !value.is_unknown()).then(|| Self::read(value))
    }
    /// The value, moving the field's strings into it.
    fn into_value(self) -> Value;
    /// The value of a copy (for a field still needed afterwards).
    fn value(&self) -> Value {
        self.clone().into_value()
    }
}

/// An object type whose attributes are the fields of a struct (declared by
/// [`object!`](crate::object) or [`model!`](crate::model!)).
pub trait Object: Sized {
    /// Adds each field's attribute name and Terraform type to `types`.
    fn attribute_types(types: &mut BTreeMap<String, Type>);
    /// Reads the attributes of `object`.
    fn read_attributes(object: &Value) -> Self;
    /// Sets the attributes on `object`, moving the fields into it.
    fn write_attributes(self, object: &mut Value);
}

/// A set of schema attributes (declared by [`model!`](crate::model!)).
pub trait Model: Object {
    /// The attributes, in declaration order.
    fn attributes() -> Vec<Attribute>;
}

/// The attributes of an input model followed by those of an output model:
/// a data source's schema attributes.
pub fn attributes<In: Model, Out: Model>() -> Vec<Attribute> {
    let mut all = In::attributes();
    all.extend(Out::attributes());
    all
}

/// One attribute of `object`, read as [`Field::read`] does: for a check
/// that needs one field, without copying the others out of a large value.
pub fn attribute<T: Field>(object: &Value, name: &str) -> T {
    T::read(object.get_attr(name).unwrap_or(&Value::Null))
}

/// An object holding the attributes of `model`: what a data source read
/// returns (its computed attributes).
pub fn computed<M: Object>(model: M) -> Value {
    let mut object = Value::object([]);
    model.write_attributes(&mut object);
    object
}

/// `object` with the attributes of `model` set: a state built from a
/// configuration and the computed attributes.
pub fn with<M: Object>(object: &Value, model: M) -> Value {
    let mut state = object.clone();
    model.write_attributes(&mut state);
    state
}

/// A value that may be null or unknown, as a planned configuration holds it.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Maybe<T> {
    /// Null.
    #[default]
    Null,
    /// Not known until apply.
    Unknown,
    /// Known; a collection or object may still hold unknowns inside, read
    /// as their empty value unless the inner type is a [`Maybe`] too.
    Known(T),
}

impl<T> Maybe<T> {
    /// The value when known; `None` for null and unknown alike.
    pub fn known(&self) -> Option<&T> {
        match self {
            Maybe::Known(value) => Some(value),
            _ => None,
        }
    }

    /// True when null.
    pub fn is_null(&self) -> bool {
        matches!(self, Maybe::Null)
    }

    /// True when unknown.
    pub fn is_unknown(&self) -> bool {
        matches!(self, Maybe::Unknown)
    }
}

impl<T> From<Option<T>> for Maybe<T> {
    fn from(value: Option<T>) -> Self {
        value.map_or(Maybe::Null, Maybe::Known)
    }
}

impl<T: Field> Field for Maybe<T> {
    fn ty() -> Type {
        T::ty()
    }

    fn read(value: &Value) -> Self {
        match value {
            Value::Null => Maybe::Null,
            Value::Unknown(_) => Maybe::Unknown,
            known => Maybe::Known(T::read(known)),
        }
    }

    fn into_value(self) -> Value {
        match self {
            Maybe::Null => Value::null(),
            Maybe::Unknown => Value::unknown(),
            Maybe::Known(value) => value.into_value(),
        }
    }
}

impl<T: Field> Field for Option<T> {
    fn ty() -> Type {
        T::ty()
    }

    fn read(value: &Value) -> Self {
        T::read_some(value)
    }

    fn into_value(self) -> Value {
        self.map_or(Value::Null, Field::into_value)
    }
}

impl Field for String {
    fn ty() -> Type {
        Type::String
    }

    fn read(value: &Value) -> Self {
        value.as_str().unwrap_or_default().to_owned()
    }

    fn into_value(self) -> Value {
        Value::String(self)
    }
}

impl Field for bool {
    fn ty() -> Type {
        Type::Bool
    }

    fn read(value: &Value) -> Self {
        value.as_bool().unwrap_or(false)
    }

    fn into_value(self) -> Value {
        Value::bool(self)
    }
}

/// A whole number; a number that is no `i64` reads as `None` in an `Option`.
impl Field for i64 {
    fn ty() -> Type {
        Type::Number
    }

    fn read(value: &Value) -> Self {
        Self::read_some(value).unwrap_or_default()
    }

    fn read_some(value: &Value) -> Option<Self> {
        value.as_number().and_then(Number::as_i64)
    }

    fn into_value(self) -> Value {
        Value::int(self)
    }
}

impl<T: Field> Field for Vec<T> {
    fn ty() -> Type {
        Type::list(T::ty())
    }

    fn read(value: &Value) -> Self {
        value
            .elements()
            .unwrap_or_default()
            .iter()
            .map(T::read)
            .collect()
    }

    fn into_value(self) -> Value {
        Value::list(self.into_iter().map(Field::into_value).collect())
    }
}

/// A set, its elements in the order they were read or given (equality
/// ignores the order, as for [`Value::Set`]).
#[derive(Debug, Clone, Default)]
pub struct Set<T>(pub Vec<T>);

impl<T: PartialEq> PartialEq for Set<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().all(|x| other.0.contains(x))
            && other.0.iter().all(|y| self.0.contains(y))
    }
}

impl<T: Field> Field for Set<T> {
    fn ty() -> Type {
        Type::set(T::ty())
    }

    fn read(value: &Value) -> Self {
        Set(Vec::read(value))
    }

    fn into_value(self) -> Value {
        Value::Set(self.0.into_iter().map(Field::into_value).collect())
    }
}

impl<T: Field> Field for BTreeMap<String, T> {
    fn ty() -> Type {
        Type::map(T::ty())
    }

    fn read(value: &Value) -> Self {
        value
            .entries()
            .into_iter()
            .flatten()
            .map(|(key, item)| (key.clone(), T::read(item)))
            .collect()
    }

    fn into_value(self) -> Value {
        Value::map(self.into_iter().map(|(key, item)| (key, item.into_value())))
    }
}

/// Declares an object-typed value: a struct and its conversions. Fields are
/// `name: Type`, or `name: Model [embed]` to flatten another object's
/// attributes into this one.
#[macro_export]
macro_rules! object {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $fty:ty $([ $($spec:tt)* ])? ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq)]
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $fty, )*
        }

        #[allow(non_upper_case_globals)]
        impl $name {
            $( $crate::__model_field!(name [$($($spec)*)?] $field); )*
        }

        impl $crate::model::Object for $name {
            fn attribute_types(
                types: &mut ::std::collections::BTreeMap<String, $crate::value::Type>,
            ) {
                $( $crate::__model_field!(types [$($($spec)*)?] $field $fty, types); )*
            }

            fn read_attributes(object: &$crate::value::Value) -> Self {
                Self {
                    $( $field: $crate::__model_field!(read [$($($spec)*)?] $field $fty, object), )*
                }
            }

            fn write_attributes(self, object: &mut $crate::value::Value) {
                $( $crate::__model_field!(write [$($($spec)*)?] $field, self.$field, object); )*
            }
        }

        impl $crate::model::Field for $name {
            fn ty() -> $crate::value::Type {
                let mut types = ::std::collections::BTreeMap::new();
                <Self as $crate::model::Object>::attribute_types(&mut types);
                $crate::value::Type::Object(types)
            }

            fn read(value: &$crate::value::Value) -> Self {
                <Self as $crate::model::Object>::read_attributes(value)
            }

            fn into_value(self) -> $crate::value::Value {
                let mut object = $crate::value::Value::object([]);
                $crate::model::Object::write_attributes(self, &mut object);
                object
            }
        }
    };
}

/// Declares a model: a struct whose fields are schema attributes, each with
/// its schema declaration in brackets: the [`Attribute`] constructor without
/// name and type (`[optional("Description.")]`, `[with_default(value,
/// "Description.")]`...) followed by setters (`.sensitive()`,
/// `.validator(NotBlank)`), or `[embed]` to include another model's
/// attributes at that place.
#[macro_export]
macro_rules! model {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $fty:ty [ $($spec:tt)* ] ),* $(,)?
        }
    ) => {
        $crate::object! {
            $(#[$meta])*
            $vis struct $name {
                $( $(#[$fmeta])* $fvis $field: $fty [$($spec)*] ),*
            }
        }

        impl $crate::model::Model for $name {
            #[allow(clippy::vec_init_then_push)]
            fn attributes() -> Vec<$crate::schema::Attribute> {
                let mut attributes = Vec::new();
                $( $crate::__model_field!(attribute [$($spec)*] $field $fty, attributes); )*
                attributes
            }
        }
    };
}

/// One field's part of [`object!`](crate::object) and
/// [`model!`](crate::model!); not for direct use.
#[doc(hidden)]
#[macro_export]
macro_rules! __model_field {
    (name [embed] $field:ident) => {};
    (name [$($spec:tt)*] $field:ident) => {
        #[doc = concat!("The attribute name `", stringify!($field), "`.")]
        pub const $field: &'static str = stringify!($field);
    };
    (types [embed] $field:ident $fty:ty, $types:ident) => {
        <$fty as $crate::model::Object>::attribute_types($types)
    };
    (types [$($spec:tt)*] $field:ident $fty:ty, $types:ident) => {
        $types.insert(
            stringify!($field).to_owned(),
            <$fty as $crate::model::Field>::ty(),
        )
    };
    (read [embed] $field:ident $fty:ty, $object:ident) => {
        <$fty as $crate::model::Object>::read_attributes($object)
    };
    (read [$($spec:tt)*] $field:ident $fty:ty, $object:ident) => {
        <$fty as $crate::model::Field>::read(
            $object
                .get_attr(stringify!($field))
                .unwrap_or(&$crate::value::Value::Null),
        )
    };
    (write [embed] $field:ident, $value:expr, $object:ident) => {
        $crate::model::Object::write_attributes($value, $object)
    };
    (write [$($spec:tt)*] $field:ident, $value:expr, $object:ident) => {
        $object.set_attr(
            stringify!($field),
            $crate::model::Field::into_value($value),
        )
    };
    (attribute [embed] $field:ident $fty:ty, $attributes:ident) => {
        $attributes.extend(<$fty as $crate::model::Model>::attributes())
    };
    (
        attribute [$mode:ident ($($arg:expr),* $(,)?) $(. $setter:ident ($($sarg:expr),* $(,)?))*]
        $field:ident $fty:ty, $attributes:ident
    ) => {
        $attributes.push(
            $crate::schema::Attribute::$mode(
                stringify!($field),
                <$fty as $crate::model::Field>::ty(),
                $($arg),*
            ) $(.$setter($($sarg),*))*,
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Mode;

    crate::object! {
        /// A list element.
        struct Pair {
            key: String,
            note: Option<String>,
        }
    }

    crate::model! {
        /// Shared attributes.
        struct Shared {
            flag: bool [optional("A flag.")],
        }
    }

    crate::model! {
        /// A model with every kind of field.
        struct Config {
            name: Maybe<String> [required("The name.").sensitive()],
            shared: Shared [embed],
            items: Vec<Pair> [computed("Pairs.")],
            tags: Set<String> [optional("Tags.")],
            count: Option<i64> [computed("A count.")],
        }
    }

    fn object(attributes: &[(&str, Value)]) -> Value {
        Value::object(attributes.iter().map(|(k, v)| ((*k).to_owned(), v.clone())))
    }

    #[test]
    fn attributes_come_in_declaration_order_with_embedded_ones_in_place() {
        let attributes = Config::attributes();
        let names: Vec<&str> = attributes.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["name", "flag", "items", "tags", "count"]);
        assert_eq!(attributes[0].mode, Mode::Required);
        assert!(attributes[0].sensitive);
        assert_eq!(attributes[1].mode, Mode::Optional);
        assert_eq!(
            attributes[2].ty,
            Type::list(Type::object([
                ("key", Type::String),
                ("note", Type::String)
            ]))
        );
        assert_eq!(attributes[3].ty, Type::set(Type::String));
        assert_eq!(attributes[4].ty, Type::Number);
        assert_eq!(
            [
                Config::name,
                Config::items,
                Config::tags,
                Config::count,
                Shared::flag,
                Pair::key,
                Pair::note
            ],
            ["name", "items", "tags", "count", "flag", "key", "note"]
        );
        assert_eq!(
            Config::ty(),
            Type::Object(
                attributes
                    .iter()
                    .map(|a| (a.name.clone(), a.ty.clone()))
                    .collect()
            )
        );
    }

    #[test]
    fn null_and_unknown_are_told_apart_only_by_maybe() {
        let unknown = Config::read_attributes(&object(&[
            ("name", Value::unknown()),
            ("flag", Value::unknown()),
            ("count", Value::unknown()),
        ]));
        assert_eq!(unknown.name, Maybe::Unknown);
        assert!(!unknown.shared.flag);
        assert_eq!(unknown.count, None);
        let null = Config::read_attributes(&object(&[("name", Value::null())]));
        assert_eq!(null.name, Maybe::Null);
        let known = Config::read_attributes(&object(&[
            ("name", Value::string("n")),
            ("count", Value::Number(Number::from_f64(1.5))),
        ]));
        assert_eq!(known.name.known().map(String::as_str), Some("n"));
        assert_eq!(known.count, None, "1.5 is no whole number");
    }

    #[test]
    fn values_round_trip() {
        let config = Config {
            name: Maybe::Known("n".to_owned()),
            shared: Shared { flag: true },
            items: vec![Pair {
                key: "k".to_owned(),
                note: None,
            }],
            tags: Set(vec!["b".to_owned(), "a".to_owned()]),
            count: Some(7),
        };
        let value = config.value();
        assert_eq!(value.get_attr("flag"), Some(&Value::bool(true)));
        assert_eq!(
            value.get_attr("items"),
            Some(&Value::list(vec![object(&[
                ("key", Value::string("k")),
                ("note", Value::null())
            ])]))
        );
        assert_eq!(Config::read(&value), config);
        assert_eq!(Set(vec![1_i64, 2]), Set(vec![2, 1]));
        assert_ne!(Set(vec![1_i64, 2]), Set(vec![2, 3]));
        let state = with(&object(&[("other", Value::bool(false))]), config);
        assert_eq!(state.get_attr("other"), Some(&Value::bool(false)));
        assert_eq!(state.get_attr("count"), Some(&Value::int(7)));
    }
}
