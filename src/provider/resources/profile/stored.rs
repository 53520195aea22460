//! The stored states of earlier schema versions of `clusterproxy_profile`,
//! read back as the current inputs for `upgrade_state`.

use super::{Computed, Inputs, ProfileResource};
use crate::framework::diagnostics::{Diagnostic, Diagnostics};
use crate::framework::model::{Field, Set};
use crate::framework::resource::Resource;
use crate::framework::value::{json, Type, Value};
use crate::provider::inputs::Settings;

crate::object! {
    /// State version 0: every attribute a string.
    pub struct V0 {
        id: Option<String>,
        name: Option<String>,
        description: Option<String>,
        http_proxy: Option<String>,
        https_proxy: Option<String>,
        username: Option<String>,
        password: Option<String>,
        no_proxy: Option<String>,
        trusted_ca: Option<String>,
    }
}

/// The schema of state versions 2 and 3, read by the upgrader: no
/// `password_wo` and `password_wo_version`, the URLs with credentials in
/// `http_proxy_url` and `https_proxy_url` (dropped: derived from the stored
/// inputs), `settings` without `password_required` and `revision`.
fn v3_type() -> Type {
    let mut ty = ProfileResource.schema().object_type();
    if let Type::Object(attributes) = &mut ty {
        attributes.remove(Inputs::password_wo);
        attributes.remove(Inputs::password_wo_version);
        for url in ["http_proxy_url", "https_proxy_url"] {
            attributes.insert(url.to_owned(), Type::String);
        }
        if let Some(Type::Object(settings)) = attributes.get_mut(Computed::settings) {
            settings.remove(Settings::password_required);
            settings.remove(Settings::revision);
        }
    }
    ty
}

/// The schema of state version 1, read by the upgrader: `no_proxy` a list.
fn v1_type() -> Type {
    let mut ty = v3_type();
    if let Type::Object(attributes) = &mut ty {
        attributes.insert(Inputs::no_proxy.to_owned(), Vec::<String>::ty());
    }
    ty
}

/// Decodes stored JSON against the type of its schema version: a value of
/// the wrong type or an unknown attribute is an error, never dropped.
fn decode_stored(version: i64, raw: &[u8], ty: &Type, diags: &mut Diagnostics) -> Option<Value> {
    json::decode(raw, ty)
        .map_err(|error| {
            diags.push(Diagnostic::error(
                "Cannot upgrade the stored state",
                format!("The clusterproxy_profile state of schema version {version} does not match that version's schema: {error}. Nothing was changed."),
            ))
        })
        .ok()
}

/// The inputs stored in state of schema `version`, and the stored state
/// itself from version 1 on (version 0 had no revision to carry over).
pub(super) fn read(
    version: i64,
    json: &[u8],
    diags: &mut Diagnostics,
) -> Option<(Inputs, Option<Value>)> {
    match version {
        0 => {
            let v0 = V0::get(&decode_stored(0, json, &V0::ty(), diags)?, diags)?;
            let entries: Vec<String> = v0
                .no_proxy
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_owned)
                .collect();
            let inputs = Inputs {
                name: v0.name,
                description: v0.description,
                http_proxy: v0.http_proxy,
                https_proxy: v0.https_proxy,
                username: v0.username,
                password: v0.password,
                password_wo: None,
                password_wo_version: None,
                no_proxy: (!entries.is_empty()).then_some(Set(entries)),
                trusted_ca: v0.trusted_ca,
            };
            Some((inputs, None))
        }
        1 => {
            let v1 = decode_stored(1, json, &v1_type(), diags)?;
            Some((Inputs::get(&v1, diags)?, Some(v1)))
        }
        2 | 3 => {
            let stored = decode_stored(version, json, &v3_type(), diags)?;
            Some((Inputs::get(&stored, diags)?, Some(stored)))
        }
        _ => {
            diags.push(Diagnostic::error(
                "Unknown state version",
                format!("clusterproxy_profile has no schema version {version}."),
            ));
            None
        }
    }
}
