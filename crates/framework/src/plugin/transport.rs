//! Where the plugin listens, as go-plugin's server does (server.go
//! `serverListener`): a unix socket, or TCP on 127.0.0.1 in the port range
//! Terraform gives (Windows, where go-plugin always uses TCP). And the stop
//! requests the platform delivers outside gRPC (signals, console events).

use std::future::Future;
#[cfg(unix)]
use std::path::PathBuf;

use tokio::net::TcpListener;

use super::stream::Socket;

/// Selects the transport on any platform: `tcp`, or `unix` where unix sockets
/// exist. Unset, the plugin uses go-plugin's choice for the platform.
pub const TRANSPORT_ENV: &str = "CLUSTERPROXY_PLUGIN_TRANSPORT";

/// A bound listener and what the handshake line says about it.
pub enum Listener {
    /// A unix socket; its file is removed when this is dropped.
    #[cfg(unix)]
    Unix(tokio::net::UnixListener, SocketFile),
    /// TCP on loopback.
    Tcp(TcpListener),
}

impl Listener {
    /// Binds the transport [`TRANSPORT_ENV`] selects, or the platform's.
    pub fn bind() -> Result<Self, String> {
        match std::env::var(TRANSPORT_ENV).as_deref() {
            Ok("tcp") => bind_tcp(),
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
            Self::Unix(_, file) => Ok(file.0.display().to_string()),
            Self::Tcp(listener) => listener
                .local_addr()
                .map(|a| a.to_string())
                .map_err(|e| e.to_string()),
        }
    }

    /// The next connection, or `None` once the listener fails.
    pub async fn accept(&self) -> Option<Box<dyn Socket>> {
        match self {
            #[cfg(unix)]
            Self::Unix(listener, _) => {
                let (socket, _) = listener.accept().await.ok()?;
                Some(Box::new(socket))
            }
            Self::Tcp(listener) => {
                let (socket, _) = listener.accept().await.ok()?;
                // gRPC writes small frames and waits for answers: no Nagle
                // delay (Go's default for every TCP connection too).
                let _ = socket.set_nodelay(true);
                Some(Box::new(socket))
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
fn bind_default() -> Result<Listener, String> {
    bind_unix()
}

#[cfg(not(unix))]
fn bind_default() -> Result<Listener, String> {
    bind_tcp()
}

#[cfg(unix)]
fn bind_unix() -> Result<Listener, String> {
    let path = socket_path();
    let listener = tokio::net::UnixListener::bind(&path)
        .map_err(|e| format!("cannot listen on {}: {e}", path.display()))?;
    Ok(Listener::Unix(listener, SocketFile(path)))
}

#[cfg(unix)]
fn socket_path() -> PathBuf {
    let dir =
        std::env::var_os("PLUGIN_UNIX_SOCKET_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
    let nonce: u64 = {
        let mut bytes = [0u8; 8];
        aws_lc_rs::rand::fill(&mut bytes).unwrap_or_default();
        u64::from_le_bytes(bytes)
    };
    dir.join(format!("plugin{}-{nonce:016x}", std::process::id()))
}

/// A bound unix socket's file, removed when dropped: nothing is left in the
/// socket directory however the plugin returns.
#[cfg(unix)]
pub struct SocketFile(PathBuf);

#[cfg(unix)]
impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Resolves when the platform asks the plugin to stop: SIGTERM, and SIGINT in
/// debug mode. Registered at once, so a request right after the handshake
/// line is not lost.
#[cfg(unix)]
pub fn stop_requested(debug: bool) -> impl Future<Output = ()> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut terminate = signal(SignalKind::terminate()).ok();
    let mut interrupt = if debug {
        signal(SignalKind::interrupt()).ok()
    } else {
        None
    };
    async move {
        tokio::select! {
            Some(()) = async { terminate.as_mut()?.recv().await } => {}
            Some(()) = async { interrupt.as_mut()?.recv().await } => {}
            else => std::future::pending().await,
        }
    }
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
