//! Schemas of the provider, resources and data sources: attributes with their
//! types, modes, validators, defaults and plan modifiers.
//!
//! Only flat attributes exist here: Terraform 1.0.x crashes on nested
//! attribute types, so structured values are object- or list-of-object-typed
//! attributes instead.

use std::fmt;
use std::sync::Arc;

use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::value::{Number, Type, Value};

/// Whether the user sets an attribute, the provider does, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Must be set in configuration.
    Required,
    /// May be set in configuration; null otherwise.
    Optional,
    /// Set by the provider only.
    Computed,
    /// May be set in configuration; otherwise the provider sets it (often a default).
    OptionalComputed,
}

impl Mode {
    /// True when the configuration may carry a value.
    pub fn is_configurable(self) -> bool {
        !matches!(self, Mode::Computed)
    }

    /// True when the provider may choose the value.
    pub fn is_computed(self) -> bool {
        matches!(self, Mode::Computed | Mode::OptionalComputed)
    }
}

/// A check on one attribute's known, non-null configuration value.
pub trait Validator: Send + Sync {
    /// Human description, used in documentation (e.g. "one of `a`, `b`").
    fn description(&self) -> String;
    /// Adds a diagnostic at `path` when `value` is not acceptable.
    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics);
}

/// Accepts only strings from a fixed set.
#[derive(Debug, Clone)]
pub struct OneOf(pub &'static [&'static str]);

impl Validator for OneOf {
    fn description(&self) -> String {
        let names: Vec<String> = self.0.iter().map(|v| format!("`{v}`")).collect();
        format!("one of {}", names.join(", "))
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        let check = |s: &str, path: AttributePath, diags: &mut Diagnostics| {
            if !self.0.contains(&s) {
                diags.push(
                    Diagnostic::error(
                        "Invalid value",
                        // A value holding `@` may be a URL with a password:
                        // never quoted.
                        match s.contains('@') {
                            true => format!(
                                "The value is not valid here: expected {}.",
                                self.description()
                            ),
                            false => {
                                format!("{s:?} is not valid here: expected {}.", self.description())
                            }
                        },
                    )
                    .at(path),
                );
            }
        };
        if let Some(s) = value.as_str() {
            check(s, path.clone(), diags);
        } else if let Some(items) = value.elements() {
            for (i, item) in items.iter().enumerate() {
                if let Some(s) = item.as_str() {
                    check(s, path.clone().index(i), diags);
                }
            }
        }
    }
}

/// Accepts only strings with at least one non-whitespace character.
#[derive(Debug, Clone, Copy)]
pub struct NotBlank;

impl Validator for NotBlank {
    fn description(&self) -> String {
        "a string that is not empty or blank".to_owned()
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        if value.as_str().is_some_and(|s| s.trim().is_empty()) {
            diags.push(
                Diagnostic::error("Invalid value", "The value must not be empty or blank.")
                    .at(path.clone()),
            );
        }
    }
}

/// Accepts only whole numbers that fit 64 bits.
#[derive(Debug, Clone, Copy)]
pub struct WholeNumber;

impl Validator for WholeNumber {
    fn description(&self) -> String {
        "a whole number".to_owned()
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        if value.as_number().is_some_and(|n| n.as_i64().is_none()) {
            diags.push(
                Diagnostic::error("Invalid value", "The value must be a whole number.")
                    .at(path.clone()),
            );
        }
    }
}

/// Accepts only numbers from the first bound to the second, both included
/// (pair it with [`WholeNumber`] for whole numbers).
#[derive(Debug, Clone, Copy)]
pub struct Between(pub i64, pub i64);

impl Validator for Between {
    fn description(&self) -> String {
        format!("from {} to {}", self.0, self.1)
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        let outside = match value.as_number() {
            Some(Number::Int(n)) => !(self.0..=self.1).contains(n),
            Some(Number::Float(f)) => !(self.0 as f64..=self.1 as f64).contains(f),
            Some(Number::Decimal(_)) => true,
            None => false,
        };
        if outside {
            diags.push(
                Diagnostic::error(
                    "Value out of range",
                    format!("The value must be {}.", self.description()),
                )
                .at(path.clone()),
            );
        }
    }
}

/// Accepts only lists and sets with at least the given number of elements.
#[derive(Debug, Clone, Copy)]
pub struct SizeAtLeast(pub usize);

impl Validator for SizeAtLeast {
    fn description(&self) -> String {
        match self.0 {
            1 => "a collection with at least 1 element".to_owned(),
            n => format!("a collection with at least {n} elements"),
        }
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        if value.elements().is_some_and(|items| items.len() < self.0) {
            diags.push(
                Diagnostic::error(
                    "Invalid value",
                    format!("The value must be {}.", self.description()),
                )
                .at(path.clone()),
            );
        }
    }
}

/// Accepts only lists and sets whose elements are all non-null.
#[derive(Debug, Clone, Copy)]
pub struct NoNullElements;

impl Validator for NoNullElements {
    fn description(&self) -> String {
        "a collection without null elements".to_owned()
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        for (index, item) in value.elements().unwrap_or_default().iter().enumerate() {
            if item.is_null() {
                diags.push(
                    Diagnostic::error("Null list element", "Elements must not be null.")
                        .at(path.clone().index(index)),
                );
            }
        }
    }
}

/// What the framework does to an attribute's planned value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanModifier {
    /// A change of this attribute replaces the resource instead of updating it.
    RequiresReplace,
    /// A computed value stays as in the prior state instead of becoming
    /// "known after apply" when other attributes change.
    UseStateForUnknown,
}

/// One attribute of a schema. Build it with the constructors and chained setters.
#[derive(Clone)]
pub struct Attribute {
    /// Attribute name (snake_case).
    pub name: String,
    /// Value type.
    pub ty: Type,
    /// Markdown description (docs and `terraform providers schema`).
    pub description: String,
    /// Who sets the value.
    pub mode: Mode,
    /// Hidden in plan output and logs.
    pub sensitive: bool,
    /// Deprecation message; the attribute is deprecated when set.
    pub deprecation: Option<String>,
    /// Value planned when configuration leaves the attribute null.
    pub default: Option<Value>,
    /// Checks on known configuration values.
    pub validators: Vec<Arc<dyn Validator>>,
    /// Planning behaviour.
    pub plan_modifiers: Vec<PlanModifier>,
    /// Attributes that must be null when this one is set.
    pub conflicts_with: Vec<&'static str>,
    /// Attributes that must be set when this one is.
    pub requires: Vec<&'static str>,
    /// Write-only (Terraform >= 1.11): the value reaches the provider in
    /// configuration only and is null in every plan and state.
    pub write_only: bool,
}

impl fmt::Debug for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attribute")
            .field("name", &self.name)
            .field("ty", &self.ty)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl Attribute {
    fn new(name: &str, ty: Type, mode: Mode, description: &str) -> Self {
        Self {
            name: name.to_owned(),
            ty,
            description: description.to_owned(),
            mode,
            sensitive: false,
            deprecation: None,
            default: None,
            validators: Vec::new(),
            plan_modifiers: Vec::new(),
            conflicts_with: Vec::new(),
            requires: Vec::new(),
            write_only: false,
        }
    }

    /// A required attribute.
    pub fn required(name: &str, ty: Type, description: &str) -> Self {
        Self::new(name, ty, Mode::Required, description)
    }

    /// An optional attribute.
    pub fn optional(name: &str, ty: Type, description: &str) -> Self {
        Self::new(name, ty, Mode::Optional, description)
    }

    /// A computed (read-only) attribute.
    pub fn computed(name: &str, ty: Type, description: &str) -> Self {
        Self::new(name, ty, Mode::Computed, description)
    }

    /// An optional attribute that takes `default` when not configured.
    pub fn with_default(name: &str, ty: Type, default: Value, description: &str) -> Self {
        Self {
            default: Some(default),
            ..Self::new(name, ty, Mode::OptionalComputed, description)
        }
    }

    /// Marks the attribute sensitive.
    pub fn sensitive(mut self) -> Self {
        self.sensitive = true;
        self
    }

    /// Marks the attribute write-only: the framework refuses a value from a
    /// Terraform that does not announce write-only support (it would store
    /// it) and keeps the attribute null in every plan and state.
    pub fn write_only(mut self) -> Self {
        self.write_only = true;
        self
    }

    /// Marks the attribute deprecated with a message.
    pub fn deprecated(mut self, message: &str) -> Self {
        self.deprecation = Some(message.to_owned());
        self
    }

    /// Adds a validator.
    pub fn validator(mut self, validator: impl Validator + 'static) -> Self {
        self.validators.push(Arc::new(validator));
        self
    }

    /// Declares that this attribute and each of `others` cannot both be set
    /// (an unknown value counts as set: it will hold one).
    pub fn conflicts_with(mut self, others: &[&'static str]) -> Self {
        self.conflicts_with.extend_from_slice(others);
        self
    }

    /// Declares that this attribute, when set, needs each of `others` set.
    /// Only values certainly set count on either side: an unknown value
    /// (a module's variable may still turn out null) is checked once known.
    pub fn requires(mut self, others: &[&'static str]) -> Self {
        self.requires.extend_from_slice(others);
        self
    }

    /// Adds a plan modifier.
    pub fn plan_modifier(mut self, modifier: PlanModifier) -> Self {
        self.plan_modifiers.push(modifier);
        self
    }

    /// True when the attribute carries `modifier`.
    pub fn has(&self, modifier: PlanModifier) -> bool {
        self.plan_modifiers.contains(&modifier)
    }
}

/// The schema of a provider configuration, resource or data source.
#[derive(Debug, Clone)]
pub struct Schema {
    /// State schema version (resources only); bump it with an upgrader.
    pub version: i64,
    /// Markdown description.
    pub description: String,
    /// Attributes in documentation order.
    pub attributes: Vec<Attribute>,
}

impl Schema {
    /// A version-0 schema.
    pub fn new(description: &str, attributes: Vec<Attribute>) -> Self {
        Self {
            version: 0,
            description: description.to_owned(),
            attributes,
        }
    }

    /// The same schema with another state version.
    pub fn with_version(mut self, version: i64) -> Self {
        self.version = version;
        self
    }

    /// The object type of values conforming to this schema.
    pub fn object_type(&self) -> Type {
        Type::Object(
            self.attributes
                .iter()
                .map(|a| (a.name.clone(), a.ty.clone()))
                .collect(),
        )
    }

    /// The attribute named `name`.
    pub fn attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    /// Runs every attribute's validators on a configuration object, and
    /// reports required attributes that are null, conflicting attributes that
    /// are both set, attributes set without one they require, and deprecated
    /// attributes that are set.
    pub fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        for attribute in &self.attributes {
            let Some(value) = config.get_attr(&attribute.name) else {
                continue;
            };
            let path = AttributePath::attribute(&attribute.name);
            if attribute.mode == Mode::Required && value.is_null() {
                diags.push(
                    Diagnostic::error(
                        "Missing required argument",
                        format!("The argument \"{}\" is required.", attribute.name),
                    )
                    .at(path),
                );
                continue;
            }
            for other in &attribute.conflicts_with {
                if !value.is_null() && config.get_attr(other).is_some_and(|v| !v.is_null()) {
                    diags.push(
                        Diagnostic::error(
                            "Conflicting attributes",
                            format!(
                                "`{}` cannot be set together with `{other}`.",
                                attribute.name
                            ),
                        )
                        .at(path.clone()),
                    );
                }
            }
            if !value.is_null() && !value.is_unknown() {
                for other in &attribute.requires {
                    if config.get_attr(other).is_some_and(Value::is_null) {
                        diags.push(
                            Diagnostic::error(
                                format!("Set without {other}"),
                                format!(
                                    "`{}` needs `{other}`: set `{other}` or remove `{}`.",
                                    attribute.name, attribute.name
                                ),
                            )
                            .at(path.clone()),
                        );
                    }
                }
            }
            if let Some(message) = &attribute.deprecation {
                if !value.is_null() {
                    diags.push(
                        Diagnostic::warning("Deprecated attribute", message.clone())
                            .at(path.clone()),
                    );
                }
            }
            if value.is_null() || !value.is_wholly_known() {
                continue;
            }
            for validator in &attribute.validators {
                validator.validate(&path, value, diags);
            }
        }
    }

    /// Refuses a write-only value (unknown counts: it will hold one) in
    /// `config` unless the client announced write-only support: Terraform
    /// 1.0 to 1.10 would store it in plan and state.
    pub fn check_write_only(&self, config: &Value, allowed: bool, diags: &mut Diagnostics) {
        if allowed {
            return;
        }
        for attribute in self.attributes.iter().filter(|a| a.write_only) {
            if config
                .get_attr(&attribute.name)
                .is_some_and(|v| !v.is_null())
            {
                diags.push(
                    Diagnostic::error(
                        "Write-only attribute not supported",
                        format!(
                            "`{}` is write-only, which requires Terraform >= 1.11: this Terraform would store its value in the plan and state. Upgrade Terraform, or use {} instead.",
                            attribute.name,
                            match attribute.conflicts_with.as_slice() {
                                [] => "the attribute's stored alternative".to_owned(),
                                others => format!("`{}`", others.join("` or `")),
                            }
                        ),
                    )
                    .at(AttributePath::attribute(&attribute.name)),
                );
            }
        }
    }

    /// Sets every write-only attribute of an object (not of null) to null:
    /// what Terraform >= 1.11 requires of every plan and state.
    pub fn nullify_write_only(&self, value: &mut Value) {
        for attribute in self.attributes.iter().filter(|a| a.write_only) {
            value.set_attr(&attribute.name, Value::null());
        }
    }

    /// Fills the attributes of `value` that are null and have a default.
    pub fn apply_defaults(&self, value: &mut Value) {
        for attribute in &self.attributes {
            if let Some(default) = &attribute.default {
                if value.get_attr(&attribute.name).is_some_and(Value::is_null) {
                    value.set_attr(&attribute.name, default.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        Schema::new(
            "",
            vec![
                Attribute::optional("profile", Type::String, ""),
                Attribute::optional("http_proxy", Type::String, "").conflicts_with(&["profile"]),
                Attribute::optional("clients", Type::list(Type::String), "")
                    .validator(SizeAtLeast(1))
                    .validator(NoNullElements),
            ],
        )
    }

    fn config(attributes: &[(&str, Value)]) -> Value {
        let mut config = Value::object(
            ["profile", "http_proxy", "clients"].map(|n| (n.to_owned(), Value::null())),
        );
        for (name, value) in attributes {
            config.set_attr(name, value.clone());
        }
        config
    }

    fn errors(config: &Value) -> Vec<(String, String)> {
        let mut diags = Diagnostics::new();
        schema().validate(config, &mut diags);
        diags
            .iter()
            .map(|d| (d.summary.clone(), format!("{:?}", d.path)))
            .collect()
    }

    #[test]
    fn conflicting_attributes_are_reported_on_the_attribute() {
        let both = config(&[
            ("profile", Value::string("p")),
            ("http_proxy", Value::unknown()),
        ]);
        let found = errors(&both);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "Conflicting attributes");
        assert!(found[0].1.contains("http_proxy"), "{found:?}");
        assert!(errors(&config(&[("http_proxy", Value::string("h"))])).is_empty());
        assert!(errors(&config(&[("profile", Value::string("p"))])).is_empty());
    }

    #[test]
    fn numbers_must_be_in_range() {
        let check = |value: Value| {
            let mut diags = Diagnostics::new();
            Between(1, 60).validate(&AttributePath::attribute("t"), &value, &mut diags);
            diags.iter().map(|d| d.summary.clone()).collect::<Vec<_>>()
        };
        for fine in [
            Value::int(1),
            Value::int(60),
            Value::unknown(),
            Value::null(),
        ] {
            assert!(check(fine).is_empty());
        }
        for outside in [
            Value::int(0),
            Value::int(61),
            Value::int(-5),
            Value::Number(Number::Float(60.5)),
            Value::Number(Number::Decimal("1e400".into())),
        ] {
            assert_eq!(
                check(outside.clone()),
                ["Value out of range"],
                "{outside:?}"
            );
        }
        assert_eq!(Between(1, 60).description(), "from 1 to 60");
    }

    #[test]
    fn collections_must_not_be_empty_or_hold_nulls() {
        let empty = config(&[("clients", Value::list(vec![]))]);
        assert_eq!(errors(&empty)[0].0, "Invalid value");
        let null = config(&[("clients", Value::list(vec![Value::null()]))]);
        let found = errors(&null);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "Null list element");
        let fine = config(&[("clients", Value::list(vec![Value::string("go")]))]);
        assert!(errors(&fine).is_empty());
    }
}
