//! Validators that need the domain's grammars: a value, or each element of
//! a list, checked as the typed input it is.

use crate::domain::no_proxy::typed::Kind;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::schema::Validator;
use crate::framework::value::Value;

/// Adds an error at `path` when `text` is not a value of `kind`.
fn check(kind: Kind, text: &str, path: AttributePath, diags: &mut Diagnostics) {
    if let Err(rejection) = kind.check(text) {
        diags.push(Diagnostic::error(rejection.summary, rejection.detail).at(path));
    }
}

/// Accepts only strings of one [`Kind`]: an IP address, a host, a DNS
/// domain, a control-plane endpoint...
#[derive(Debug, Clone, Copy)]
pub struct Is(pub Kind);

impl Validator for Is {
    fn description(&self) -> String {
        self.0.expected().to_owned()
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        if let Some(text) = value.as_str() {
            check(self.0, text, path.clone(), diags);
        }
    }
}

/// Accepts only lists and sets whose strings are all of one [`Kind`]; a bad
/// element is reported at its index. Unknown and null elements are left to
/// other checks.
#[derive(Debug, Clone, Copy)]
pub struct Each(pub Kind);

impl Validator for Each {
    fn description(&self) -> String {
        format!("a collection whose elements are each {}", self.0.expected())
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        for (index, item) in value.elements().unwrap_or_default().iter().enumerate() {
            if let Some(text) = item.as_str() {
                check(self.0, text, path.clone().index(index), diags);
            }
        }
    }
}

/// Accepts only maps whose keys are all of one [`Kind`]; a bad key is
/// reported on its element.
#[derive(Debug, Clone, Copy)]
pub struct KeysAre(pub Kind);

impl Validator for KeysAre {
    fn description(&self) -> String {
        format!("a map whose keys are each {}", self.0.expected())
    }

    fn validate(&self, path: &AttributePath, value: &Value, diags: &mut Diagnostics) {
        let Value::Map(map) = value else {
            return;
        };
        for key in map.keys() {
            check(self.0, key, path.clone().key(key.clone()), diags);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(validator: impl Validator, value: &Value) -> Vec<(Option<AttributePath>, String)> {
        let mut diags = Diagnostics::new();
        validator.validate(&AttributePath::attribute("x"), value, &mut diags);
        diags
            .iter()
            .map(|d| (d.path.clone(), d.detail.clone()))
            .collect()
    }

    #[test]
    fn each_bad_element_is_reported_at_its_index() {
        let list = Value::list(vec![
            Value::string("10.0.0.0/8"),
            Value::string("localhost"),
            Value::unknown(),
            Value::null(),
            Value::string("*"),
        ]);
        let found = paths(Each(Kind::Cidr), &list);
        assert_eq!(found.len(), 2, "{found:?}");
        let at = |index| Some(AttributePath::attribute("x").index(index));
        assert_eq!((&found[0].0, &found[1].0), (&at(1), &at(4)));
        assert!(
            found[0]
                .1
                .contains("Expected a CIDR block such as `10.96.0.0/12`"),
            "{found:?}"
        );
    }

    #[test]
    fn bad_keys_are_reported_on_their_element() {
        let map = Value::Map(
            [
                ("node1".to_owned(), Value::string("10.0.0.1")),
                ("node1,evil".to_owned(), Value::string("10.0.0.2")),
            ]
            .into(),
        );
        let mut diags = Diagnostics::new();
        KeysAre(Kind::Host).validate(&AttributePath::attribute("x"), &map, &mut diags);
        let paths: Vec<_> = diags.iter().map(|d| d.path.clone()).collect();
        assert_eq!(
            paths,
            [Some(AttributePath::attribute("x").key("node1,evil"))]
        );
    }

    #[test]
    fn single_values_unknowns_and_nulls() {
        assert_eq!(paths(Is(Kind::Ip), &Value::string("*")).len(), 1);
        assert!(paths(Is(Kind::Ip), &Value::string("10.0.0.1")).is_empty());
        assert!(paths(Is(Kind::Ip), &Value::unknown()).is_empty());
        assert!(paths(Is(Kind::Ip), &Value::null()).is_empty());
    }
}
