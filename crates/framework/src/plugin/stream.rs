//! One accepted plugin connection (a unix or TCP socket; TLS, or plain in
//! debug mode), and the count of open authenticated connections (the plugin
//! stops when its host is gone).
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
use tokio::sync::watch;
use tonic::transport::server::Connected;

/// The open connections that completed mTLS (any, in debug mode) and are
/// not closed yet.
#[derive(Debug, Clone)]
pub struct Connections(Arc<watch::Sender<usize>>);

impl Default for Connections {
    fn default() -> Self {
        Self(Arc::new(watch::Sender::new(0)))
    }
}

impl Connections {
    /// Counts one connection until the returned guard is dropped.
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

/// A byte stream a connection runs over: a unix or TCP socket, or TLS on one.
pub trait Socket: AsyncRead + AsyncWrite + Unpin + Send {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send> Socket for T {}

/// A connection tonic can serve, counted while it is open.
pub struct PluginStream {
    io: Box<dyn Socket>,
    _open: Open,
}

impl PluginStream {
    /// The connection over `io`, counted by `open`.
    pub fn new(io: Box<dyn Socket>, open: Open) -> Self {
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
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl AsyncWrite for PluginStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}
