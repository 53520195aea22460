//! What every RPC runs under, in one place: a tracing span named as
//! terraform-plugin-go names its fields (`tf_rpc`, `tf_req_id`,
//! `tf_resource_type`, ...), timing, a panic guard that turns a bug into an
//! error diagnostic, and a cancellation flag [`cancel_in_flight`] sets.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crate::diagnostics::{Diagnostic, Diagnostics};
use clusterproxy_cancel as cancel;

/// The cancellation flags of the requests in flight, by request id.
static IN_FLIGHT: Mutex<BTreeMap<u64, cancel::Flag>> = Mutex::new(BTreeMap::new());

/// The id of the next request (logged as `tf_req_id`).
static NEXT_REQUEST_ID: AtomicU64 = AtomicU64::new(1);

/// Cancels every request in flight (StopProvider, a stop signal, the host
/// gone): each stops at its next cancellation point and answers with an
/// error diagnostic. Requests that arrive later run normally.
pub fn cancel_in_flight() {
    let in_flight = IN_FLIGHT.lock().unwrap_or_else(PoisonError::into_inner);
    for flag in in_flight.values() {
        flag.cancel();
    }
}

/// A request's cancellation flag, in flight from its creation until it is
/// dropped: a request whose body runs later than its RPC is received (a
/// ListResource stream's, on a thread of its own) registers when it is
/// received, so that a StopProvider between the two reaches it too.
pub struct InFlight {
    id: u64,
    flag: cancel::Flag,
}

impl InFlight {
    /// A new request's flag, in flight from now.
    pub fn register() -> Self {
        let id = NEXT_REQUEST_ID.fetch_add(1, Ordering::Relaxed);
        let flag = cancel::Flag::new();
        IN_FLIGHT
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, flag.clone());
        Self { id, flag }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        IN_FLIGHT
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

/// What an RPC is about, logged as terraform-plugin-go names it
/// (`tf_resource_type`, `tf_data_source_type`, `tf_function_name`).
#[derive(Clone, Copy)]
pub enum Subject<'a> {
    /// The provider itself.
    Provider,
    /// A managed resource type.
    Resource(&'a str),
    /// A data source type.
    DataSource(&'a str),
    /// A data source type whose read runs long whatever its request's size
    /// ([`DataSource::runs_long`](crate::data_source::DataSource::runs_long)),
    /// logged as a data source.
    LongDataSource(&'a str),
    /// A provider function.
    Function(&'a str),
}

/// Whether [`cancel_in_flight`] reaches an RPC.
enum Cancel {
    /// The RPC stops when its flag, in flight, is cancelled, its result
    /// discarded.
    From(InFlight),
    /// The RPC always completes (StopProvider itself).
    Never,
}

/// Runs one RPC body with its span, timing, panic guard and cancellation: a
/// cancelled body's result is discarded. Returns the body's result (`None`
/// after a panic or a cancellation) and the diagnostics.
///
/// `request_bytes` is the size of the request: bodies of small requests run
/// on the runtime's worker, larger ones, and every resource's, are handed a
/// thread of their own ([`runs_inline`]).
pub fn run<T>(
    rpc: &'static str,
    subject: Subject<'_>,
    request_bytes: usize,
    body: impl FnOnce(&mut Diagnostics) -> T,
) -> (Option<T>, Diagnostics) {
    guarded(
        rpc,
        subject,
        Cancel::From(InFlight::register()),
        request_bytes,
        body,
    )
}

/// [`run`] for a request registered in flight when it was received
/// ([`InFlight`]).
pub fn run_registered<T>(
    rpc: &'static str,
    subject: Subject<'_>,
    request_bytes: usize,
    in_flight: InFlight,
    body: impl FnOnce(&mut Diagnostics) -> T,
) -> (Option<T>, Diagnostics) {
    guarded(rpc, subject, Cancel::From(in_flight), request_bytes, body)
}

/// [`run`] for an RPC that [`cancel_in_flight`] does not reach
/// (StopProvider itself).
pub fn run_to_completion<T>(
    rpc: &'static str,
    subject: Subject<'_>,
    request_bytes: usize,
    body: impl FnOnce(&mut Diagnostics) -> T,
) -> (Option<T>, Diagnostics) {
    guarded(rpc, subject, Cancel::Never, request_bytes, body)
}

/// Runs `handler`, a unary RPC's handler (whose body runs under [`run`]),
/// where [`run`] places a body of `subject` and `request_bytes`: a small
/// request's on this worker, as [`run`] does, any other on a thread of its
/// own, awaited, so that a call its client drops (the client reset the
/// stream or closed its connection, and the RPC's future is dropped)
/// cancels the computation at once, as a dropped ListResource stream
/// cancels its listing.
pub async fn abandonable<R: Send + 'static>(
    subject: Subject<'_>,
    request_bytes: usize,
    handler: impl FnOnce() -> R + Send + 'static,
) -> R {
    if runs_inline(subject, request_bytes) {
        return handler();
    }
    let abandoned = CancelOnDrop(cancel::Flag::new());
    let flag = abandoned.0.clone();
    let ran = tokio::task::spawn_blocking(move || cancel::scope(&flag, handler)).await;
    drop(abandoned);
    ran.unwrap_or_else(|failed| std::panic::resume_unwind(failed.into_panic()))
}

/// Cancels its flag when dropped: held by the future that awaits a
/// computation, so that dropping the future cancels the computation.
struct CancelOnDrop(cancel::Flag);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Requests up to this size run on the worker that received them: their
/// work takes well under a millisecond, less than handing the worker's other
/// tasks to another thread would cost (a plan reads hundreds of small data
/// sources). Larger ones run under `block_in_place` (those of a handler
/// [`abandonable`] places, on a thread of its own), so that signals,
/// StopProvider and other connections are served while they compute.
pub const INLINE_LIMIT: usize = 16 * 1024;

/// Whether a body runs on the worker that received it: a small request's,
/// except a resource's or a long data source read's. A managed or ephemeral
/// resource may be slow whatever its request's size (a password verifier
/// is deliberately slow, a proxy check waits on the network), as may a
/// data source that says so (a walk of a directory), and there are few of
/// them in a plan, so they always get a thread of their own.
fn runs_inline(subject: Subject<'_>, request_bytes: usize) -> bool {
    request_bytes <= INLINE_LIMIT
        && !matches!(subject, Subject::Resource(_) | Subject::LongDataSource(_))
}

fn guarded<T>(
    rpc: &'static str,
    subject: Subject<'_>,
    cancel: Cancel,
    request_bytes: usize,
    body: impl FnOnce(&mut Diagnostics) -> T,
) -> (Option<T>, Diagnostics) {
    let (request_id, flag) = match &cancel {
        Cancel::From(in_flight) => (in_flight.id, in_flight.flag.clone()),
        Cancel::Never => (
            NEXT_REQUEST_ID.fetch_add(1, Ordering::Relaxed),
            cancel::Flag::new(),
        ),
    };
    let span = match subject {
        Subject::Provider => tracing::debug_span!("rpc", tf_rpc = rpc, tf_req_id = request_id),
        Subject::Resource(name) => tracing::debug_span!(
            "rpc",
            tf_rpc = rpc,
            tf_req_id = request_id,
            tf_resource_type = name
        ),
        Subject::DataSource(name) | Subject::LongDataSource(name) => tracing::debug_span!(
            "rpc",
            tf_rpc = rpc,
            tf_req_id = request_id,
            tf_data_source_type = name
        ),
        Subject::Function(name) => tracing::debug_span!(
            "rpc",
            tf_rpc = rpc,
            tf_req_id = request_id,
            tf_function_name = name
        ),
    };
    let _entered = span.enter();
    let started = Instant::now();
    tracing::debug!("received request");
    let mut diags = Diagnostics::new();
    let work = || {
        catch_unwind(AssertUnwindSafe(|| {
            cancel::scope(&flag, || body(&mut diags))
        }))
    };
    let result = if runs_inline(subject, request_bytes) {
        work()
    } else {
        blocking(work)
    };
    drop(cancel);
    let result = match result {
        Ok(_) if flag.is_cancelled() => {
            diags = Diagnostics::new();
            diags.push(Diagnostic::error(
                "Provider stopped",
                format!("The provider was asked to stop (StopProvider, a signal, or Terraform closed its connection) while handling {rpc}; the request was cancelled."),
            ));
            None
        }
        Ok(value) => Some(value),
        Err(_) => {
            diags.push(Diagnostic::error(
                "Provider internal error",
                format!("The provider failed while handling {rpc}. Please report this issue to the provider developers."),
            ));
            None
        }
    };
    tracing::debug!(
        tf_req_duration_ms = started.elapsed().as_millis() as u64,
        diagnostics = diags.iter().count(),
        "served request"
    );
    (result, diags)
}

/// Runs `work` on this thread; inside a multi-threaded runtime the worker
/// hands its other tasks (signals, other connections) to another thread first.
fn blocking<R>(work: impl FnOnce() -> R) -> R {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}
