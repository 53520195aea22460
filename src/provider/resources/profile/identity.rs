//! The identity of a `clusterproxy_profile` (Terraform >= 1.12): where the
//! profile comes from, never what it holds. Terraform prints identities (in
//! plans, `show -json`, `terraform query`), so an identity carries no
//! password and no artifact content: the profile name, and for an imported
//! profile the import kind, the path of its file as the import gave it and
//! the import ID's cluster facts. A profile imported from `inline:` content
//! has no path in its identity; one created in configuration has its name
//! only, as has state written before identities existed (filled in on the
//! next read, without a diff).

use crate::domain::import::id::{self, Artifact, ImportId};
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::identity::IdentitySchema;
use crate::framework::model::{self, Field, Maybe, Model};
use crate::framework::value::Value;

use super::Inputs;
use crate::provider::convert::{self, SettingsAt};

/// Identity schema version.
const VERSION: i64 = 0;

crate::model! {
    /// The identity of a profile.
    pub struct Identity {
        pub name: Maybe<String> [required("The profile name.")],
        pub kind: Option<String> [optional("For an imported profile, the import kind of its artifact (`systemd`, `capi`...); null for a profile created in configuration.")],
        pub path: Option<String> [optional("For a profile imported from a file, the file's path as the import gave it; null otherwise (content given `inline:` is never part of an identity). An import by identity reads this file.")],
        pub facts: Option<String> [optional("The import ID's cluster facts, as `key=value` pairs joined by `;` in canonical order (e.g. `pod_cidrs=10.244.0.0/16;cloud=aws`); null when it gave none.")],
    }
}

/// The identity schema.
pub fn schema() -> IdentitySchema {
    IdentitySchema::new(VERSION, Identity::attributes())
}

/// The identity of an import by ID: the profile `name` it produced and the
/// source the ID names, without inline content.
pub fn of_import(import: &ImportId, name: &str) -> Value {
    Identity {
        name: Maybe::Known(name.to_owned()),
        kind: Some(import.kind.clone()),
        path: match &import.artifact {
            Artifact::File(path) => Some(path.clone()),
            Artifact::Inline(_) => None,
        },
        facts: import.facts_text(),
    }
    .into_value()
}

/// The identity of the profile whose state (possibly planned, with an
/// unknown name) is `state`: `prior` (the identity Terraform holds) while it
/// names this profile, else the name alone (a profile created in
/// configuration, or state stored without an identity).
pub fn of_state(state: &Value, prior: &Value, diags: &mut Diagnostics) -> Value {
    let name: Maybe<String> = model::attribute(state, Inputs::name, diags);
    let prior_name: Maybe<String> = model::attribute(prior, Identity::name, diags);
    if !prior.is_null() && prior_name == name {
        return prior.clone();
    }
    Identity {
        name,
        ..Identity::default()
    }
    .into_value()
}

/// What an import by `identity` asks for: the import by ID of the file it
/// names, with its kind, facts and name. An identity without kind or path
/// (a profile created in configuration, or imported from inline content)
/// names no file: an error on the missing attribute.
pub fn to_import(identity: &Value, diags: &mut Diagnostics) -> Option<ImportId> {
    let identity = Identity::get(identity, diags)?;
    let name = identity.name.known()?;
    let missing = |attribute: &str, why: &str| {
        Diagnostic::error(
            "Identity names no artifact",
            format!("An import by identity reads the artifact file its `kind` and `path` name; {why} Import it by ID instead."),
        )
        .at(AttributePath::attribute(attribute))
    };
    let Some(kind) = &identity.kind else {
        diags.push(missing(
            Identity::kind,
            "this identity has no `kind`, as a profile created in configuration has none.",
        ));
        return None;
    };
    let Some(path) = &identity.path else {
        diags.push(missing(
            Identity::path,
            "this identity has no `path`, as a profile imported from `inline:` content has none (content is never part of an identity).",
        ));
        return None;
    };
    id::of_file(name, kind, identity.facts.as_deref(), path)
        .map_err(|f| {
            convert::push_findings(&[f], &AttributePath::root(), SettingsAt::Profile, diags)
        })
        .ok()
}
