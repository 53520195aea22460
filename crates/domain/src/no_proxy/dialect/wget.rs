//! GNU wget >= 1.20 (`sepstring` and `sufmatch`).

use std::borrow::Cow;

use super::client::{env_forms, Client, ClientTraits};
use super::shared::{lowercase, split_at, Case, Pending};
use crate::no_proxy::destination::Destination;
use crate::no_proxy::entry::{Entry, Host};
use crate::no_proxy::forms::{Forms, Remark};

/// GNU wget.
pub(super) struct Wget;

impl Client for Wget {
    fn traits(&self) -> &'static ClientTraits {
        &TRAITS
    }

    fn refuses(&self, destination: &Destination) -> bool {
        // wget rejects zone IDs.
        destination.zone().is_some()
    }

    fn forms<'m>(&self, entry: &'m Entry, text: &'m str, out: &mut Forms<'m>) -> Option<Remark> {
        if entry.host == Host::Any {
            return Some(Remark::Own(NO_BYPASS_ALL));
        }
        env_forms(self, entry, text, out)
    }
}

/// What the client always answers: where it differs from [`ClientTraits::open`].
const TRAITS: ClientTraits = ClientTraits {
    in_default_set: true,
    understands_any: false,
    supports_ports: false,
    ..ClientTraits::open("wget", "GNU wget 1.21", direct)
};

/// GNU wget `sepstring` and `sufmatch`: the value splits at commas, blanks after
/// a comma skipped (the first entry keeps its leading blanks, every entry its
/// trailing ones, empty entries stay); each entry matches the host (lowercase
/// punycode, a trailing dot kept) exactly, as a dot-bounded suffix, or (with a
/// leading dot) as a plain suffix; so an empty entry matches every host written
/// with a trailing dot.
fn direct(list: &str, ds: &[&Destination]) -> Vec<bool> {
    if list.is_empty() {
        return vec![false; ds.len()];
    }
    let hosts: Vec<Cow<str>> = ds.iter().map(|d| ascii_lowercase_host(d)).collect();
    let c_isspace = |c: char| matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r');
    let case = Case::of(list);
    let mut pending = Pending::new(vec![false; ds.len()]);
    for (n, entry) in split_at(list, b',').enumerate() {
        if pending.done() {
            break;
        }
        let entry = if n == 0 {
            entry
        } else {
            entry.trim_start_matches(c_isspace)
        };
        let entry = case.lower(entry);
        pending.mark(|i| {
            let host = &hosts[i];
            if entry.len() > host.len() || !host.ends_with(&*entry) {
                return false;
            }
            let k = host.len() - entry.len();
            k == 0 || entry.starts_with('.') || host.as_bytes()[k - 1] == b'.'
        });
    }
    pending.finish()
}

/// The host as wget sees it: lowercase, Unicode names in punycode, a trailing
/// dot kept, IPv6 as written (no brackets).
fn ascii_lowercase_host(d: &Destination) -> Cow<'_, str> {
    if d.written.is_ascii() {
        return lowercase(&d.written);
    }
    Cow::Owned(idna::domain_to_ascii(&d.written).unwrap_or_else(|_| d.written.to_lowercase()))
}

/// wget has no entry for every host.
const NO_BYPASS_ALL: &str = "wget cannot bypass every host; the entry is left out.";
