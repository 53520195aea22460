//! The managed resource contract.

use std::collections::BTreeMap;

use super::diagnostics::{Diagnostic, Diagnostics};
use super::identity::{IdentitySchema, ImportTarget};
use super::schema::Schema;
use super::value::Value;

/// A resource's private state: data Terraform stores with the state (and in
/// a saved plan) but never shows nor compares, as keyed strings. Encoded as
/// a JSON object; empty when there is none. A resource that does not touch
/// it passes it on unchanged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Private(BTreeMap<String, String>);

impl Private {
    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// Sets `key` to `value`.
    pub fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), value);
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &str) {
        self.0.remove(key);
    }

    /// The bytes Terraform stores: nothing when empty.
    pub fn encode(&self) -> Vec<u8> {
        if self.0.is_empty() {
            return Vec::new();
        }
        serde_json::to_vec(&self.0).unwrap_or_default()
    }

    /// Reads what [`Private::encode`] wrote; anything else is an error.
    pub fn decode(bytes: &[u8], diags: &mut Diagnostics) -> Option<Self> {
        if bytes.is_empty() {
            return Some(Self::default());
        }
        serde_json::from_slice(bytes)
            .map(Self)
            .map_err(|_| {
                diags.push(Diagnostic::error(
                    "Invalid private state",
                    "The private state Terraform stored for this resource is not what the provider wrote. Remove the resource from the state and import it again.",
                ))
            })
            .ok()
    }
}

/// What Terraform stores with an object besides its state, handed from one
/// RPC to the next: the private state and the identity (null when there is
/// none: a resource type without identities, a new object, or state written
/// by a Terraform or a release that stored none).
#[derive(Debug, Clone, PartialEq)]
pub struct Carried {
    /// The private state.
    pub private: Private,
    /// The identity, a value of the resource's identity schema, or null.
    pub identity: Value,
}

impl Default for Carried {
    fn default() -> Self {
        Self {
            private: Private::default(),
            identity: Value::null(),
        }
    }
}

/// What a plan or an apply of one object works from, as Terraform hands it
/// over (plugin-framework's requests carry the same): the prior state, the
/// configuration, and the private state, which the resource may change.
pub struct Change<'a> {
    /// The prior state; `None` on create.
    pub prior: Option<&'a Value>,
    /// The configuration.
    pub config: &'a Value,
    /// The private state Terraform stored (prior on plan, planned on apply);
    /// what the resource leaves here is what Terraform stores next.
    pub private: &'a mut Private,
}

/// A managed resource.
///
/// The framework does the schema-driven part of planning (defaults, unknown
/// computed values, plan modifiers, replacement) and checks every invariant
/// Terraform enforces; the resource only fills in what it knows.
pub trait Resource: Send + Sync {
    /// Full type name, e.g. `clusterproxy_profile`.
    fn type_name(&self) -> &'static str;

    /// The schema; its version is the current state version.
    fn schema(&self) -> Schema;

    /// Checks a configuration that may still hold unknown values.
    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Refines a planned object: `planned` holds the configuration, defaults,
    /// prior values kept by plan modifiers, and unknown for other computed
    /// attributes. Compute what can be known at plan time. `change.private`
    /// holds the prior private state; what is left there is planned, and
    /// Terraform hands it to apply.
    fn modify_plan(&self, _change: Change<'_>, _planned: &mut Value, _diags: &mut Diagnostics) {}

    /// Creates or updates the object and returns its new, wholly known state
    /// (`change.prior` is `None` on create). `change.private` holds the
    /// planned private state; what is left there is stored with the new
    /// state.
    fn apply(&self, change: Change<'_>, planned: &Value, diags: &mut Diagnostics) -> Option<Value>;

    /// Deletes the object; after an error diagnostic Terraform keeps the
    /// prior state.
    fn delete(&self, _prior: &Value, _diags: &mut Diagnostics) {}

    /// Refreshes the state. `None` means the object is gone.
    fn read(&self, current: &Value, _diags: &mut Diagnostics) -> Option<Value> {
        Some(current.clone())
    }

    /// Builds a full state object from an import ID or (when the resource
    /// has an identity schema) an identity, or adds an error. What is left
    /// in `carried` is stored with it: the private state, and the identity
    /// the import designates, which [`Resource::identity`] then completes.
    /// By default the resource cannot be imported.
    fn import(
        &self,
        _target: ImportTarget<'_>,
        _carried: &mut Carried,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        diags.push(Diagnostic::error(
            "Resource import not supported",
            format!("{} cannot be imported.", self.type_name()),
        ));
        None
    }

    /// The identity schema (protocol 6.9, Terraform >= 1.12; older versions
    /// ignore it), built with [`IdentitySchema::new`]. By default the
    /// resource has no identity.
    fn identity_schema(&self) -> Option<IdentitySchema> {
        None
    }

    /// The identity of the object whose state is `state` (read, planned,
    /// applied or imported; planned state may hold unknowns only for an
    /// object still to be created), given the identity Terraform holds for
    /// it: `prior`, null when it holds none (a new object, or state written
    /// by a Terraform or a release that stored none). Terraform expects the
    /// identity of an object never to change, and prints it: it must hold no
    /// secret. Called only when [`Resource::identity_schema`] gives one; by
    /// default the prior identity is kept.
    fn identity(&self, _state: &Value, prior: &Value, _diags: &mut Diagnostics) -> Value {
        prior.clone()
    }

    /// Converts a JSON identity written at an earlier identity schema
    /// `version` into an identity of the current one, or adds an error. By
    /// default there is no earlier version.
    fn upgrade_identity(
        &self,
        version: i64,
        _json: &[u8],
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        diags.push(Diagnostic::error(
            "Unknown identity version",
            format!("{} has no identity version {version}.", self.type_name()),
        ));
        None
    }

    /// Converts JSON state written by an earlier schema `version` into a
    /// state object of the current schema, or adds an error. By default
    /// there is no earlier version.
    fn upgrade_state(&self, version: i64, _json: &[u8], diags: &mut Diagnostics) -> Option<Value> {
        diags.push(Diagnostic::error(
            "Unknown state version",
            format!("{} has no schema version {version}.", self.type_name()),
        ));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_state_round_trips_and_refuses_what_it_did_not_write() {
        let mut diags = Diagnostics::new();
        assert_eq!(Private::default().encode(), Vec::<u8>::new());
        assert_eq!(Private::decode(&[], &mut diags), Some(Private::default()));
        let mut private = Private::default();
        private.set("a", "one".to_owned());
        private.set("b", "two".to_owned());
        let bytes = private.encode();
        assert_eq!(bytes, br#"{"a":"one","b":"two"}"#);
        let decoded = Private::decode(&bytes, &mut diags).unwrap();
        assert_eq!(decoded.get("a"), Some("one"));
        private.remove("a");
        private.remove("b");
        assert_eq!(private.encode(), Vec::<u8>::new());
        assert!(!diags.has_errors());
        for bad in [&b"not json"[..], br#"{"a":1}"#, b"[]"] {
            let mut diags = Diagnostics::new();
            assert_eq!(Private::decode(bad, &mut diags), None);
            assert!(diags.iter().any(|d| d.summary == "Invalid private state"));
        }
    }
}
