//! The test tier a run is in, from `CLUSTERPROXY_TEST_TIER`: the one home
//! of what each tier runs beyond the one below it.
//!
//! - `ci` (the default; `make test`, what CI runs): every check, once. A
//!   case about what the provider renders or diagnoses runs on the current
//!   Terraform only; the cases about how Terraform plans, stores, refreshes
//!   and imports run on every version.
//! - `full` (`make test-full`): also every rendering case on every
//!   Terraform version.
//! - `soak` (`make soak`): `full`, and the cases that repeat a run to catch
//!   what happens only now and then repeat it many times.

/// A test tier, from the smallest to the largest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// Every check once, a rendering on the current Terraform.
    Ci,
    /// Every rendering on every Terraform too.
    Full,
    /// `Full`, with the repeated cases repeated many times.
    Soak,
}

/// The tier of this run; panics naming the variable on a value it does
/// not know, so that a misspelt tier never runs less than asked.
pub fn tier() -> Tier {
    match std::env::var("CLUSTERPROXY_TEST_TIER").as_deref() {
        Err(_) | Ok("") | Ok("ci") => Tier::Ci,
        Ok("full") => Tier::Full,
        Ok("soak") => Tier::Soak,
        Ok(other) => panic!("CLUSTERPROXY_TEST_TIER={other:?}: use ci (the default), full or soak"),
    }
}

/// How many times a repeated case runs: `ci` times below the soak tier,
/// `soak` times in it.
pub fn repetitions(ci: usize, soak: usize) -> usize {
    match tier() {
        Tier::Soak => soak,
        Tier::Ci | Tier::Full => ci,
    }
}
