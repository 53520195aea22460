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
//! time); `Option<T>` reads null as `None`, and `String`, `bool`, `Vec<T>`
//! read it as empty. Reading is decoding, as the framework's `Get` is: a
//! value of another type than the field's, or an unknown where the field
//! cannot hold one, is an error diagnostic on its attribute path
//! ([`Field::get`]); checks of a planned configuration, which skip what is
//! not known yet, read unknowns as empty instead ([`Field::get_planned`]).

use std::collections::BTreeMap;

use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::docs::type_label;
use super::schema::Attribute;
use super::value::{Type, Value};

/// What a read does with an unknown value in a field that cannot hold one
/// (any but [`Maybe`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknowns {
    /// An error diagnostic: the value must be wholly known (a data source's
    /// read, an apply, a stored state).
    Refused,
    /// The empty value: a check of a planned configuration, which skips
    /// what is not known yet.
    Empty,
}

/// A Rust type that stands for a Terraform type.
pub trait Field: Sized + Clone + Default {
    /// The Terraform type.
    fn ty() -> Type;

    /// Reads a known, non-null value found at `at`: `None` after an error
    /// diagnostic when it has another type (or, for `i64`, when the number
    /// is not whole).
    fn decode_known(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self>;

    /// Reads a value: null reads as `None`; an unknown as `None`, after an
    /// error diagnostic when `unknowns` refuses it.
    fn decode_some(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        match value {
            Value::Null => None,
            Value::Unknown(_) => {
                if unknowns == Unknowns::Refused {
                    diags.push(unknown(at));
                }
                None
            }
            known => Self::decode_known(known, at, unknowns, diags),
        }
    }

    /// Reads a value as [`Field::decode_some`] does, with the empty value
    /// (`""`, `false`, `[]`, `None`) for `None`.
    fn decode(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Self {
        Self::decode_some(value, at, unknowns, diags).unwrap_or_default()
    }

    /// Reads a value that must be wholly known (a data source's read, an
    /// apply, a stored state): `None` after error diagnostics on the paths
    /// of the values of another type and of the unknowns, as the
    /// framework's `Get` does; the caller stops.
    fn get(value: &Value, diags: &mut Diagnostics) -> Option<Self> {
        decode_checked(value, Unknowns::Refused, diags)
    }

    /// Reads a planned value, which may hold unknowns: they read as the
    /// empty value (a [`Maybe`] keeps them); values of another type are
    /// errors as for [`Field::get`].
    fn get_planned(value: &Value, diags: &mut Diagnostics) -> Option<Self> {
        decode_checked(value, Unknowns::Empty, diags)
    }

    /// The value, moving the field's strings into it.
    fn into_value(self) -> Value;
    /// The value of a copy (for a field still needed afterwards).
    fn value(&self) -> Value {
        self.clone().into_value()
    }
}

/// Reads `value` from the root; `None` when that added an error.
fn decode_checked<T: Field>(
    value: &Value,
    unknowns: Unknowns,
    diags: &mut Diagnostics,
) -> Option<T> {
    let mut found = Diagnostics::new();
    let read = T::decode(value, &AttributePath::root(), unknowns, &mut found);
    let failed = found.has_errors();
    diags.extend(found);
    (!failed).then_some(read)
}

/// The error on a value at `at` whose type is not `T`'s: a provider bug,
/// since Terraform sends values of the schema's types. Names the types,
/// never the value.
pub fn mistyped<T: Field>(value: &Value, at: &AttributePath, diags: &mut Diagnostics) -> Option<T> {
    let found = match value {
        Value::Null => "null",
        Value::Unknown(_) => "an unknown value",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::List(_) => "a list",
        Value::Set(_) => "a set",
        Value::Map(_) => "a map",
        Value::Object(_) => "an object",
        Value::Tuple(_) => "a tuple",
        Value::Typed(_) => "a dynamic value",
    };
    diags.push(
        Diagnostic::error(
            "Provider bug: value of the wrong type",
            format!(
                "The provider expected a value of type {} here and found {found}: nothing was done.",
                type_label(&T::ty())
            ),
        )
        .at(at.clone()),
    );
    None
}

/// The error on an unknown value at `at` in a field that cannot hold one.
fn unknown(at: &AttributePath) -> Diagnostic {
    Diagnostic::error(
        "Unknown value where a known one is needed",
        "This value is not known yet, and the provider reads it only once it is known: nothing was done.",
    )
    .at(at.clone())
}

/// An object type whose attributes are the fields of a struct (declared by
/// [`object!`](crate::object) or [`model!`](crate::model!)).
pub trait Object: Sized {
    /// Adds each field's attribute name and Terraform type to `types`.
    fn attribute_types(types: &mut BTreeMap<String, Type>);
    /// Reads the attributes of `object` (at `at`), as
    /// [`Field::decode`] does; a missing attribute reads as null.
    fn decode_attributes(
        object: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Self;
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

/// One attribute of a planned `object`, read as [`Field::get_planned`]
/// does (on the attribute's path): for a check that needs one field,
/// without copying the others out of a large value.
pub fn attribute<T: Field>(object: &Value, name: &str, diags: &mut Diagnostics) -> T {
    let value = object.get_attr(name).unwrap_or(&Value::Null);
    T::decode(
        value,
        &AttributePath::attribute(name),
        Unknowns::Empty,
        diags,
    )
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
    /// as the read's [`Unknowns`] says unless the inner type is a [`Maybe`]
    /// too.
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

    fn decode_known(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        Some(Maybe::Known(T::decode(value, at, unknowns, diags)))
    }

    fn decode(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Self {
        match value {
            Value::Null => Maybe::Null,
            Value::Unknown(_) => Maybe::Unknown,
            known => Maybe::Known(T::decode(known, at, unknowns, diags)),
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

    fn decode_known(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        T::decode_known(value, at, unknowns, diags).map(Some)
    }

    fn decode(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Self {
        T::decode_some(value, at, unknowns, diags)
    }

    fn into_value(self) -> Value {
        self.map_or(Value::Null, Field::into_value)
    }
}

impl Field for String {
    fn ty() -> Type {
        Type::String
    }

    fn decode_known(
        value: &Value,
        at: &AttributePath,
        _: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        match value {
            Value::String(text) => Some(text.clone()),
            other => mistyped(other, at, diags),
        }
    }

    fn into_value(self) -> Value {
        Value::String(self)
    }
}

impl Field for bool {
    fn ty() -> Type {
        Type::Bool
    }

    fn decode_known(
        value: &Value,
        at: &AttributePath,
        _: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        match value {
            Value::Bool(flag) => Some(*flag),
            other => mistyped(other, at, diags),
        }
    }

    fn into_value(self) -> Value {
        Value::bool(self)
    }
}

/// A whole number; a number that is no `i64` reads as `None` in an `Option`
/// (without a diagnostic: a validator such as `WholeNumber` or the caller
/// says what is wrong with it).
impl Field for i64 {
    fn ty() -> Type {
        Type::Number
    }

    fn decode_known(
        value: &Value,
        at: &AttributePath,
        _: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        match value {
            Value::Number(number) => number.as_i64(),
            other => mistyped(other, at, diags),
        }
    }

    fn into_value(self) -> Value {
        Value::int(self)
    }
}

impl<T: Field> Field for Vec<T> {
    fn ty() -> Type {
        Type::list(T::ty())
    }

    fn decode_known(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        let Some(items) = value.elements() else {
            return mistyped(value, at, diags);
        };
        let read = |(index, item)| T::decode(item, &at.clone().index(index), unknowns, diags);
        Some(items.iter().enumerate().map(read).collect())
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

    /// An element's diagnostics are on the set's path: a set's elements
    /// have no index.
    fn decode_known(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        let Some(items) = value.elements() else {
            return mistyped(value, at, diags);
        };
        let read = |item| T::decode(item, at, unknowns, diags);
        Some(Set(items.iter().map(read).collect()))
    }

    fn into_value(self) -> Value {
        Value::Set(self.0.into_iter().map(Field::into_value).collect())
    }
}

impl<T: Field> Field for BTreeMap<String, T> {
    fn ty() -> Type {
        Type::map(T::ty())
    }

    fn decode_known(
        value: &Value,
        at: &AttributePath,
        unknowns: Unknowns,
        diags: &mut Diagnostics,
    ) -> Option<Self> {
        let Value::Map(entries) = value else {
            return mistyped(value, at, diags);
        };
        let read = |(key, item): (&String, &Value)| {
            let item = T::decode(item, &at.clone().key(key), unknowns, diags);
            (key.clone(), item)
        };
        Some(entries.iter().map(read).collect())
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

            fn decode_attributes(
                object: &$crate::value::Value,
                at: &$crate::diagnostics::AttributePath,
                unknowns: $crate::model::Unknowns,
                diags: &mut $crate::diagnostics::Diagnostics,
            ) -> Self {
                Self {
                    $( $field: $crate::__model_field!(
                        read [$($($spec)*)?] $field $fty, object, at, unknowns, diags
                    ), )*
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

            fn decode_known(
                value: &$crate::value::Value,
                at: &$crate::diagnostics::AttributePath,
                unknowns: $crate::model::Unknowns,
                diags: &mut $crate::diagnostics::Diagnostics,
            ) -> Option<Self> {
                match value {
                    $crate::value::Value::Object(_) => Some(
                        <Self as $crate::model::Object>::decode_attributes(value, at, unknowns, diags),
                    ),
                    other => $crate::model::mistyped(other, at, diags),
                }
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
    (read [embed] $field:ident $fty:ty, $object:ident, $at:ident, $unknowns:ident, $diags:ident) => {
        <$fty as $crate::model::Object>::decode_attributes($object, $at, $unknowns, $diags)
    };
    (read [$($spec:tt)*] $field:ident $fty:ty, $object:ident, $at:ident, $unknowns:ident, $diags:ident) => {
        <$fty as $crate::model::Field>::decode(
            $object
                .get_attr(stringify!($field))
                .unwrap_or(&$crate::value::Value::Null),
            &$at.clone().attr(stringify!($field)),
            $unknowns,
            $diags,
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
    use crate::value::Number;

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

    /// Reads `value` as [`Field::get`] does, with the diagnostics.
    fn get(value: &Value) -> (Option<Config>, Diagnostics) {
        let mut diags = Diagnostics::new();
        (Config::get(value, &mut diags), diags)
    }

    /// The paths and summaries of `diags`.
    fn errors(diags: &Diagnostics) -> Vec<(AttributePath, &str)> {
        diags
            .iter()
            .map(|d| (d.path.clone().unwrap(), d.summary.as_str()))
            .collect()
    }

    #[test]
    fn null_and_unknown_are_told_apart_only_by_maybe() {
        let mut diags = Diagnostics::new();
        let planned = object(&[
            ("name", Value::unknown()),
            ("flag", Value::unknown()),
            ("count", Value::unknown()),
        ]);
        let unknown = Config::get_planned(&planned, &mut diags).unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(unknown.name, Maybe::Unknown);
        assert!(!unknown.shared.flag);
        assert_eq!(unknown.count, None);
        let (null, diags) = get(&object(&[("name", Value::null())]));
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(null.unwrap().name, Maybe::Null);
        let (known, diags) = get(&object(&[
            ("name", Value::string("n")),
            ("count", Value::Number(Number::from_f64(1.5))),
        ]));
        assert!(diags.is_empty(), "{diags:?}");
        let known = known.unwrap();
        assert_eq!(known.name.known().map(String::as_str), Some("n"));
        assert_eq!(known.count, None, "1.5 is no whole number");
        let mut diags = Diagnostics::new();
        let fraction: Maybe<i64> = attribute(
            &object(&[("r", Value::Number(Number::from_f64(1.5)))]),
            "r",
            &mut diags,
        );
        assert_eq!(
            fraction,
            Maybe::Known(0),
            "known, as the empty number: checks see it"
        );
        assert!(diags.is_empty(), "{diags:?}");
    }

    #[test]
    fn a_value_of_another_type_is_an_error_on_its_path() {
        let pair = |key: Value| object(&[("key", key), ("note", Value::null())]);
        let (read, diags) = get(&object(&[
            ("name", Value::bool(true)),
            ("flag", Value::string("yes")),
            (
                "items",
                Value::list(vec![pair(Value::string("k")), pair(Value::int(1))]),
            ),
            ("tags", Value::Set(vec![Value::list(vec![])])),
            ("count", Value::string("7")),
        ]));
        assert!(read.is_none());
        let wrong = "Provider bug: value of the wrong type";
        assert_eq!(
            errors(&diags),
            [
                (AttributePath::attribute("name"), wrong),
                (AttributePath::attribute("flag"), wrong),
                (
                    AttributePath::attribute("items").index(1).attr("key"),
                    wrong
                ),
                (AttributePath::attribute("tags"), wrong),
                (AttributePath::attribute("count"), wrong),
            ]
        );
        let detail = &diags.iter().next().unwrap().detail;
        assert!(
            detail.contains("type String") && detail.contains("a bool"),
            "{detail}"
        );
        let (read, diags) = get(&object(&[("items", Value::string("k"))]));
        assert!(read.is_none());
        assert_eq!(errors(&diags), [(AttributePath::attribute("items"), wrong)]);
        let (read, diags) = get(&Value::list(vec![]));
        assert!(read.is_none());
        assert_eq!(errors(&diags), [(AttributePath::root(), wrong)]);
    }

    #[test]
    fn an_unknown_is_an_error_where_the_field_cannot_hold_one() {
        let planned = object(&[
            ("name", Value::unknown()),
            ("flag", Value::unknown()),
            (
                "items",
                Value::list(vec![object(&[
                    ("key", Value::string("k")),
                    ("note", Value::unknown()),
                ])]),
            ),
            ("tags", Value::unknown()),
        ]);
        let (read, diags) = get(&planned);
        assert!(read.is_none());
        let unknown = "Unknown value where a known one is needed";
        assert_eq!(
            errors(&diags),
            [
                (AttributePath::attribute("flag"), unknown),
                (
                    AttributePath::attribute("items").index(0).attr("note"),
                    unknown
                ),
                (AttributePath::attribute("tags"), unknown),
            ],
            "`name` is a Maybe: it holds the unknown"
        );
        let mut diags = Diagnostics::new();
        let read = Config::get_planned(&planned, &mut diags).unwrap();
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(read.name, Maybe::Unknown);
        assert_eq!(read.items[0].note, None);
        let mut diags = Diagnostics::new();
        let flag: bool = attribute(&object(&[("flag", Value::int(1))]), "flag", &mut diags);
        assert!(!flag);
        assert_eq!(
            errors(&diags),
            [(
                AttributePath::attribute("flag"),
                "Provider bug: value of the wrong type"
            )]
        );
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
        assert_eq!(
            Config::get(&value, &mut Diagnostics::new()),
            Some(config.clone())
        );
        assert_eq!(Set(vec![1_i64, 2]), Set(vec![2, 1]));
        assert_ne!(Set(vec![1_i64, 2]), Set(vec![2, 3]));
        let state = with(&object(&[("other", Value::bool(false))]), config);
        assert_eq!(state.get_attr("other"), Some(&Value::bool(false)));
        assert_eq!(state.get_attr("count"), Some(&Value::int(7)));
    }
}
