//! Resource identity (protocol 6.9, Terraform >= 1.12): the few attributes
//! that locate one object of a managed resource type. Terraform stores an
//! identity beside the state, prints it in plans and `show -json`, and
//! imports by it (`import { to = ..., identity = {...} }`).
//!
//! A resource declares its identity as a typed model, as it declares its
//! schema ([`model!`](crate::model!)): a `required` attribute is required
//! for an import by identity, an `optional` one optional for it;
//! [`IdentitySchema::new`] turns the model's attributes into the schema. The server asks
//! the resource for the identity of every object it reads, plans, applies
//! or imports ([`Resource::identity`](crate::resource::Resource::identity))
//! and checks it (it matches the schema; it is wholly known except for an
//! object still to be created). Terraform prints identities: an identity
//! must never hold a secret.

use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::schema::{Attribute, Mode};
use super::value::{Type, Value};

/// The identity schema of a resource type.
#[derive(Debug, Clone, PartialEq)]
pub struct IdentitySchema {
    /// The identity version: an identity stored at an earlier version goes
    /// through [`Resource::upgrade_identity`](crate::resource::Resource::upgrade_identity).
    pub version: i64,
    /// The attributes, in declaration order.
    pub attributes: Vec<IdentityAttribute>,
}

/// One attribute of an identity.
#[derive(Debug, Clone, PartialEq)]
pub struct IdentityAttribute {
    /// Attribute name (snake_case).
    pub name: String,
    /// Value type.
    pub ty: Type,
    /// Markdown description (docs and `terraform providers schema`).
    pub description: String,
    /// Whether an import by identity must give it (else it may).
    pub required_for_import: bool,
}

impl IdentitySchema {
    /// The identity schema at `version` of `attributes`, those of a typed
    /// model (`Identity::attributes()`): the `required` ones are required
    /// for an import by identity, the others optional. Panics on a
    /// sensitive or write-only attribute, a declaration error: Terraform
    /// prints identities.
    pub fn new(version: i64, attributes: Vec<Attribute>) -> Self {
        Self {
            version,
            attributes: attributes
                .into_iter()
                .inspect(|a| {
                    assert!(
                        !a.sensitive && !a.write_only,
                        "identity attribute `{}` is sensitive or write-only, but Terraform prints identities",
                        a.name
                    );
                })
                .map(|a| IdentityAttribute {
                    name: a.name,
                    ty: a.ty,
                    description: a.description,
                    required_for_import: a.mode == Mode::Required,
                })
                .collect(),
        }
    }

    /// The object type of identities.
    pub fn object_type(&self) -> Type {
        Type::Object(
            self.attributes
                .iter()
                .map(|a| (a.name.clone(), a.ty.clone()))
                .collect(),
        )
    }

    /// Checks an identity given for an import: an object, with every
    /// attribute required for import known and not null (an error on each
    /// that is missing).
    pub fn check_import(&self, identity: &Value, diags: &mut Diagnostics) {
        if identity.is_null() || !identity.is_wholly_known() {
            diags.push(Diagnostic::error(
                "Invalid import identity",
                "The identity to import by must be wholly known.",
            ));
            return;
        }
        for attribute in self.attributes.iter().filter(|a| a.required_for_import) {
            if identity
                .get_attr(&attribute.name)
                .is_none_or(Value::is_null)
            {
                diags.push(
                    Diagnostic::error(
                        "Missing identity attribute",
                        format!(
                            "An import by identity needs `{}`: {}",
                            attribute.name, attribute.description
                        ),
                    )
                    .at(AttributePath::attribute(&attribute.name)),
                );
            }
        }
    }
}

/// The most bytes a string of an identity from a peer may hold (the
/// longest path Linux opens, PATH_MAX): identities locate objects, and
/// Terraform prints them.
pub const MAX_STRING_BYTES: usize = 4096;

impl IdentitySchema {
    /// Checks an identity a peer sent (the one Terraform stored, or one to
    /// import by): each of its strings, map keys included, holds at most
    /// [`MAX_STRING_BYTES`] and no control character (Terraform prints
    /// identities to terminals). An error on each attribute that does not,
    /// naming the attribute and the rule and quoting nothing of the value,
    /// which may be anything, a secret included. False on any error.
    pub fn check_peer(&self, identity: &Value, diags: &mut Diagnostics) -> bool {
        let mut fine = true;
        for attribute in &self.attributes {
            let Some(value) = identity.get_attr(&attribute.name) else {
                continue;
            };
            if let Some(problem) = string_problem(value) {
                fine = false;
                diags.push(
                    Diagnostic::error(
                        "Invalid resource identity",
                        format!(
                            "The identity's `{}` {problem}, which no identity of this provider holds; its value is not shown.",
                            attribute.name
                        ),
                    )
                    .at(AttributePath::attribute(&attribute.name)),
                );
            }
        }
        fine
    }
}

/// What is wrong with the strings in `value`, if anything: the first
/// string over [`MAX_STRING_BYTES`] or with a control character.
fn string_problem(value: &Value) -> Option<String> {
    let of = |text: &str| {
        if text.len() > MAX_STRING_BYTES {
            Some(format!(
                "holds {} bytes, more than the {MAX_STRING_BYTES} an identity string may hold",
                text.len()
            ))
        } else if text.chars().any(char::is_control) {
            Some("holds a control character".to_owned())
        } else {
            None
        }
    };
    match value {
        Value::String(text) => of(text),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => {
            items.iter().find_map(string_problem)
        }
        Value::Map(entries) | Value::Object(entries) => entries
            .iter()
            .find_map(|(key, value)| of(key).or_else(|| string_problem(value))),
        Value::Typed(typed) => string_problem(&typed.1),
        Value::Null | Value::Unknown(_) | Value::Bool(_) | Value::Number(_) => None,
    }
}

/// What an import designates the object by.
#[derive(Debug, Clone, Copy)]
pub enum ImportTarget<'a> {
    /// An import ID (`terraform import`, `import { id = ... }`).
    Id(&'a str),
    /// An identity of the resource's identity schema, checked by
    /// [`IdentitySchema::check_import`] (`import { identity = {...} }`,
    /// Terraform >= 1.12).
    Identity(&'a Value),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_of_a_model_and_the_import_check() {
        let schema = IdentitySchema::new(
            2,
            vec![
                Attribute::required("name", Type::String, "The name."),
                Attribute::optional("region", Type::String, "The region."),
                Attribute::optional("zones", Type::list(Type::String), "The zones."),
            ],
        );
        assert_eq!(schema.version, 2);
        let flags: Vec<(&str, bool)> = schema
            .attributes
            .iter()
            .map(|a| (a.name.as_str(), a.required_for_import))
            .collect();
        assert_eq!(flags, [("name", true), ("region", false), ("zones", false)]);
        assert_eq!(
            schema.object_type(),
            Type::object([
                ("name", Type::String),
                ("region", Type::String),
                ("zones", Type::list(Type::String)),
            ])
        );
        let identity = |name: Value| {
            Value::object([
                ("name".to_owned(), name),
                ("region".to_owned(), Value::null()),
                ("zones".to_owned(), Value::null()),
            ])
        };
        let mut diags = Diagnostics::new();
        schema.check_import(&identity(Value::string("a")), &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        for bad in [
            identity(Value::null()),
            identity(Value::unknown()),
            Value::null(),
        ] {
            let mut diags = Diagnostics::new();
            schema.check_import(&bad, &mut diags);
            assert!(diags.has_errors(), "{bad:?}");
        }
        let mut diags = Diagnostics::new();
        schema.check_import(&identity(Value::null()), &mut diags);
        let error = diags.iter().next().unwrap();
        assert_eq!(error.summary, "Missing identity attribute");
        assert_eq!(
            error.detail,
            "An import by identity needs `name`: The name."
        );
    }

    /// A peer's identity with a string over the bound or with a control
    /// character, anywhere in an attribute, is refused on that attribute
    /// without a byte of the value in the diagnostic; one at the bound is
    /// taken.
    #[test]
    fn a_peer_identity_is_bounded_and_never_quoted() {
        let schema = IdentitySchema::new(
            0,
            vec![
                Attribute::required("name", Type::String, "The name."),
                Attribute::optional("zones", Type::list(Type::String), "The zones."),
            ],
        );
        let identity = |name: &str, zone: &str| {
            Value::object([
                ("name".to_owned(), Value::string(name)),
                ("zones".to_owned(), Value::list(vec![Value::string(zone)])),
            ])
        };
        let mut diags = Diagnostics::new();
        let at_bound = "s".repeat(MAX_STRING_BYTES);
        assert!(schema.check_peer(&identity(&at_bound, "eu-1"), &mut diags));
        assert!(diags.is_empty(), "{diags:?}");
        let over = format!("SECRET{}", "s".repeat(MAX_STRING_BYTES));
        for (bad, attribute, rule) in [
            (identity(&over, "eu-1"), "name", "more than the 4096"),
            (identity("a", "eu\nSECRET"), "zones", "control character"),
            (
                identity("SECRET\u{1b}[2J", "eu-1"),
                "name",
                "control character",
            ),
        ] {
            let mut diags = Diagnostics::new();
            assert!(!schema.check_peer(&bad, &mut diags));
            let error = diags.iter().next().unwrap();
            assert_eq!(error.path, Some(AttributePath::attribute(attribute)));
            assert!(error.detail.contains(rule), "{}", error.detail);
            assert!(!format!("{diags:?}").contains("SECRET"), "{diags:?}");
        }
    }
}
