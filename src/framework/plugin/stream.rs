//! One accepted plugin connection: TLS (normal) or plain (debug mode), and
//! the count of open connections (the plugin stops when its host is gone).
//!
//! Writes are vectored all the way down: HTTP/2 hands over a frame header and
//! its payload (or several frames) in one call, which TLS encrypts as one
//! record and sends with one system call. Without it, every piece would be a
//! record and a system call of its own (three or four per response).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::UnixStream;
use tokio::sync::watch;
use tokio_rustls::server::TlsStream;
use tonic::transport::server::Connected;

/// The open connections: accepted sockets not yet closed.
#[derive(Debug, Clone)]
pub struct Connections(Arc<watch::Sender<usize>>);

impl Default for Connections {
    fn default() -> Self {
        Self(Arc::new(watch::Sender::new(0)))
    }
}

impl Connections {
    /// Counts one accepted socket until the returned guard is dropped.
    pub fn open(&self) -> Open {
        self.0.send_modify(|n| *n += 1);
        Open(self.0.clone())
    }

    /// Resolves once a connection was open and then every connection stayed
    /// closed for `grace` (the host is gone; it keeps one connection for the
    /// plugin's lifetime).
    pub async fn all_gone(&self, grace: Duration) {
        let mut count = self.0.subscribe();
        if count.wait_for(|n| *n > 0).await.is_err() {
            return;
        }
        loop {
            if count.wait_for(|n| *n == 0).await.is_err() {
                return;
            }
            tokio::time::sleep(grace).await;
            if *count.borrow_and_update() == 0 {
                return;
            }
        }
    }
}

/// One open connection, counted in [`Connections`] while it lives.
#[derive(Debug)]
pub struct Open(Arc<watch::Sender<usize>>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n -= 1);
    }
}

/// The transport of a connection.
pub enum Io {
    /// Debug mode: no TLS.
    Plain(UnixStream),
    /// AutoMTLS.
    Tls(Box<TlsStream<UnixStream>>),
}

/// A connection tonic can serve, counted while it is open.
pub struct PluginStream {
    io: Io,
    _open: Open,
}

impl PluginStream {
    /// The connection over `io`, counted by `open`.
    pub fn new(io: Io, open: Open) -> Self {
        Self { io, _open: open }
    }
}

impl Connected for PluginStream {
    type ConnectInfo = ();
    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for PluginStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for PluginStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.io {
            Io::Plain(s) => s.is_write_vectored(),
            Io::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(s) => Pin::new(s).poll_flush(cx),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Io::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
