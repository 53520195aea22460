//! Cooperative cancellation: the code that runs a long computation (the
//! plugin, for one request) gives it a [`Flag`] through [`scope`]; the
//! computation's loops call [`requested`] and stop early once the flag is
//! set. Scopes nest: a computation stops when the flag of any scope it runs
//! in is set (a request that StopProvider cancels, or whose stream its
//! client dropped, see [`Flag::watching`]). A cancelled computation's
//! result is incomplete: whoever cancelled it discards it.

use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A cancellation flag shared by the requester and the computation.
#[derive(Clone, Default)]
pub struct Flag(Arc<Inner>);

#[derive(Default)]
struct Inner {
    set: AtomicBool,
    /// Also cancelled once this answers true (a stream closed).
    watched: Option<Box<dyn Fn() -> bool + Send + Sync>>,
}

impl fmt::Debug for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Flag")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

impl Flag {
    /// A flag not yet set.
    pub fn new() -> Self {
        Self::default()
    }

    /// A flag that is also set once `gone` answers true: for a computation
    /// whose result goes to a peer that can leave (a stream's client), with
    /// `gone` a cheap look (whether the stream is closed), asked at every
    /// [`requested`].
    pub fn watching(gone: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(Inner {
            set: AtomicBool::new(false),
            watched: Some(Box::new(gone)),
        }))
    }

    /// Asks the computation to stop.
    pub fn cancel(&self) {
        self.0.set.store(true, Ordering::Relaxed);
    }

    /// True once [`Flag::cancel`] was called, or what it watches is gone.
    pub fn is_cancelled(&self) -> bool {
        self.0.set.load(Ordering::Relaxed) || self.0.watched.as_ref().is_some_and(|gone| gone())
    }
}

thread_local! {
    /// The flags of the scopes this thread runs in, outermost first.
    static CURRENT: RefCell<Vec<Flag>> = const { RefCell::new(Vec::new()) };
}

/// Runs `work` on this thread with `flag` as a cancellation flag, beside
/// those of the scopes it already runs in.
pub fn scope<R>(flag: &Flag, work: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|current| current.borrow_mut().pop());
        }
    }
    CURRENT.with(|current| current.borrow_mut().push(flag.clone()));
    let _restore = Restore;
    work()
}

/// True when the computation running on this thread has been cancelled:
/// the flag of one of its scopes is set.
pub fn requested() -> bool {
    CURRENT.with(|current| current.borrow().iter().any(Flag::is_cancelled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_follows_the_flags_of_the_scopes_it_runs_in() {
        let flag = Flag::new();
        assert!(!requested());
        scope(&flag, || {
            assert!(!requested());
            let inner = Flag::new();
            scope(&inner, || {
                assert!(!requested());
                flag.cancel();
                // The outer scope's cancellation reaches the inner work.
                assert!(requested());
            });
            assert!(!inner.is_cancelled());
            assert!(requested());
        });
        assert!(!requested());
        scope(&Flag::new(), || {
            let set = Flag::new();
            scope(&set, || set.cancel());
            // An inner scope's cancellation does not reach the outer work.
            assert!(!requested());
        });
    }

    #[test]
    fn a_watching_flag_is_set_when_what_it_watches_is_gone() {
        let gone = Arc::new(AtomicBool::new(false));
        let flag = {
            let gone = gone.clone();
            Flag::watching(move || gone.load(Ordering::Relaxed))
        };
        scope(&flag, || {
            scope(&Flag::new(), || {
                assert!(!requested());
                gone.store(true, Ordering::Relaxed);
                assert!(requested());
            })
        });
        assert!(flag.is_cancelled());
        assert!(!requested());
    }
}
