//! Where the plugin listens, as go-plugin's server does (server.go
//! `serverListener`): a unix socket, or TCP on 127.0.0.1 in the port range
//! Terraform gives (Windows, where go-plugin always uses TCP). And the stop
//! requests the platform delivers outside gRPC (signals, console events).

use std::future::Future;
#[cfg(unix)]
use std::path::PathBuf;
use std::sync::Arc;

use tokio::net::TcpListener;

use super::stream::Socket;

/// Selects the transport on any platform: `tcp`, or `unix` where unix sockets
/// exist. Unset, the plugin uses go-plugin's choice for the platform.
pub const TRANSPORT_ENV: &str = "CLUSTERPROXY_PLUGIN_TRANSPORT";

/// A bound listener and what the handshake line says about it.
pub enum Listener {
    /// A unix socket, at the path given.
    #[cfg(unix)]
    Unix(tokio::net::UnixListener, PathBuf),
    /// TCP on loopback.
    Tcp(TcpListener),
}

impl Listener {
    /// Binds the transport [`TRANSPORT_ENV`] selects, or the platform's,
    /// with the socket file to remove when the plugin ends (none for TCP).
    pub fn bind() -> Result<(Self, Arc<SocketFile>), String> {
        match std::env::var(TRANSPORT_ENV).as_deref() {
            Ok("tcp") => Ok((bind_tcp()?, Arc::new(SocketFile::default()))),
            #[cfg(unix)]
            Ok("unix") => bind_unix(),
            Ok(other) if !other.is_empty() => Err(format!(
                "{TRANSPORT_ENV}={other:?} is not a transport: use {}.",
                if cfg!(unix) { "tcp or unix" } else { "tcp" }
            )),
            _ => bind_default(),
        }
    }

    /// go-plugin's network name: `unix` or `tcp`.
    pub fn network(&self) -> &'static str {
        match self {
            #[cfg(unix)]
            Self::Unix(..) => "unix",
            Self::Tcp(_) => "tcp",
        }
    }

    /// The address Terraform connects to: the socket path or `127.0.0.1:PORT`.
    pub fn address(&self) -> Result<String, String> {
        match self {
            #[cfg(unix)]
            Self::Unix(_, path) => Ok(path.display().to_string()),
            Self::Tcp(listener) => listener
                .local_addr()
                .map(|a| a.to_string())
                .map_err(|e| e.to_string()),
        }
    }

    /// The next connection, or why none could be taken now.
    pub async fn accept(&self) -> std::io::Result<Box<dyn Socket>> {
        match self {
            #[cfg(unix)]
            Self::Unix(listener, _) => {
                let (socket, _) = listener.accept().await?;
                Ok(Box::new(socket))
            }
            Self::Tcp(listener) => {
                let (socket, _) = listener.accept().await?;
                // gRPC writes small frames and waits for answers: no Nagle
                // delay (Go's default for every TCP connection too).
                let _ = socket.set_nodelay(true);
                Ok(Box::new(socket))
            }
        }
    }
}

/// go-plugin's `serverListener_tcp`: the first free port of
/// `PLUGIN_MIN_PORT..=PLUGIN_MAX_PORT` on 127.0.0.1 (each 0 when unset, so
/// any free port when neither is given).
fn bind_tcp() -> Result<Listener, String> {
    let min = port_bound("PLUGIN_MIN_PORT")?;
    let max = port_bound("PLUGIN_MAX_PORT")?;
    if min > max {
        return Err(format!(
            "PLUGIN_MIN_PORT value of {min} is greater than PLUGIN_MAX_PORT value of {max}"
        ));
    }
    let ports = (min.max(0)..=max.min(i64::from(u16::MAX))).filter_map(|p| u16::try_from(p).ok());
    for port in ports {
        if let Ok(listener) = std::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, port)) {
            listener.set_nonblocking(true).map_err(|e| e.to_string())?;
            return TcpListener::from_std(listener)
                .map(Listener::Tcp)
                .map_err(|e| e.to_string());
        }
    }
    Err(format!(
        "cannot bind a plugin TCP listener on 127.0.0.1 in ports {min}..={max}"
    ))
}

/// A port bound from the environment: a 32-bit integer, 0 when unset or empty.
fn port_bound(name: &str) -> Result<i64, String> {
    match std::env::var(name) {
        Ok(value) if !value.is_empty() => value
            .parse::<i32>()
            .map(i64::from)
            .map_err(|e| format!("cannot get value from {name}: {e}")),
        _ => Ok(0),
    }
}

/// go-plugin's rule: TCP on Windows, a unix socket everywhere else.
#[cfg(unix)]
fn bind_default() -> Result<(Listener, Arc<SocketFile>), String> {
    bind_unix()
}

#[cfg(not(unix))]
fn bind_default() -> Result<(Listener, Arc<SocketFile>), String> {
    Ok((bind_tcp()?, Arc::new(SocketFile::default())))
}

/// A unix socket only its owner can reach, whatever the umask: it is bound
/// in a fresh directory of mode 0700 (so no one else can connect before its
/// own mode is set to 0600) under PLUGIN_UNIX_SOCKET_DIR or the temporary
/// directory.
#[cfg(unix)]
fn bind_unix() -> Result<(Listener, Arc<SocketFile>), String> {
    use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
    let base =
        std::env::var_os("PLUGIN_UNIX_SOCKET_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let nonce: u64 = {
        let mut bytes = [0u8; 8];
        aws_lc_rs::rand::fill(&mut bytes).unwrap_or_default();
        u64::from_le_bytes(bytes)
    };
    let dir = base.join(format!("plugin{}-{nonce:016x}", std::process::id()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join("plugin.sock");
    let file = Arc::new(SocketFile(Some((dir, path.clone()))));
    let listener = tokio::net::UnixListener::bind(&path)
        .map_err(|e| format!("cannot listen on {}: {e}", path.display()))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| format!("cannot restrict {}: {e}", path.display()))?;
    Ok((Listener::Unix(listener, path), file))
}

/// A bound unix socket's directory and file (none over TCP), removed when
/// dropped or by [`SocketFile::remove`]: nothing is left in the socket
/// directory however the plugin ends.
#[derive(Debug, Default)]
pub struct SocketFile(#[cfg(unix)] Option<(PathBuf, PathBuf)>);

impl SocketFile {
    /// Removes the socket and its directory (nothing when already gone).
    pub fn remove(&self) {
        #[cfg(unix)]
        if let Some((dir, path)) = &self.0 {
            let _ = std::fs::remove_file(path);
            let _ = std::fs::remove_dir(dir);
        }
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        self.remove();
    }
}

/// Resolves when the platform asks the plugin to stop: SIGTERM, SIGHUP or
/// SIGQUIT (each ends a Go plugin too), and SIGINT in debug mode. Otherwise
/// SIGINT is ignored, as go-plugin's server does (server.go, "Eat the
/// interrupts"): a terminal's Ctrl-C reaches Terraform too, which stops its
/// plugins over gRPC. SIGUSR1 and SIGUSR2 are ignored, as the Go runtime
/// does when nothing listens for them (runtime/sigtab_linux_generic.go).
/// Registered at once, so a request right after the handshake line is not
/// lost.
#[cfg(unix)]
pub fn stop_requested(debug: bool) -> impl Future<Output = ()> {
    use tokio::signal::unix::{signal, SignalKind};
    let listen = |kinds: &[SignalKind]| {
        kinds
            .iter()
            .filter_map(|&kind| signal(kind).ok())
            .collect::<Vec<_>>()
    };
    let (interrupt, user) = (
        SignalKind::interrupt(),
        [SignalKind::user_defined1(), SignalKind::user_defined2()],
    );
    let mut stop = listen(&[
        SignalKind::terminate(),
        SignalKind::hangup(),
        SignalKind::quit(),
    ]);
    let mut ignored = listen(&user);
    if debug {
        stop.extend(listen(&[interrupt]));
    } else {
        ignored.extend(listen(&[interrupt]));
    }
    async move {
        let mut received = 0u64;
        loop {
            tokio::select! {
                () = any_of(&mut stop) => return,
                () = any_of(&mut ignored) => {
                    received += 1;
                    tracing::trace!(count = received, "plugin received a signal, ignoring");
                }
            }
        }
    }
}

/// Resolves when any of `signals` is received (never when there are none).
#[cfg(unix)]
async fn any_of(signals: &mut [tokio::signal::unix::Signal]) {
    std::future::poll_fn(|cx| {
        for signal in signals.iter_mut() {
            if let std::task::Poll::Ready(Some(())) = signal.poll_recv(cx) {
                return std::task::Poll::Ready(());
            }
        }
        std::task::Poll::Pending
    })
    .await;
}

/// Resolves when the platform asks the plugin to stop: CTRL_BREAK or
/// CTRL_CLOSE, and CTRL_C in debug mode. Otherwise CTRL_C is swallowed, as
/// go-plugin's server does: Terraform receives it too and stops its plugins
/// over gRPC. Registered at once, so a request right after the handshake
/// line is not lost.
#[cfg(windows)]
pub fn stop_requested(debug: bool) -> impl Future<Output = ()> {
    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
    let mut interrupt = ctrl_c().ok();
    let mut brk = ctrl_break().ok();
    let mut close = ctrl_close().ok();
    async move {
        loop {
            tokio::select! {
                Some(()) = async { interrupt.as_mut()?.recv().await } => if debug { return },
                Some(()) = async { brk.as_mut()?.recv().await } => return,
                Some(()) = async { close.as_mut()?.recv().await } => return,
                else => std::future::pending::<()>().await,
            }
        }
    }
}

/// Resolves when the host's end of the plugin's stdout or stderr pipe is
/// closed: go-plugin's client reads both pipes for as long as it lives, and
/// the kernel closes them when it dies, however early (before it connected,
/// in the middle of a TLS handshake). A descriptor that is not a pipe (a
/// terminal, a file, /dev/null) is not watched; with none to watch this
/// never resolves, and the plugin relies on its host's connection alone.
/// One thread blocks in poll(2) with no events requested: POLLERR (the last
/// reader of a pipe left) and POLLHUP are reported all the same, so the
/// watch costs no CPU until then.
#[cfg(unix)]
pub fn host_pipes_closed() -> impl Future<Output = ()> {
    let mut fds: Vec<libc::pollfd> = [libc::STDOUT_FILENO, libc::STDERR_FILENO]
        .into_iter()
        .filter(|&fd| is_pipe(fd))
        .map(|fd| libc::pollfd {
            fd,
            events: 0,
            revents: 0,
        })
        .collect();
    let (sender, receiver) = tokio::sync::oneshot::channel::<()>();
    if !fds.is_empty() {
        let spawned = std::thread::Builder::new()
            .name("host-pipes".to_owned())
            .spawn(move || {
                let closed = libc::POLLERR | libc::POLLHUP | libc::POLLNVAL;
                loop {
                    let count = libc::nfds_t::try_from(fds.len()).unwrap_or(0);
                    // SAFETY: `fds` is a valid array of `count` pollfd.
                    let ready = unsafe { libc::poll(fds.as_mut_ptr(), count, -1) };
                    if ready < 0 {
                        if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                        {
                            continue;
                        }
                        // Nothing can be watched (the sender dropped, the
                        // future waits for ever): the connection tells.
                        return;
                    }
                    if fds.iter().any(|fd| fd.revents & closed != 0) {
                        let _ = sender.send(());
                        return;
                    }
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot watch the host's pipes");
        }
    }
    async move {
        if receiver.await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Whether `fd` is open and a pipe (a FIFO), as go-plugin's hosts give
/// their plugins for stdout and stderr.
#[cfg(unix)]
fn is_pipe(fd: libc::c_int) -> bool {
    // SAFETY: fstat writes into a zeroed stat of the right type.
    unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        libc::fstat(fd, &mut stat) == 0 && stat.st_mode & libc::S_IFMT == libc::S_IFIFO
    }
}

/// Hosts on this platform are watched through their connection alone.
#[cfg(not(unix))]
pub fn host_pipes_closed() -> impl Future<Output = ()> {
    std::future::pending::<()>()
}

/// How many connections may be in their TLS handshake at once: a quarter of
/// the open-file limit, between 4 and 1024, so that the provider's own files
/// (`file:` imports, directory scans) keep their descriptors. The soft limit
/// is raised to the hard one first, as the Go runtime does at the start of
/// every go-plugin server since Go 1.19 (a child it starts, such as this
/// plugin, gets the soft limit back).
pub fn max_pending_handshakes() -> usize {
    const BOUNDS: (usize, usize) = (4, 1024);
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: plain system calls on a valid struct.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return BOUNDS.0;
            }
            if limit.rlim_cur < limit.rlim_max {
                let raised = libc::rlimit {
                    rlim_cur: limit.rlim_max,
                    ..limit
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit = raised;
                }
            }
        }
        usize::try_from(limit.rlim_cur / 4)
            .unwrap_or(BOUNDS.1)
            .clamp(BOUNDS.0, BOUNDS.1)
    }
    #[cfg(not(unix))]
    {
        BOUNDS.1 / 4
    }
}
