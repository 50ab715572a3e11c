//! TLS for every HTTP connection of the live cluster (rustls, ring).
//!
//! One design for the whole cluster, chosen so that an operator handles a
//! single certificate the way they already handle the cluster secret:
//!
//! * **One cluster certificate.** The master serves with a certificate and
//!   key from PEM files (`--tls-cert`, `--tls-key`) or with a self-signed
//!   pair it generates into its work directory on first start
//!   ([`ensure_self_signed`]: `cert.pem`, `key.pem` with mode 0600; kept for
//!   later starts). Workers serve their block and shuffle endpoints with the
//!   same pair, copied to them beside the secret.
//! * **Pinning inside the cluster.** A process that holds the cluster
//!   certificate trusts exactly that certificate, by its SHA-256
//!   fingerprint, whatever name the peer was reached by ([`Trust::Pin`]):
//!   workers are reached by the address they advertise, which a self-signed
//!   certificate made before they existed cannot name, and whoever holds
//!   the key is a member of the cluster anyway (it comes with the secret).
//!   A handshake still proves possession of the key (the peer's signature is
//!   checked), so a copied certificate alone gets nowhere.
//! * **Clients** pin the fingerprint the master prints
//!   (`--tls-fingerprint SHA256:...`), or trust roots from a PEM file
//!   (`--tls-ca`) with the usual name checks ([`Trust::Roots`]): the
//!   self-signed certificate names `localhost`, loopback, the listen
//!   address, the host name and every `--tls-san`.
//!
//! Servers use [`serve`] (`tls/server.rs`: handshakes beside the accept loop,
//! a clear answer to plain HTTP on a TLS port).
//!
//! Plain HTTP stays for loopback (tests, `mrsched local`); beyond loopback
//! a server without TLS and a client sending a token or the secret over
//! plain HTTP are refused unless told `--insecure` ([`check_listen`],
//! [`check_plain_url`]).

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

mod server;
pub use server::{serve, TlsListener};

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A certificate's SHA-256 digest (of its DER encoding), written
/// `SHA256:` and 64 hex digits; `openssl x509 -noout -fingerprint -sha256`
/// prints the same digits with colons, which are accepted too.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; 32]);

impl Fingerprint {
    /// The fingerprint of a DER certificate.
    pub fn of(der: &[u8]) -> Fingerprint {
        let d = ring::digest::digest(&ring::digest::SHA256, der);
        let mut b = [0u8; 32];
        b.copy_from_slice(d.as_ref());
        Fingerprint(b)
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SHA256:")?;
        for x in self.0 {
            write!(f, "{x:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Fingerprint {
    type Err = String;
    fn from_str(s: &str) -> Result<Fingerprint, String> {
        let bad = || {
            format!(
                "bad certificate fingerprint `{s}`: expected SHA256: and 64 hex digits (what the master prints at start)"
            )
        };
        let t = s.trim();
        let body = match t.split_once(':') {
            Some((p, rest)) if p.eq_ignore_ascii_case("sha256") => rest,
            _ => return Err(bad()),
        };
        let hex: Vec<u8> = body.bytes().filter(|&c| c != b':').collect();
        if hex.len() != 64 {
            return Err(bad());
        }
        let mut out = [0u8; 32];
        for (i, pair) in hex.chunks(2).enumerate() {
            let digits = std::str::from_utf8(pair).map_err(|_| bad())?;
            out[i] = u8::from_str_radix(digits, 16).map_err(|_| bad())?;
        }
        Ok(Fingerprint(out))
    }
}

/// A certificate chain and key a server presents.
#[derive(Clone)]
pub struct Identity {
    /// The rustls configuration serving with them.
    pub server: Arc<rustls::ServerConfig>,
    /// The fingerprint of the leaf certificate.
    pub fingerprint: Fingerprint,
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Identity({})", self.fingerprint)
    }
}

impl Identity {
    /// Load a certificate chain and its private key from PEM files. Errors
    /// name the file and what was expected in it.
    pub fn load(cert: &Path, key: &Path) -> Result<Identity, String> {
        let certs = read_certs(cert)?;
        let key_pem = read_file(key, "a PEM private key")?;
        let key_der = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
            format!(
                "{}: expected a PEM private key (-----BEGIN PRIVATE KEY-----, RSA or EC): {e}",
                key.display()
            )
        })?;
        let fingerprint = Fingerprint::of(&certs[0]);
        let server = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(certs, key_der)
            .map_err(|e| {
                format!(
                    "{} and {}: the key does not go with the certificate: {e}",
                    cert.display(),
                    key.display()
                )
            })?;
        Ok(Identity {
            server: Arc::new(server),
            fingerprint,
        })
    }
}

fn read_file(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: cannot read {what}: {e}", path.display()))
}

fn read_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let pem = read_file(path, "PEM certificates")?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: expected PEM certificates: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "{}: expected PEM certificates (-----BEGIN CERTIFICATE-----), found none",
            path.display()
        ));
    }
    Ok(certs)
}

/// How a process verifies the servers it connects to.
#[derive(Clone, Debug)]
pub enum Trust {
    /// Certificates issued by these roots, for the name in the URL.
    Roots(Arc<RootCertStore>),
    /// Exactly the certificates with these fingerprints, whatever the name.
    Pin(Vec<Fingerprint>),
}

impl Trust {
    /// Roots from a PEM file (a CA's certificate, or the cluster's
    /// self-signed certificate itself).
    pub fn roots(path: &Path) -> Result<Trust, String> {
        let mut store = RootCertStore::empty();
        for c in read_certs(path)? {
            store
                .add(c)
                .map_err(|e| format!("{}: not a usable root certificate: {e}", path.display()))?;
        }
        Ok(Trust::Roots(Arc::new(store)))
    }

    /// The rustls client configuration verifying this way.
    pub fn client_config(&self) -> Result<rustls::ClientConfig, String> {
        let b = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?;
        Ok(match self {
            Trust::Roots(r) => b.with_root_certificates(r.clone()).with_no_client_auth(),
            Trust::Pin(pins) => b
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(PinVerifier {
                    pins: pins.clone(),
                    provider: provider(),
                }))
                .with_no_client_auth(),
        })
    }
}

/// What a process serves with and how it verifies the servers it talks to.
#[derive(Clone, Debug, Default)]
pub struct TlsConfig {
    /// Certificate and key of this process's server (`None`: plain HTTP).
    pub identity: Option<Identity>,
    /// How `https://` servers are verified (`None`: `https://` fails).
    pub trust: Option<Trust>,
}

impl TlsConfig {
    /// A server identity whose peers hold the same certificate: they are
    /// trusted by pinning it.
    pub fn cluster(identity: Identity) -> TlsConfig {
        TlsConfig {
            trust: Some(Trust::Pin(vec![identity.fingerprint])),
            identity: Some(identity),
        }
    }

    /// The URL scheme this process serves.
    pub fn scheme(&self) -> &'static str {
        if self.identity.is_some() {
            "https"
        } else {
            "http"
        }
    }

    /// An HTTP client verifying servers with [`TlsConfig::trust`].
    pub fn http_client(&self, timeout: Duration) -> Result<reqwest::Client, String> {
        http_client(self.trust.as_ref(), timeout)
    }
}

/// An HTTP client whose `https://` connections are verified by `trust`
/// (without it, by no root at all: every `https://` server is refused).
pub fn http_client(trust: Option<&Trust>, timeout: Duration) -> Result<reqwest::Client, String> {
    let mut b = reqwest::Client::builder()
        .timeout(timeout)
        // A peer that is gone must not hold a request for the whole
        // timeout (a reducer's fetch from a dead worker, say).
        .connect_timeout(Duration::from_secs(5).min(timeout));
    if let Some(t) = trust {
        b = b.use_preconfigured_tls(t.client_config()?);
    }
    b.build()
        .map_err(|e| format!("cannot build the HTTP client: {}", error_chain(&e)))
}

/// Accepts exactly the pinned certificates; the handshake's signatures are
/// still verified, so the peer must hold the certificate's key.
#[derive(Debug)]
struct PinVerifier {
    pins: Vec<Fingerprint>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for PinVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let got = Fingerprint::of(end_entity);
        if self.pins.contains(&got) {
            Ok(ServerCertVerified::assertion())
        } else {
            let want: Vec<String> = self.pins.iter().map(|p| p.to_string()).collect();
            Err(rustls::Error::General(format!(
                "the server's certificate has fingerprint {got}, not the pinned {}",
                want.join(" or ")
            )))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The self-signed pair of a cluster directory: `dir/cert.pem` and
/// `dir/key.pem`, generated on first call (ECDSA P-256; the key file gets
/// mode 0600) and kept afterwards. Its names: `localhost`, `127.0.0.1`,
/// `::1`, this host's name, `listen`'s address unless it is unspecified,
/// and `extra`. Returns the two paths and whether they were just created.
pub fn ensure_self_signed(
    dir: &Path,
    listen: SocketAddr,
    extra: &[String],
) -> Result<(PathBuf, PathBuf, bool), String> {
    let cert = dir.join("cert.pem");
    let key = dir.join("key.pem");
    match (cert.exists(), key.exists()) {
        (true, true) => return Ok((cert, key, false)),
        (false, false) => {}
        (true, false) | (false, true) => {
            return Err(format!(
                "{} and {} go together: one is missing (remove the other to generate a new pair)",
                cert.display(),
                key.display()
            ))
        }
    }
    let mut names = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
    if let Some(h) = host_name() {
        names.push(h);
    }
    if !listen.ip().is_unspecified() {
        names.push(listen.ip().to_string());
    }
    names.extend(extra.iter().cloned());
    names.dedup();
    let mut params = rcgen::CertificateParams::new(names)
        .map_err(|e| format!("cannot make the certificate's names: {e}"))?;
    params.distinguished_name.push(
        rcgen::DnType::CommonName,
        format!("mrsched cluster {}", &crate::master::random_token()[..12]),
    );
    let pair = rcgen::KeyPair::generate().map_err(|e| format!("cannot generate a key: {e}"))?;
    let signed = params
        .self_signed(&pair)
        .map_err(|e| format!("cannot sign the certificate: {e}"))?;
    write_private(&key, pair.serialize_pem().as_bytes())?;
    std::fs::write(&cert, signed.pem())
        .map_err(|e| format!("cannot write {}: {e}", cert.display()))?;
    Ok((cert, key, true))
}

/// Write a file only its owner can read (mode 0600 from its creation).
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let mut f = o
        .open(path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    f.write_all(bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn host_name() -> Option<String> {
    let h = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let h = h.trim();
    (!h.is_empty() && h.parse::<IpAddr>().is_err()).then(|| h.to_string())
}

/// Refuse to serve plain HTTP beyond loopback unless `insecure`.
pub fn check_listen(
    who: &str,
    listen: SocketAddr,
    tls: bool,
    insecure: bool,
) -> Result<(), String> {
    if tls || insecure || listen.ip().is_loopback() {
        return Ok(());
    }
    Err(format!(
        "{who}: refusing to listen on {listen} (not loopback) without TLS: add --tls-cert FILE --tls-key FILE{}, or --insecure to serve plain HTTP (the cluster secret and tokens then cross the network in clear)",
        if who.contains("master") {
            " (or --tls-self-signed)"
        } else {
            ""
        }
    ))
}

/// Whether `url` is plain `http://` to a host that is not loopback (a
/// name other than `localhost` counts as not loopback).
pub fn is_plain_remote(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let hostport = authority.rsplit('@').next().unwrap_or("");
    let host = if let Some(v6) = hostport.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        hostport.split(':').next().unwrap_or("")
    };
    if host.eq_ignore_ascii_case("localhost") {
        return false;
    }
    !host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Refuse to send `what` (a token, the cluster secret) to a plain-HTTP
/// URL beyond loopback unless `insecure`.
pub fn check_plain_url(url: &str, what: &str, insecure: bool) -> Result<(), String> {
    if insecure || !is_plain_remote(url) {
        return Ok(());
    }
    Err(format!(
        "refusing to send {what} to {url} over plain HTTP (not loopback): use an https:// URL of a master started with TLS, or add --insecure"
    ))
}

/// An error and its sources, `: `-separated (reqwest's own message hides
/// the TLS reason in its sources).
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let m = c.to_string();
        if !s.contains(&m) {
            s.push_str(": ");
            s.push_str(&m);
        }
        cur = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_print_and_parse() {
        let f = Fingerprint::of(b"some certificate");
        let s = f.to_string();
        assert!(s.starts_with("SHA256:") && s.len() == 7 + 64, "{s}");
        assert_eq!(s.parse::<Fingerprint>().unwrap(), f);
        // openssl's form: upper case, colons.
        let colons: Vec<String> = f.0.iter().map(|b| format!("{b:02X}")).collect();
        let o = format!("sha256:{}", colons.join(":"));
        assert_eq!(o.parse::<Fingerprint>().unwrap(), f);
        for bad in ["", "SHA256:", "MD5:00", "SHA256:zz", &s[..s.len() - 1]] {
            let e = bad.parse::<Fingerprint>().unwrap_err();
            assert!(e.contains("expected SHA256: and 64 hex digits"), "{e}");
        }
    }

    #[test]
    fn plain_remote_urls_are_recognised() {
        for u in [
            "http://10.1.2.3:7070",
            "http://example.org",
            "http://[2001:db8::1]:80/x",
            "http://user@10.0.0.1/",
        ] {
            assert!(is_plain_remote(u), "{u}");
            let e = check_plain_url(u, "the token", false).unwrap_err();
            assert!(
                e.contains("refusing to send the token") && e.contains("--insecure"),
                "{e}"
            );
            assert!(check_plain_url(u, "the token", true).is_ok());
        }
        for u in [
            "http://127.0.0.1:7070",
            "http://localhost:7070/",
            "http://[::1]:7070",
            "https://10.1.2.3:7070",
            "http://127.8.9.10",
        ] {
            assert!(!is_plain_remote(u), "{u}");
            assert!(check_plain_url(u, "the token", false).is_ok());
        }
    }

    #[test]
    fn plain_listeners_beyond_loopback_are_refused() {
        let any: SocketAddr = "0.0.0.0:0".parse().unwrap();
        let e = check_listen("mrsched master", any, false, false).unwrap_err();
        assert!(
            e.contains("--tls-self-signed") && e.contains("--insecure"),
            "{e}"
        );
        assert!(check_listen("mrsched master", any, true, false).is_ok());
        assert!(check_listen("mrsched master", any, false, true).is_ok());
        let lo: SocketAddr = "127.0.0.1:0".parse().unwrap();
        assert!(check_listen("mrsched worker", lo, false, false).is_ok());
    }

    #[test]
    fn self_signed_pairs_are_made_once_and_load() {
        let d = tempfile::tempdir().unwrap();
        let listen: SocketAddr = "0.0.0.0:7070".parse().unwrap();
        let (c, k, created) = ensure_self_signed(d.path(), listen, &["m.example".into()]).unwrap();
        assert!(created);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&k).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let id = Identity::load(&c, &k).unwrap();
        let pem = std::fs::read(&c).unwrap();
        let der = CertificateDer::from_pem_slice(&pem).unwrap();
        assert_eq!(id.fingerprint, Fingerprint::of(&der));
        // Kept for later starts.
        let (_, _, again) = ensure_self_signed(d.path(), listen, &[]).unwrap();
        assert!(!again);
        assert_eq!(Identity::load(&c, &k).unwrap().fingerprint, id.fingerprint);
        assert!(Trust::roots(&c).is_ok());
        // One of the pair missing.
        std::fs::remove_file(&k).unwrap();
        let e = ensure_self_signed(d.path(), listen, &[]).unwrap_err();
        assert!(e.contains("one is missing"), "{e}");
    }

    #[test]
    fn certificate_file_errors_name_the_file() {
        let d = tempfile::tempdir().unwrap();
        let missing = d.path().join("nope.pem");
        let e = Identity::load(&missing, &missing).unwrap_err();
        assert!(e.contains("nope.pem: cannot read PEM certificates"), "{e}");
        let junk = d.path().join("junk.pem");
        std::fs::write(&junk, "hello\n").unwrap();
        let e = Trust::roots(&junk).unwrap_err();
        assert!(e.contains("junk.pem: expected PEM certificates"), "{e}");
        let (c, _, _) = ensure_self_signed(d.path(), "127.0.0.1:1".parse().unwrap(), &[]).unwrap();
        let e = Identity::load(&c, &junk).unwrap_err();
        assert!(e.contains("junk.pem: expected a PEM private key"), "{e}");
        // A certificate where the key should be.
        let e = Identity::load(&c, &c).unwrap_err();
        assert!(e.contains("cert.pem: expected a PEM private key"), "{e}");
    }
}
