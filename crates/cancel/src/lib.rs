//! Cooperative cancellation: the code that runs a long computation (the
//! plugin, for one request) gives it a [`Flag`] through [`scope`]; the
//! computation's loops call [`requested`] and stop early once the flag is
//! set. A cancelled computation's result is incomplete: whoever cancelled it
//! discards it.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A cancellation flag shared by the requester and the computation.
#[derive(Debug, Clone, Default)]
pub struct Flag(Arc<AtomicBool>);

impl Flag {
    /// A flag not yet set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the computation to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once [`Flag::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Flag>> = const { RefCell::new(None) };
}

/// Runs `work` on this thread with `flag` as its cancellation flag.
pub fn scope<R>(flag: &Flag, work: impl FnOnce() -> R) -> R {
    struct Restore(Option<Flag>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|current| *current.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(CURRENT.with(|current| current.replace(Some(flag.clone()))));
    work()
}

/// True when the computation running on this thread has been cancelled.
pub fn requested() -> bool {
    CURRENT.with(|current| current.borrow().as_ref().is_some_and(Flag::is_cancelled))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_follows_the_flag_of_the_scope_only() {
        let flag = Flag::new();
        assert!(!requested());
        scope(&flag, || {
            assert!(!requested());
            flag.cancel();
            assert!(requested());
            scope(&Flag::new(), || assert!(!requested()));
            assert!(requested());
        });
        assert!(!requested());
    }
}
