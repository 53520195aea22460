//! Resource identity over the gRPC layer: GetResourceIdentitySchemas, the
//! identity of every ReadResource, PlanResourceChange, ApplyResourceChange
//! and ImportResourceState (by ID and by identity), UpgradeResourceIdentity,
//! and UNIMPLEMENTED for what is not served.

use std::sync::Arc;

use tonic::{Code, Request};

use super::tests::Offers;
use super::*;
use crate::diagnostics::Diagnostics;
use crate::identity::{IdentitySchema, ImportTarget};
use crate::model::{Field as _, Model as _};
use crate::resource::{Carried, Change, Resource};
use crate::schema::{Attribute, Schema};
use crate::value::{json, msgpack, Type, Value};
use proto::provider_server::Provider as _;

crate::model! {
    /// The identity of a [`Located`] object.
    struct Where {
        name: Option<String> [required("The object's name.")],
        origin: Option<String> [optional("Where it was imported from.")],
    }
}

/// A resource with identities: `name` (required; changing it replaces the
/// object) and `size`; its identity is the name, and the import ID an
/// import gave. Identity version 1; version 0 was `{"id": name}`.
struct Located;

impl Located {
    fn state(name: &str, size: &str) -> Value {
        Value::object([
            ("name".to_owned(), Value::string(name)),
            ("size".to_owned(), Value::string(size)),
        ])
    }
}

impl Resource for Located {
    fn type_name(&self) -> &'static str {
        "test_located"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "",
            vec![
                Attribute::required("name", Type::String, ""),
                Attribute::optional("size", Type::String, ""),
            ],
        )
    }

    fn apply(
        &self,
        _change: Change<'_>,
        planned: &Value,
        _diags: &mut Diagnostics,
    ) -> Option<Value> {
        Some(planned.clone())
    }

    fn import(
        &self,
        target: ImportTarget<'_>,
        carried: &mut Carried,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let given = match target {
            ImportTarget::Id(id) => Where {
                name: Some(id.to_owned()),
                origin: Some(format!("id {id}")),
            },
            ImportTarget::Identity(identity) => Where::get(identity, diags)?,
        };
        let state = Self::state(given.name.as_deref()?, "imported");
        carried.identity = given.into_value();
        Some(state)
    }

    fn identity_schema(&self) -> Option<IdentitySchema> {
        Some(IdentitySchema::new(1, Where::attributes()))
    }

    /// The prior identity while it names the object, else the name alone.
    fn identity(&self, state: &Value, prior: &Value, _diags: &mut Diagnostics) -> Value {
        let name = state
            .get_attr(Where::name)
            .cloned()
            .unwrap_or_else(Value::null);
        if !prior.is_null() && prior.get_attr(Where::name) == Some(&name) {
            return prior.clone();
        }
        Value::object([
            (Where::name.to_owned(), name),
            (Where::origin.to_owned(), Value::null()),
        ])
    }

    fn upgrade_identity(
        &self,
        version: i64,
        json: &[u8],
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let old: serde_json::Value = serde_json::from_slice(json).ok()?;
        match (version, old["id"].as_str()) {
            (0, Some(id)) => Some(
                Where {
                    name: Some(id.to_owned()),
                    origin: None,
                }
                .into_value(),
            ),
            _ => {
                diags.push(crate::diagnostics::Diagnostic::error("Bad identity", ""));
                None
            }
        }
    }
}

fn server() -> ProviderServer {
    ProviderServer::new(&Offers {
        resources: vec![Arc::new(Located)],
        ..Offers::default()
    })
}

fn state_type() -> Type {
    Type::object([("name", Type::String), ("size", Type::String)])
}

fn identity_type() -> Type {
    Type::object([("name", Type::String), ("origin", Type::String)])
}

fn wire(value: &Value, ty: &Type) -> Option<proto::DynamicValue> {
    Some(proto::DynamicValue {
        msgpack: msgpack::encode(value, ty).unwrap(),
        json: Vec::new(),
    })
}

fn identity_wire(identity: &Value) -> Option<proto::ResourceIdentityData> {
    Some(proto::ResourceIdentityData {
        identity_data: wire(identity, &identity_type()),
    })
}

fn identity(name: Value, origin: Option<&str>) -> Value {
    Value::object([
        ("name".to_owned(), name),
        ("origin".to_owned(), Value::opt_string(origin)),
    ])
}

/// The identity a response carries; null when it carries none.
fn identity_of(data: Option<proto::ResourceIdentityData>) -> Value {
    match data.and_then(|d| d.identity_data) {
        Some(value) => msgpack::decode(&value.msgpack, &identity_type()).unwrap(),
        None => Value::null(),
    }
}

#[tokio::test]
async fn get_resource_identity_schemas_serves_each_declared_schema() {
    let response = server()
        .get_resource_identity_schemas(Request::new(Default::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(
        response.diagnostics.is_empty(),
        "{:?}",
        response.diagnostics
    );
    let schema = &response.identity_schemas["test_located"];
    assert_eq!(schema.version, 1);
    let attributes: Vec<_> = schema
        .identity_attributes
        .iter()
        .map(|a| {
            (
                a.name.as_str(),
                String::from_utf8(a.r#type.clone()).unwrap(),
                a.required_for_import,
                a.optional_for_import,
                a.description.as_str(),
            )
        })
        .collect();
    assert_eq!(
        attributes,
        [
            (
                "name",
                "\"string\"".to_owned(),
                true,
                false,
                "The object's name."
            ),
            (
                "origin",
                "\"string\"".to_owned(),
                false,
                true,
                "Where it was imported from."
            ),
        ]
    );
    // A provider without identities answers with none, not an error.
    let none = ProviderServer::new(&Offers::default())
        .get_resource_identity_schemas(Request::new(Default::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(none.identity_schemas.is_empty() && none.diagnostics.is_empty());
}

/// ReadResource fills in the identity of state stored without one, and
/// keeps the one Terraform holds.
#[tokio::test]
async fn read_resource_backfills_and_keeps_the_identity() {
    let server = server();
    let state = Located::state("a", "1");
    for (current, expected) in [
        (Value::null(), identity(Value::string("a"), None)),
        (
            identity(Value::string("a"), Some("id a")),
            identity(Value::string("a"), Some("id a")),
        ),
    ] {
        let response = server
            .read_resource(Request::new(proto::read_resource::Request {
                type_name: "test_located".into(),
                current_state: wire(&state, &state_type()),
                current_identity: (!current.is_null())
                    .then(|| identity_wire(&current))
                    .flatten(),
                private: b"kept".to_vec(),
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(
            response.diagnostics.is_empty(),
            "{:?}",
            response.diagnostics
        );
        assert_eq!(identity_of(response.new_identity), expected);
        assert_eq!(response.private, b"kept");
    }
}

/// The planned identity: the prior one for an update, the new object's for
/// a create (unknown where its state is) and for the second plan of a
/// replacement, none for a destroy; apply returns the planned one, known.
#[tokio::test]
async fn plan_and_apply_carry_the_identity() {
    let server = server();
    let plan = |prior: Value, proposed: Value, prior_identity: Value| {
        let server = &server;
        async move {
            server
                .plan_resource_change(Request::new(proto::plan_resource_change::Request {
                    type_name: "test_located".into(),
                    prior_state: wire(&prior, &state_type()),
                    proposed_new_state: wire(&proposed, &state_type()),
                    config: wire(&proposed, &state_type()),
                    prior_identity: (!prior_identity.is_null())
                        .then(|| identity_wire(&prior_identity))
                        .flatten(),
                    ..Default::default()
                }))
                .await
                .unwrap()
                .into_inner()
        }
    };
    let imported = identity(Value::string("a"), Some("id a"));
    let (a1, a2) = (Located::state("a", "1"), Located::state("a", "2"));
    let unknown_name = Value::object([
        ("name".to_owned(), Value::unknown()),
        ("size".to_owned(), Value::string("1")),
    ]);
    for (prior, proposed, prior_identity, expected) in [
        (a1.clone(), a2.clone(), imported.clone(), imported.clone()),
        (
            a1.clone(),
            a2.clone(),
            Value::null(),
            identity(Value::string("a"), None),
        ),
        (
            Value::null(),
            a1.clone(),
            Value::null(),
            identity(Value::string("a"), None),
        ),
        (
            Value::null(),
            unknown_name,
            Value::null(),
            identity(Value::unknown(), None),
        ),
        // The second plan of a replacement: the identity handed over is
        // the replaced object's.
        (
            Value::null(),
            Located::state("b", "1"),
            imported.clone(),
            identity(Value::string("b"), None),
        ),
        (a1.clone(), Value::null(), imported.clone(), Value::null()),
    ] {
        let response = plan(prior.clone(), proposed.clone(), prior_identity).await;
        assert!(
            response.diagnostics.is_empty(),
            "{:?}",
            response.diagnostics
        );
        assert_eq!(
            identity_of(response.planned_identity),
            expected,
            "{proposed:?}"
        );
    }
    let planned = plan(a1.clone(), a2.clone(), imported.clone()).await;
    let apply = |planned_state, planned_identity| {
        server.apply_resource_change(Request::new(proto::apply_resource_change::Request {
            type_name: "test_located".into(),
            prior_state: wire(&a1, &state_type()),
            planned_state,
            config: wire(&a2, &state_type()),
            planned_identity,
            ..Default::default()
        }))
    };
    let applied = apply(planned.planned_state, planned.planned_identity)
        .await
        .unwrap()
        .into_inner();
    assert!(applied.diagnostics.is_empty(), "{:?}", applied.diagnostics);
    assert_eq!(identity_of(applied.new_identity), imported);
    let deleted = apply(
        wire(&Value::null(), &state_type()),
        identity_wire(&imported),
    )
    .await
    .unwrap()
    .into_inner();
    assert!(deleted.diagnostics.is_empty(), "{:?}", deleted.diagnostics);
    assert_eq!(identity_of(deleted.new_identity), Value::null());
}

/// An import by ID and one by the identity it returned give the same
/// object and identity; an identity without what is required for import is
/// an error on that attribute.
#[tokio::test]
async fn import_by_id_and_by_identity_return_the_identity() {
    let server = server();
    let import = |id: &str, identity: Option<proto::ResourceIdentityData>| {
        server.import_resource_state(Request::new(proto::import_resource_state::Request {
            type_name: "test_located".into(),
            id: id.into(),
            identity,
            ..Default::default()
        }))
    };
    let by_id = import("a", None).await.unwrap().into_inner();
    assert!(by_id.diagnostics.is_empty(), "{:?}", by_id.diagnostics);
    let [imported] = by_id.imported_resources.as_slice() else {
        panic!("{:?}", by_id.imported_resources)
    };
    let expected = identity(Value::string("a"), Some("id a"));
    assert_eq!(identity_of(imported.identity.clone()), expected);
    let by_identity = import("", imported.identity.clone())
        .await
        .unwrap()
        .into_inner();
    assert!(
        by_identity.diagnostics.is_empty(),
        "{:?}",
        by_identity.diagnostics
    );
    assert_eq!(by_identity.imported_resources, by_id.imported_resources);
    let missing = import("", identity_wire(&identity(Value::null(), Some("x"))))
        .await
        .unwrap()
        .into_inner();
    assert!(missing.imported_resources.is_empty());
    let error = &missing.diagnostics[0];
    assert_eq!(error.summary, "Missing identity attribute");
    assert_eq!(
        error.attribute.as_ref().unwrap().steps[0].selector,
        Some(proto::attribute_path::step::Selector::AttributeName(
            "name".into()
        ))
    );
}

/// A resource type without identities refuses an import by identity and
/// an identity upgrade, and carries no identity.
#[tokio::test]
async fn a_type_without_identities_has_none() {
    let server = ProviderServer::new(&Offers {
        resources: vec![Arc::new(super::tests::HalfImported)],
        ..Offers::default()
    });
    let response = server
        .import_resource_state(Request::new(proto::import_resource_state::Request {
            type_name: "test_half".into(),
            identity: identity_wire(&identity(Value::string("a"), None)),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        response.diagnostics[0].summary,
        "Resource identity not supported"
    );
    let response = server
        .upgrade_resource_identity(Request::new(proto::upgrade_resource_identity::Request {
            type_name: "test_half".into(),
            version: 0,
            raw_identity: Some(proto::RawState {
                json: b"{}".to_vec(),
                ..Default::default()
            }),
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        response.diagnostics[0].summary,
        "Resource identity not supported"
    );
}

/// UpgradeResourceIdentity reads the current version as is, upgrades an
/// older one through the resource, and refuses a newer one.
#[tokio::test]
async fn upgrade_resource_identity_cases() {
    let server = server();
    let upgrade = |version: i64, json: &str| {
        server.upgrade_resource_identity(Request::new(proto::upgrade_resource_identity::Request {
            type_name: "test_located".into(),
            version,
            raw_identity: Some(proto::RawState {
                json: json.as_bytes().to_vec(),
                ..Default::default()
            }),
        }))
    };
    let current = r#"{"name":"a","origin":"id a"}"#;
    for (version, json, expected) in [
        (1, current, identity(Value::string("a"), Some("id a"))),
        (0, r#"{"id":"a"}"#, identity(Value::string("a"), None)),
    ] {
        let response = upgrade(version, json).await.unwrap().into_inner();
        assert!(
            response.diagnostics.is_empty(),
            "{:?}",
            response.diagnostics
        );
        assert_eq!(identity_of(response.upgraded_identity), expected);
    }
    for (version, json, summary) in [
        (2, current, "Identity written by a newer provider"),
        (1, r#"{"name":5}"#, "Unreadable stored identity"),
        (0, r#"{"name":"a"}"#, "Bad identity"),
    ] {
        let response = upgrade(version, json).await.unwrap().into_inner();
        assert!(response.upgraded_identity.is_none());
        assert_eq!(response.diagnostics[0].summary, summary, "{json}");
    }
    assert_eq!(
        json::decode(current.as_bytes(), &identity_type()).unwrap(),
        identity(Value::string("a"), Some("id a"))
    );
}

/// An identity a peer sends is bounded in every RPC that takes one: a 1 MB
/// name, or an origin with a control character, is refused on its attribute
/// by ReadResource, PlanResourceChange, ApplyResourceChange,
/// ImportResourceState and UpgradeResourceIdentity (which once returned the
/// 1 MB name unchanged, as it was stored or through the upgrader), with no
/// identity in the answer and no byte of the value in the diagnostics.
#[tokio::test]
async fn every_rpc_bounds_the_identity_a_peer_sends() {
    use crate::identity::MAX_STRING_BYTES;
    let server = server();
    let huge = format!("SECRET{}", "n".repeat(1 << 20));
    let state = Located::state("a", "1");
    for (bad, attribute) in [
        (identity(Value::string(huge.as_str()), None), "name"),
        (identity(Value::string("a"), Some("SECRET\r\nx")), "origin"),
    ] {
        let wired = identity_wire(&bad);
        let read = server
            .read_resource(Request::new(proto::read_resource::Request {
                type_name: "test_located".into(),
                current_state: wire(&state, &state_type()),
                current_identity: wired.clone(),
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        let plan = server
            .plan_resource_change(Request::new(proto::plan_resource_change::Request {
                type_name: "test_located".into(),
                prior_state: wire(&state, &state_type()),
                proposed_new_state: wire(&state, &state_type()),
                config: wire(&state, &state_type()),
                prior_identity: wired.clone(),
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        let apply = server
            .apply_resource_change(Request::new(proto::apply_resource_change::Request {
                type_name: "test_located".into(),
                prior_state: wire(&state, &state_type()),
                planned_state: wire(&state, &state_type()),
                config: wire(&state, &state_type()),
                planned_identity: wired.clone(),
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        let import = server
            .import_resource_state(Request::new(proto::import_resource_state::Request {
                type_name: "test_located".into(),
                identity: wired.clone(),
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(read.new_identity.is_none());
        assert!(import.imported_resources.is_empty());
        let json = json::encode(&bad, &identity_type()).unwrap();
        let mut stored = vec![(1, json)];
        // The old identity holds only a name: a bad origin cannot be in it.
        if attribute == "name" {
            stored.push((
                0,
                serde_json::json!({ "id": huge }).to_string().into_bytes(),
            ));
        }
        let mut answers = vec![
            ("ReadResource", read.diagnostics),
            ("PlanResourceChange", plan.diagnostics),
            ("ApplyResourceChange", apply.diagnostics),
            ("ImportResourceState", import.diagnostics),
        ];
        for (version, json) in stored {
            let upgraded = server
                .upgrade_resource_identity(Request::new(
                    proto::upgrade_resource_identity::Request {
                        type_name: "test_located".into(),
                        version,
                        raw_identity: Some(proto::RawState {
                            json,
                            ..Default::default()
                        }),
                    },
                ))
                .await
                .unwrap()
                .into_inner();
            assert!(upgraded.upgraded_identity.is_none(), "version {version}");
            answers.push(("UpgradeResourceIdentity", upgraded.diagnostics));
        }
        for (rpc, diagnostics) in answers {
            let [error] = diagnostics.as_slice() else {
                panic!("{rpc}: {diagnostics:?}")
            };
            assert_eq!(error.summary, "Invalid resource identity", "{rpc}");
            assert_eq!(
                error.attribute.as_ref().unwrap().steps[0].selector,
                Some(proto::attribute_path::step::Selector::AttributeName(
                    attribute.into()
                )),
                "{rpc}"
            );
            assert!(!format!("{error:?}").contains("SECRET"), "{rpc}: {error:?}");
        }
    }
    // At the bound, it is taken.
    let at_bound = identity(Value::string("n".repeat(MAX_STRING_BYTES)), None);
    let read = server
        .read_resource(Request::new(proto::read_resource::Request {
            type_name: "test_located".into(),
            current_state: wire(&state, &state_type()),
            current_identity: identity_wire(&at_bound),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert!(read.diagnostics.is_empty(), "{:?}", read.diagnostics);
}

/// A resource whose identity is unknown after apply, or not of its
/// identity type, is a provider bug reported as an error.
#[tokio::test]
async fn an_invalid_identity_is_an_error() {
    struct Broken(Value);
    impl Resource for Broken {
        fn type_name(&self) -> &'static str {
            "test_broken"
        }
        fn schema(&self) -> Schema {
            Located.schema()
        }
        fn apply(&self, _: Change<'_>, planned: &Value, _: &mut Diagnostics) -> Option<Value> {
            Some(planned.clone())
        }
        fn identity_schema(&self) -> Option<IdentitySchema> {
            Located.identity_schema()
        }
        fn identity(&self, _: &Value, _: &Value, _: &mut Diagnostics) -> Value {
            self.0.clone()
        }
    }
    for bad in [
        identity(Value::unknown(), None),
        Value::object([("name".to_owned(), Value::bool(true))]),
        Value::null(),
    ] {
        let server = ProviderServer::new(&Offers {
            resources: vec![Arc::new(Broken(bad.clone()))],
            ..Offers::default()
        });
        let state = Located::state("a", "1");
        let response = server
            .read_resource(Request::new(proto::read_resource::Request {
                type_name: "test_broken".into(),
                current_state: wire(&state, &state_type()),
                ..Default::default()
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(response.new_state.is_none() && response.new_identity.is_none());
        assert_eq!(
            response.diagnostics[0].summary, "Provider bug: invalid resource identity",
            "{bad:?}"
        );
    }
}

/// The RPCs of the proto file the provider does not serve answer
/// UNIMPLEMENTED, which Terraform reads as "not supported".
#[tokio::test]
async fn unserved_rpcs_answer_unimplemented() {
    let server = server();
    let code = server
        .generate_resource_config(Request::new(Default::default()))
        .await
        .map(drop)
        .unwrap_err()
        .code();
    assert_eq!(code, Code::Unimplemented);
}
