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
pub struct Connections(Arc<watch::Sender<Count>>);

/// What [`Connections`] knows: how many are open, and whether one ever was.
/// Whether one ever was is state, not an event a waiter must witness: a
/// connection can open and close before anyone waits (tonic may hand the
/// connection to its task, which sees the host's close and drops it, before
/// it first polls the shutdown signal that waits here).
#[derive(Debug, Clone, Copy, Default)]
struct Count {
    open: usize,
    seen: bool,
}

impl Default for Connections {
    fn default() -> Self {
        Self(Arc::new(watch::Sender::new(Count::default())))
    }
}

impl Connections {
    /// Counts one connection until the returned guard is dropped.
    pub fn open(&self) -> Open {
        self.0.send_modify(|count| {
            count.open += 1;
            count.seen = true;
        });
        Open(self.0.clone())
    }

    /// Resolves once a connection was open and then every connection stayed
    /// closed for `grace` (the host is gone; it keeps one connection for the
    /// plugin's lifetime), whenever this is first polled.
    pub async fn all_gone(&self, grace: Duration) {
        let mut count = self.0.subscribe();
        loop {
            if count
                .wait_for(|count| count.seen && count.open == 0)
                .await
                .is_err()
            {
                return;
            }
            tokio::time::sleep(grace).await;
            if count.borrow_and_update().open == 0 {
                return;
            }
        }
    }
}

/// One open connection, counted in [`Connections`] while it lives.
#[derive(Debug)]
pub struct Open(Arc<watch::Sender<Count>>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.send_modify(|count| count.open -= 1);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    }

    /// Far longer than any grace below: reaching it means `all_gone` never
    /// resolves.
    const NEVER: Duration = Duration::from_secs(10);

    /// The host's connection opened and closed before anyone waited (tonic
    /// served and dropped it before first polling its shutdown signal): the
    /// host is gone all the same.
    #[test]
    fn a_connection_closed_before_the_wait_began_counts_as_the_host_gone() {
        let connections = Connections::default();
        drop(connections.open());
        let gone = runtime().block_on(async {
            tokio::time::timeout(NEVER, connections.all_gone(Duration::from_millis(1))).await
        });
        assert!(gone.is_ok(), "the closed host connection was missed");
    }

    /// No connection yet is no host gone; a connection that stays open keeps
    /// the plugin; one that closes and is replaced within the grace does too.
    #[test]
    fn the_host_is_gone_only_once_every_connection_stayed_closed() {
        let connections = Connections::default();
        let runtime = runtime();
        let wait = |grace| {
            runtime.block_on(async {
                tokio::time::timeout(Duration::from_millis(200), connections.all_gone(grace)).await
            })
        };
        assert!(wait(Duration::from_millis(1)).is_err(), "gone before any");
        let host = connections.open();
        assert!(wait(Duration::from_millis(1)).is_err(), "gone while open");
        let replaced = {
            let connections = connections.clone();
            runtime.block_on(async move {
                let closing = connections.clone();
                tokio::spawn(async move {
                    drop(host);
                    let next = closing.open();
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    drop(next);
                });
                tokio::time::timeout(
                    Duration::from_millis(300),
                    connections.all_gone(Duration::from_millis(100)),
                )
                .await
            })
        };
        assert!(replaced.is_err(), "a reconnect within the grace ended it");
    }
}
