//! What every RPC handler shares, in one place: running its body under
//! [`guard::run`] and turning the outcome into a response's parts
//! ([`Ran`]), and converting values between the wire and the schema of the
//! object they belong to ([`Object`]).

use prost::Message;

use super::ProviderServer;
use crate::diagnostics::Diagnostics;
use crate::proto::{self, diagnostics_to_proto};
use crate::server::guard::{self, Subject};
use crate::value::{Type, Value};

/// What an RPC body returned (`None` when it failed, panicked or was
/// cancelled) and what it reported.
pub(super) struct Ran<T> {
    /// The body's result.
    pub result: Option<T>,
    /// Its diagnostics, and those of the guard.
    pub diags: Diagnostics,
}

impl<T> Ran<T> {
    /// Runs `body` for `request` under [`guard::run`] (span, panic guard,
    /// cancellation; a large request on a thread of its own).
    pub fn run(
        rpc: &'static str,
        subject: Subject<'_>,
        request: &impl Message,
        body: impl FnOnce(&mut Diagnostics) -> Option<T>,
    ) -> Self {
        Self::run_sized(rpc, subject, request.encoded_len(), body)
    }

    /// [`Ran::run`] for a request of `request_bytes` bytes whose body owns
    /// (and drops, once decoded) the request's values.
    pub fn run_sized(
        rpc: &'static str,
        subject: Subject<'_>,
        request_bytes: usize,
        body: impl FnOnce(&mut Diagnostics) -> Option<T>,
    ) -> Self {
        guard::run(rpc, subject, request_bytes, body).into()
    }

    /// Whether an error was reported.
    pub fn failed(&self) -> bool {
        self.diags.has_errors()
    }

    /// The result only when no error was reported (Terraform must never get
    /// a half result), and the diagnostics in the wire form.
    pub fn succeeded(self) -> (Option<T>, Vec<proto::Diagnostic>) {
        let failed = self.failed();
        let (result, diagnostics) = self.regardless();
        (result.filter(|_| !failed), diagnostics)
    }

    /// The result, whatever was reported, and the diagnostics in the wire
    /// form.
    pub fn regardless(self) -> (Option<T>, Vec<proto::Diagnostic>) {
        (self.result, diagnostics_to_proto(&self.diags))
    }

    /// The details of the diagnostics, for responses that carry a text
    /// instead (CallFunction, StopProvider).
    pub fn details(&self) -> String {
        self.diags
            .iter()
            .map(|d| d.detail.clone())
            .collect::<Vec<_>>()
            .join("; ")
    }
}

impl Ran<()> {
    /// Runs a body that only checks, as [`Ran::run`] does: its diagnostics
    /// in the wire form.
    pub fn check(
        rpc: &'static str,
        subject: Subject<'_>,
        request: &impl Message,
        body: impl FnOnce(&mut Diagnostics) -> Option<()>,
    ) -> Vec<proto::Diagnostic> {
        diagnostics_to_proto(&Self::run(rpc, subject, request, body).diags)
    }
}

impl<T> From<(Option<Option<T>>, Diagnostics)> for Ran<T> {
    /// What [`guard::run`] returns for a body that may fail.
    fn from((result, diags): (Option<Option<T>>, Diagnostics)) -> Self {
        Self {
            result: result.flatten(),
            diags,
        }
    }
}

/// The object whose schema the values of a message follow.
#[derive(Clone, Copy)]
pub(super) enum Object<'a> {
    /// The provider configuration.
    Provider,
    /// A managed resource type.
    Resource(&'a str),
    /// A data source type.
    DataSource(&'a str),
    /// An ephemeral resource type.
    Ephemeral(&'a str),
    /// The identities of a managed resource type.
    Identity(&'a str),
    /// An action type.
    Action(&'a str),
}

impl ProviderServer {
    /// The type of `object`'s values; an unknown type name is an error.
    fn object_type(&self, object: Object<'_>, diags: &mut Diagnostics) -> Option<&Type> {
        let registry = self.server.registry();
        Some(match object {
            Object::Provider => registry.provider_type(),
            Object::Resource(name) => &registry.resource(name, diags)?.object_type,
            Object::DataSource(name) => &registry.data_source(name, diags)?.object_type,
            Object::Ephemeral(name) => &registry.ephemeral_resource(name, diags)?.object_type,
            Object::Identity(name) => &registry.identity(name, diags)?.object_type,
            Object::Action(name) => &registry.action(name, diags)?.object_type,
        })
    }

    /// Decodes values of `object` (configurations, states, plans), each
    /// named for diagnostics; stops at the first that fails.
    pub(super) fn decode<const N: usize>(
        &self,
        object: Object<'_>,
        values: [(Option<&proto::DynamicValue>, &str); N],
        diags: &mut Diagnostics,
    ) -> Option<[Value; N]> {
        let ty = self.object_type(object, diags)?;
        let mut decoded = Vec::with_capacity(N);
        for (value, what) in values {
            decoded.push(proto::decode(value, ty, what, diags)?);
        }
        decoded.try_into().ok()
    }

    /// Decodes the configuration of `object`.
    pub(super) fn config(
        &self,
        object: Object<'_>,
        value: Option<&proto::DynamicValue>,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let what = match object {
            Object::Provider => "provider configuration",
            _ => "configuration",
        };
        let [config] = self.decode(object, [(value, what)], diags)?;
        Some(config)
    }

    /// Encodes a value of `object` (a state, a plan, a result).
    pub(super) fn encode(
        &self,
        object: Object<'_>,
        value: &Value,
        diags: &mut Diagnostics,
    ) -> Option<proto::DynamicValue> {
        let ty = self.object_type(object, diags)?;
        proto::encode(value, ty, diags)
    }
}

impl ProviderServer {
    /// Decodes the identity Terraform sent with a request about resource
    /// type `name`: null when it sent none (a resource type without
    /// identities, a new object, state stored without one).
    pub(super) fn identity_in(
        &self,
        name: &str,
        identity: Option<&proto::ResourceIdentityData>,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        match identity.and_then(|i| i.identity_data.as_ref()) {
            None => Some(Value::null()),
            Some(value) => {
                let [identity] =
                    self.decode(Object::Identity(name), [(Some(value), "identity")], diags)?;
                self.peer_identity(name, identity, diags)
            }
        }
    }

    /// `identity`, an identity of resource type `name` a peer sent (as is
    /// or upgraded), when it keeps the bounds every identity string keeps
    /// ([`IdentitySchema::check_peer`](crate::identity::IdentitySchema::check_peer)).
    pub(super) fn peer_identity(
        &self,
        name: &str,
        identity: Value,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let schema = &self.server.registry().identity(name, diags)?.schema;
        schema.check_peer(&identity, diags).then_some(identity)
    }

    /// Encodes an identity of resource type `name` for a response: absent
    /// when null.
    pub(super) fn identity_out(
        &self,
        name: &str,
        identity: &Value,
        diags: &mut Diagnostics,
    ) -> Option<Option<proto::ResourceIdentityData>> {
        if identity.is_null() {
            return Some(None);
        }
        let data = self.encode(Object::Identity(name), identity, diags)?;
        Some(Some(proto::ResourceIdentityData {
            identity_data: Some(data),
        }))
    }
}
