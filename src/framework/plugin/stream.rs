//! One accepted plugin connection: TLS (normal) or plain (debug mode), with
//! its writes gathered until a flush, and the count of open connections (the
//! plugin stops when its host is gone).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, BufWriter, ReadBuf};
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

/// Bytes gathered before they go to the transport. HTTP/2 writes a response
/// frame by frame (headers, data, trailers) and then flushes; TLS would
/// encrypt and send each write as its own record and system call. A write at
/// least this large (a full 16 KiB data frame of a large response) goes
/// straight through instead of being copied once more.
const WRITE_BUFFER: usize = 16 * 1024;

/// The transport with its write buffer.
enum Buffered {
    Plain(BufWriter<UnixStream>),
    Tls(Box<BufWriter<TlsStream<UnixStream>>>),
}

/// A connection tonic can serve, counted while it is open.
pub struct PluginStream {
    io: Buffered,
    _open: Open,
}

impl PluginStream {
    /// The connection over `io`, counted by `open`.
    pub fn new(io: Io, open: Open) -> Self {
        let io = match io {
            Io::Plain(s) => Buffered::Plain(BufWriter::with_capacity(WRITE_BUFFER, s)),
            Io::Tls(s) => Buffered::Tls(Box::new(BufWriter::with_capacity(WRITE_BUFFER, *s))),
        };
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
            Buffered::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Buffered::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
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
            Buffered::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Buffered::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Buffered::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Buffered::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Buffered::Plain(s) => Pin::new(s).poll_flush(cx),
            Buffered::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Buffered::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Buffered::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
