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
            Artifact::File(path) if !is_inline(path) => Some(path.clone()),
            Artifact::File(_) | Artifact::Inline(_) => None,
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
        if refused(prior, diags) {
            return Value::null();
        }
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
    if refused(identity, diags) {
        return None;
    }
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

/// Whether `path` is `inline:` content rather than a file's path (an import
/// ID's `inline:` form given where a path goes).
fn is_inline(path: &str) -> bool {
    path.trim_start().starts_with("inline:")
}

/// Whether `identity`, one Terraform sent, is refused (an error in
/// `diags`, quoting nothing of it): a string over the bound or with a
/// control character ([`IdentitySchema::check_peer`]), or a `path` that
/// holds `inline:` content. Content is never part of an identity (it may
/// hold a password): an identity that holds some was not written by this
/// provider.
fn refused(identity: &Value, diags: &mut Diagnostics) -> bool {
    if !schema().check_peer(identity, diags) {
        return true;
    }
    let inline = identity
        .get_attr(Identity::path)
        .and_then(Value::as_str)
        .is_some_and(is_inline);
    if inline {
        diags.push(
            Diagnostic::error(
                "Invalid resource identity",
                "The identity's `path` holds `inline:` content, not a file's path: content is never part of an identity, and it is not shown. Import the profile by ID instead.",
            )
            .at(AttributePath::attribute(Identity::path)),
        );
    }
    inline
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(name: &str, path: &str) -> Value {
        Identity {
            name: Maybe::Known(name.to_owned()),
            kind: Some("systemd".to_owned()),
            path: Some(path.to_owned()),
            facts: None,
        }
        .into_value()
    }

    fn state(name: &str) -> Value {
        Value::object([(Inputs::name.to_owned(), Value::string(name))])
    }

    /// An identity whose `path` is not a path (`inline:` content with a
    /// password, a control character, more than the bound) is refused on
    /// `path` by an import by identity and by every read, plan and apply,
    /// quoting nothing of it (an import once answered "File not found:
    /// inline:...SECRET...", and a read returned the identity as it came).
    #[test]
    fn an_identity_whose_path_is_not_a_path_is_refused_unquoted() {
        use crate::framework::identity::MAX_STRING_BYTES;
        let inline = "inline:[Service]\nEnvironment=HTTP_PROXY=http://u:SECRET@p:1";
        for path in [
            inline.to_owned(),
            format!("  {inline}"),
            "/etc/SECRET\u{7}.conf".to_owned(),
            format!("/SECRET/{}", "p".repeat(MAX_STRING_BYTES)),
        ] {
            let forged = identity("corp", &path);
            let mut diags = Diagnostics::new();
            assert!(to_import(&forged, &mut diags).is_none(), "{path:?}");
            let mut read = Diagnostics::new();
            let kept = of_state(&state("corp"), &forged, &mut read);
            for diags in [&diags, &read] {
                let [error] = diags.iter().collect::<Vec<_>>()[..] else {
                    panic!("{path:?}: {diags:?}")
                };
                assert_eq!(error.summary, "Invalid resource identity");
                assert_eq!(error.path, Some(AttributePath::attribute(Identity::path)));
                assert!(!format!("{error:?}").contains("SECRET"), "{error:?}");
            }
            assert!(kept.is_null(), "{kept:?}");
        }
        let fine = identity("corp", "/etc/systemd/system/x.conf");
        let mut diags = Diagnostics::new();
        assert_eq!(of_state(&state("corp"), &fine, &mut diags), fine);
        assert!(diags.is_empty(), "{diags:?}");
    }

    /// A file import whose path is spelled as `inline:` content gives an
    /// identity without a path, as an `inline:` import does.
    #[test]
    fn an_import_of_a_file_named_inline_has_no_path_in_its_identity() {
        let import = id::parse("corp=systemd:file:inline:x").unwrap();
        let identity = of_import(&import, "corp");
        assert!(
            identity.get_attr(Identity::path).unwrap().is_null(),
            "{identity:?}"
        );
    }
}
