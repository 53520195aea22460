//! One accepted plugin connection: TLS (normal) or plain (debug mode).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::UnixStream;
use tokio_rustls::server::TlsStream;
use tonic::transport::server::Connected;

/// A connection tonic can serve.
pub enum PluginStream {
    /// Debug mode: no TLS.
    Plain(UnixStream),
    /// AutoMTLS.
    Tls(Box<TlsStream<UnixStream>>),
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
        match self.get_mut() {
            PluginStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            PluginStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for PluginStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            PluginStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            PluginStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            PluginStream::Plain(s) => Pin::new(s).poll_flush(cx),
            PluginStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            PluginStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            PluginStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
