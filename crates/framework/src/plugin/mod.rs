//! go-plugin host: magic cookie, protocol negotiation, the listener (unix
//! socket or loopback TCP), the handshake line, AutoMTLS, and the go-plugin
//! side services.

pub mod services;
mod stream;
mod tls;
mod transport;

use std::io::Write as _;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;

use base64::Engine as _;
use tokio::sync::Notify;
use tokio_stream::Stream;
use tonic::{Request, Response, Status, Streaming};

use services::grpc_broker_server::{GrpcBroker, GrpcBrokerServer};
use services::grpc_controller_server::{GrpcController, GrpcControllerServer};
use services::grpc_stdio_server::{GrpcStdio, GrpcStdioServer};
use services::{ConnInfo, Empty, StdioData};
use stream::{Connections, PluginStream};
pub use transport::TRANSPORT_ENV;

/// Environment variable and value Terraform sets for its plugins.
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
/// The expected magic cookie value.
pub const MAGIC_COOKIE_VALUE: &str =
    "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
/// The plugin protocol version served.
pub const PROTOCOL_VERSION: u32 = 6;

/// Serves `routes` as a Terraform provider plugin and returns the exit code.
/// `--debug` serves without TLS and prints a TF_REATTACH_PROVIDERS line.
pub fn run(provider_address: &str, routes: tonic::service::Routes) -> ExitCode {
    crate::logging::init(provider_address);
    let debug = std::env::args().skip(1).any(|a| a == "--debug");
    if std::env::args()
        .skip(1)
        .any(|a| a == "--version" || a == "-v")
    {
        println!("{}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if !debug {
        if std::env::var(MAGIC_COOKIE_KEY).as_deref() != Ok(MAGIC_COOKIE_VALUE) {
            complain(format_args!(
                "This program is a Terraform provider plugin: Terraform starts it itself.\n\
                 Declare the provider in a Terraform configuration and run terraform, or run it with --debug."
            ));
            return ExitCode::from(1);
        }
        let offered = std::env::var("PLUGIN_PROTOCOL_VERSIONS").unwrap_or_default();
        if !offered
            .split(',')
            .any(|v| v.trim() == PROTOCOL_VERSION.to_string())
        {
            complain(format_args!("This provider speaks plugin protocol {PROTOCOL_VERSION} only; Terraform offered {offered:?}. Use Terraform 1.0 or later."));
            return ExitCode::from(1);
        }
    }
    tune_malloc();
    // One worker: Terraform's concurrent small calls run on it one after the
    // other (each well under a millisecond) instead of waking a second worker
    // to steal them, which cost a quarter of the plugin's CPU in a plan of
    // 500 data sources. Large calls still get a thread of their own
    // (`block_in_place`), so signals and StopProvider are always served.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            complain(format_args!("cannot start the runtime: {error}"));
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(serve(provider_address, routes, debug));
    // A handler that has not reached a cancellation point yet must not hold
    // the process: leave it behind.
    runtime.shutdown_timeout(std::time::Duration::from_millis(50));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            complain(format_args!("plugin error: {error}"));
            ExitCode::from(1)
        }
    }
}

/// Writes `message` to stderr, if it can: a host that died closed the
/// pipe, and there is no one left to tell (`eprintln!` would panic).
fn complain(message: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// glibc malloc tuned for a short-lived plugin. One arena for all threads:
/// glibc otherwise gives every runtime thread an arena of its own, which
/// costs resident memory a plugin that idles between RPCs does not need.
/// Blocks of 128 KiB and more are mapped on their own, at a fixed
/// threshold (glibc's default raises it as large blocks are freed, up to
/// 32 MiB): a large list's copies are given back as soon as they are freed
/// and a growing buffer is remapped rather than copied, so the peak is what
/// is live. Taking them from the heap instead (the threshold at 32 MiB) held
/// freed copies the next ones could not reuse: a 500k-entry
/// `clusterproxy_no_proxy` read peaked 290 MiB over the idle plugin against
/// 181 MiB mapped, for no CPU time measurably saved (benches/peak_rss.rs).
/// Up to 128 MiB of free heap is kept for the next call.
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only adjusts allocator parameters; called before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 << 20);
    }
}

async fn serve(
    provider_address: &str,
    routes: tonic::service::Routes,
    debug: bool,
) -> Result<(), String> {
    // Watched from the first instant: a host that dies before it connects,
    // or in the middle of its TLS handshake, leaves no connection to miss.
    // In debug mode Terraform attaches and detaches at will.
    let pipes_closed = (!debug).then(transport::host_pipes_closed);
    let pipes_closed = async move {
        match pipes_closed {
            Some(closed) => closed.await,
            None => std::future::pending().await,
        }
    };
    // A unix socket's file is removed on every return from here on, early
    // errors included, and on the forced exit after a stop request.
    let (listener, socket_file) = transport::Listener::bind()?;
    let (network, address) = (listener.network(), listener.address()?);
    tracing::debug!(network, address, "plugin listening");
    let tls = if debug {
        None
    } else {
        match std::env::var("PLUGIN_CLIENT_CERT") {
            Ok(pem) if !pem.is_empty() => Some(tls::server_tls(&pem)?),
            _ => None,
        }
    };
    let shutdown = Arc::new(Notify::new());
    let (health, health_service) = tonic_health::server::health_reporter();
    health
        .set_service_status("plugin", tonic_health::ServingStatus::Serving)
        .await;

    // Signal handlers go in before the handshake line: the host may send
    // SIGTERM as soon as it has read it.
    let stop_requested = transport::stop_requested(debug);
    let certificate = tls
        .as_ref()
        .map(|t| base64::engine::general_purpose::STANDARD_NO_PAD.encode(&t.certificate_der))
        .unwrap_or_default();
    if debug {
        let reattach = serde_json::json!({ provider_address: {
            "Protocol": "grpc",
            "ProtocolVersion": PROTOCOL_VERSION,
            "Pid": std::process::id(),
            "Test": true,
            "Addr": { "Network": network, "String": address },
        }});
        println!(
            "Provider started. To attach Terraform, set:\n\n\tTF_REATTACH_PROVIDERS='{reattach}'\n"
        );
    } else {
        let mut stdout = std::io::stdout().lock();
        writeln!(
            stdout,
            "1|{PROTOCOL_VERSION}|{network}|{address}|grpc|{certificate}"
        )
        .map_err(|e| e.to_string())?;
        stdout.flush().map_err(|e| e.to_string())?;
    }

    let acceptor = tls.map(|t| tokio_rustls::TlsAcceptor::from(t.config));
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<PluginStream, std::io::Error>>(16);
    let connections = Connections::default();
    tokio::spawn(accept_loop(listener, acceptor, sender, connections.clone()));
    // Terraform keeps one connection for the plugin's lifetime: when every
    // authenticated connection is gone, so is Terraform (killed, or done
    // without Shutdown).
    // In debug mode Terraform attaches and detaches at will.
    let host_gone = async move {
        if debug {
            std::future::pending::<()>().await;
        }
        connections.all_gone(HOST_GONE_GRACE).await;
    };

    let routes = routes
        .add_service(health_service)
        .add_service(GrpcControllerServer::new(Controller(shutdown.clone())))
        .add_service(GrpcStdioServer::new(Stdio(shutdown.clone())))
        .add_service(GrpcBrokerServer::new(Broker));
    let incoming = tokio_stream::wrappers::ReceiverStream::new(receiver);
    let stop = shutdown.clone();
    let stopping = Arc::new(Notify::new());
    let stopping_now = stopping.clone();
    let forced_exit_file = socket_file.clone();
    let signal = async move {
        tokio::select! {
            () = stop.notified() => {}
            () = stop_requested => {}
            () = host_gone => {}
            () = pipes_closed => {}
        }
        // Cancel the calls in flight, end the open stdio streams, then give
        // the calls a grace period to answer.
        crate::server::guard::cancel_in_flight();
        stop.notify_waiters();
        stopping_now.notify_one();
        // A call that never reaches a cancellation point must not hold the
        // process past the grace period (the host kills it 2 s after
        // Shutdown): exit from a thread of our own, socket file removed.
        std::thread::spawn(move || {
            std::thread::sleep(SHUTDOWN_GRACE + FORCED_EXIT_AFTER_GRACE);
            forced_exit_file.remove();
            std::process::exit(0);
        });
    };
    let serving = tonic::transport::Server::builder()
        .add_routes(routes)
        .serve_with_incoming_shutdown(incoming, signal);
    // A host that keeps its connection open must not keep the plugin alive.
    let grace_over = async {
        stopping.notified().await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    let result = tokio::select! {
        result = serving => result.map_err(|e| e.to_string()),
        () = grace_over => Ok(()),
    };
    // The forced-exit thread holds the file too: remove it now.
    socket_file.remove();
    result
}

/// How long cancelled in-flight calls may take to answer after a stop
/// request or signal.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// How long after [`SHUTDOWN_GRACE`] the process exits even when the runtime
/// cannot return (a call stuck outside cancellation points).
const FORCED_EXIT_AFTER_GRACE: std::time::Duration = std::time::Duration::from_millis(300);

/// How long a connection may take to complete its TLS handshake.
pub const HANDSHAKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The first and the longest pause after a failed accept (EMFILE, ENFILE,
/// ECONNABORTED...), doubling in between, as Go's net/http server does.
const ACCEPT_BACKOFF: (std::time::Duration, std::time::Duration) = (
    std::time::Duration::from_millis(5),
    std::time::Duration::from_secs(1),
);

/// Accepts connections for as long as the plugin serves. Each connection
/// completes mTLS within [`HANDSHAKE_TIMEOUT`] before it is served; only then
/// does it count as the host's (an unauthenticated client can neither stop
/// the plugin nor keep it alive). Handshakes never hold up the accept loop:
/// the newest connection is always taken, and the oldest unfinished
/// handshakes make room ([`Pending`]), so idle or slow connections opened
/// ahead of Terraform's cannot delay it. An accept that fails for want of
/// descriptors evicts the oldest unfinished handshake and tries again; any
/// other failure (a connection reset before it was taken), or none to
/// evict, pauses.
async fn accept_loop(
    listener: transport::Listener,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
    sender: tokio::sync::mpsc::Sender<Result<PluginStream, std::io::Error>>,
    connections: Connections,
) {
    let pending = Pending::new(transport::max_pending_handshakes());
    let mut backoff = None;
    loop {
        let socket = match listener.accept().await {
            Ok(socket) => {
                backoff = None;
                socket
            }
            Err(error) => {
                if out_of_descriptors(&error) && pending.evict_oldest() {
                    // Its socket closes when its task is dropped: let it run.
                    tokio::task::yield_now().await;
                    continue;
                }
                let pause = backoff.map_or(ACCEPT_BACKOFF.0, |p: std::time::Duration| {
                    (p * 2).min(ACCEPT_BACKOFF.1)
                });
                backoff = Some(pause);
                tracing::warn!(%error, ?pause, "accept failed; retrying");
                tokio::time::sleep(pause).await;
                continue;
            }
        };
        let (sender, acceptor, connections) =
            (sender.clone(), acceptor.clone(), connections.clone());
        pending.spawn(|handshaking| async move {
            let io: Box<dyn stream::Socket> = match acceptor {
                None => socket,
                Some(acceptor) => {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(socket)).await {
                        Ok(Ok(tls)) => Box::new(tls),
                        Ok(Err(error)) => {
                            tracing::warn!(%error, "refused a connection");
                            return;
                        }
                        Err(_) => {
                            tracing::warn!("refused a connection: no TLS handshake in time");
                            return;
                        }
                    }
                }
            };
            drop(handshaking);
            let _ = sender
                .send(Ok(PluginStream::new(io, connections.open())))
                .await;
        });
    }
}

/// Whether a failed accept ran out of file descriptors (the process's or
/// the system's): closing an unfinished handshake frees one.
fn out_of_descriptors(error: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
    }
    #[cfg(not(unix))]
    {
        let _ = error;
        false
    }
}

/// The connections still in their TLS handshake, oldest first, at most a
/// bound: a new one beyond it closes the oldest. Terraform connects once and
/// completes its handshake in milliseconds, so it is never the oldest for
/// long; a peer that opens connections and leaves them idle only evicts its
/// own.
struct Pending {
    bound: usize,
    tasks: Arc<std::sync::Mutex<PendingTasks>>,
}

#[derive(Default)]
struct PendingTasks {
    next: u64,
    by_age: std::collections::BTreeMap<u64, tokio::task::AbortHandle>,
}

/// Held by a handshake's task until its handshake ends (or the task is
/// dropped): then it no longer counts in [`Pending`].
struct Handshaking {
    id: u64,
    tasks: Arc<std::sync::Mutex<PendingTasks>>,
}

impl Drop for Handshaking {
    fn drop(&mut self) {
        lock(&self.tasks).by_age.remove(&self.id);
    }
}

fn lock(tasks: &std::sync::Mutex<PendingTasks>) -> std::sync::MutexGuard<'_, PendingTasks> {
    tasks
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Pending {
    fn new(bound: usize) -> Self {
        Self {
            bound: bound.max(1),
            tasks: Arc::default(),
        }
    }

    /// Spawns one connection's handshake task, made by `task` from its
    /// [`Handshaking`] guard, and evicts the oldest beyond the bound.
    fn spawn<F>(&self, task: impl FnOnce(Handshaking) -> F)
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let mut tasks = lock(&self.tasks);
        let id = tasks.next;
        tasks.next += 1;
        let guard = Handshaking {
            id,
            tasks: self.tasks.clone(),
        };
        // Registered before the lock is released, so the guard's removal
        // always comes after the insertion.
        let handle = tokio::spawn(task(guard)).abort_handle();
        tasks.by_age.insert(id, handle);
        while tasks.by_age.len() > self.bound {
            if let Some((_, oldest)) = tasks.by_age.pop_first() {
                oldest.abort();
            }
        }
    }

    /// Closes the oldest unfinished handshake; false when there is none.
    fn evict_oldest(&self) -> bool {
        let oldest = lock(&self.tasks).by_age.pop_first();
        oldest.map(|(_, task)| task.abort()).is_some()
    }
}

/// How long the plugin waits for a new connection once every connection has
/// closed before it concludes its host is gone.
const HOST_GONE_GRACE: std::time::Duration = std::time::Duration::from_millis(200);

struct Controller(Arc<Notify>);

#[tonic::async_trait]
impl GrpcController for Controller {
    async fn shutdown(&self, _request: Request<Empty>) -> Result<Response<Empty>, Status> {
        let notify = self.0.clone();
        // Answer first, then stop: the host waits at most 2 s before killing us.
        crate::server::guard::cancel_in_flight();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            notify.notify_waiters();
            notify.notify_one();
        });
        Ok(Response::new(Empty {}))
    }
}

struct Stdio(Arc<Notify>);

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl GrpcStdio for Stdio {
    type StreamStdioStream = BoxStream<StdioData>;

    async fn stream_stdio(
        &self,
        _request: Request<()>,
    ) -> Result<Response<Self::StreamStdioStream>, Status> {
        // An open stream that never carries data and ends at shutdown.
        let (sender, receiver) = tokio::sync::mpsc::channel(1);
        let stop = self.0.clone();
        tokio::spawn(async move {
            stop.notified().await;
            drop(sender);
        });
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(receiver),
        )))
    }
}

struct Broker;

#[tonic::async_trait]
impl GrpcBroker for Broker {
    type StartStreamStream = BoxStream<ConnInfo>;

    async fn start_stream(
        &self,
        request: Request<Streaming<ConnInfo>>,
    ) -> Result<Response<Self::StartStreamStream>, Status> {
        let mut incoming = request.into_inner();
        // Drain what the host sends; offer nothing back.
        let stream = async move { while let Ok(Some(_)) = incoming.message().await {} };
        tokio::spawn(stream);
        Ok(Response::new(Box::pin(tokio_stream::pending())))
    }
}
