//! Serving HTTPS: a TLS listener for axum that completes handshakes off the
//! accept path, so that one slow or broken client delays nobody else, and
//! answers plain HTTP on a TLS port with a clear 400.

use super::Identity;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};

/// How long a connection may take to finish its TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A listener that completes TLS handshakes off the accept path: one slow
/// or broken client delays nobody else. A connection that starts with
/// plain HTTP gets a `400` saying to use `https://`.
pub struct TlsListener {
    rx: tokio::sync::mpsc::Receiver<(tokio_rustls::server::TlsStream<TcpStream>, SocketAddr)>,
    local: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        // Frees the port at once (the accept task owns the socket).
        self.task.abort();
    }
}

impl TlsListener {
    /// Serve TLS with `config` on an already bound listener.
    pub fn new(
        tcp: TcpListener,
        config: Arc<rustls::ServerConfig>,
    ) -> std::io::Result<TlsListener> {
        let local = tcp.local_addr()?;
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        let acceptor = tokio_rustls::TlsAcceptor::from(config);
        let task = tokio::spawn(async move {
            loop {
                let (sock, peer) = match tcp.accept().await {
                    Ok(x) => x,
                    Err(_) => {
                        // Out of descriptors and the like: let it pass.
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let acceptor = acceptor.clone();
                let tx = tx.clone();
                tokio::spawn(async move {
                    if let Some(s) = handshake(&acceptor, sock).await {
                        let _ = tx.send((s, peer)).await;
                    }
                });
            }
        });
        Ok(TlsListener { rx, local, task })
    }
}

async fn handshake(
    acceptor: &tokio_rustls::TlsAcceptor,
    sock: TcpStream,
) -> Option<tokio_rustls::server::TlsStream<TcpStream>> {
    let _ = sock.set_nodelay(true);
    let mut first = [0u8; 1];
    let peeked = tokio::time::timeout(HANDSHAKE_TIMEOUT, sock.peek(&mut first)).await;
    match peeked {
        Ok(Ok(1)) if first[0] != 0x16 => {
            // Not a TLS handshake record: most likely plain HTTP.
            let _ = tokio::time::timeout(HANDSHAKE_TIMEOUT, refuse_plain(sock)).await;
            None
        }
        Ok(Ok(1)) => tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(sock))
            .await
            .ok()?
            .ok(),
        _ => None,
    }
}

/// Answer a plain-HTTP request with a 400 that says to use `https://`.
/// The request is read first (and what follows drained until the client
/// closes): closing a socket with unread input resets the connection,
/// and the client could lose the answer.
async fn refuse_plain(mut sock: TcpStream) -> std::io::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        let n = sock.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let body = "this port serves HTTPS: use an https:// URL\n";
    let msg = format!(
        "HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    sock.write_all(msg.as_bytes()).await?;
    sock.shutdown().await?;
    while sock.read(&mut buf).await? > 0 {}
    Ok(())
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.rx.recv().await {
            Some(x) => x,
            // The accept task never ends on its own.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.local)
    }
}

/// Serve `app` on `tcp` until `shutdown` resolves: over TLS with
/// `identity`, plain HTTP without.
pub async fn serve(
    tcp: TcpListener,
    identity: Option<&Identity>,
    app: axum::Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    match identity {
        None => axum::serve(tcp, app)
            .with_graceful_shutdown(shutdown)
            .await
            .map_err(|e| e.to_string()),
        Some(id) => {
            let l = TlsListener::new(tcp, id.server.clone()).map_err(|e| e.to_string())?;
            axum::serve(l, app)
                .with_graceful_shutdown(shutdown)
                .await
                .map_err(|e| e.to_string())
        }
    }
}
