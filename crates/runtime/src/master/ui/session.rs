//! Browser sessions: a random id in an `HttpOnly`, `SameSite=Strict`
//! cookie names a signed-in user and the CSRF token of their forms.
//!
//! Sessions live in the master's memory: a master restart signs everyone
//! out, which costs a login and keeps no secret on disk. They expire after
//! [`SESSION_TTL`]; at most [`MAX_SESSIONS`] are kept (the oldest goes).

use super::super::{ct_eq, random_token, User};
use axum::http::{header, HeaderMap, HeaderValue};
use cookie::{Cookie, SameSite};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The session cookie's name.
pub const COOKIE: &str = "mrsched_session";

/// How long a session lasts.
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);

/// Sessions kept at most.
pub const MAX_SESSIONS: usize = 10_000;

/// A signed-in browser.
#[derive(Clone, Debug)]
pub struct Session {
    /// Who.
    pub user: User,
    /// The token its forms carry.
    pub csrf: String,
    opened: Instant,
}

impl Session {
    /// Whether a form's CSRF token is this session's.
    pub fn csrf_ok(&self, got: &str) -> bool {
        !got.is_empty() && ct_eq(got.as_bytes(), self.csrf.as_bytes())
    }
}

/// Every open session, by id.
#[derive(Debug, Default)]
pub struct Sessions {
    by_id: Mutex<HashMap<String, Session>>,
    /// Cookies carry `Secure` (the master serves HTTPS).
    secure: bool,
}

fn cookie_header(c: Cookie<'_>) -> HeaderValue {
    HeaderValue::from_str(&c.to_string()).expect("a cookie of hex characters is a valid header")
}

impl Sessions {
    /// No sessions yet; `secure`: the master serves HTTPS, so cookies are
    /// marked `Secure` (never sent over plain HTTP to the same host).
    pub fn new(secure: bool) -> Sessions {
        Sessions {
            by_id: Mutex::default(),
            secure,
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.by_id.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Open a session for `user`; the `Set-Cookie` value that names it.
    pub fn open(&self, user: User) -> HeaderValue {
        let id = random_token();
        let mut m = self.map();
        m.retain(|_, s| s.opened.elapsed() < SESSION_TTL);
        if m.len() >= MAX_SESSIONS {
            if let Some(oldest) = m
                .iter()
                .min_by_key(|(_, s)| s.opened)
                .map(|(k, _)| k.clone())
            {
                m.remove(&oldest);
            }
        }
        m.insert(
            id.clone(),
            Session {
                user,
                csrf: random_token(),
                opened: Instant::now(),
            },
        );
        cookie_header(
            Cookie::build((COOKIE, id))
                .http_only(true)
                .secure(self.secure)
                .same_site(SameSite::Strict)
                .path("/")
                .max_age(cookie::time::Duration::seconds(SESSION_TTL.as_secs() as i64))
                .build(),
        )
    }

    fn id(h: &HeaderMap) -> Option<String> {
        h.get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(Cookie::split_parse)
            .flatten()
            .find(|c| c.name() == COOKIE)
            .map(|c| c.value().to_string())
    }

    /// The session a request's cookie names, if open.
    pub fn find(&self, h: &HeaderMap) -> Option<Session> {
        let id = Self::id(h)?;
        let m = self.map();
        m.get(&id)
            .filter(|s| s.opened.elapsed() < SESSION_TTL)
            .cloned()
    }

    /// Close the request's session; the `Set-Cookie` value that clears it.
    pub fn close(&self, h: &HeaderMap) -> HeaderValue {
        if let Some(id) = Self::id(h) {
            self.map().remove(&id);
        }
        cookie_header(
            Cookie::build((COOKIE, ""))
                .http_only(true)
                .secure(self.secure)
                .same_site(SameSite::Strict)
                .path("/")
                .max_age(cookie::time::Duration::ZERO)
                .build(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_cookie(v: &HeaderValue) -> HeaderMap {
        let pair = v.to_str().unwrap().split(';').next().unwrap().to_string();
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            HeaderValue::from_str(&format!("other=1; {pair}")).unwrap(),
        );
        h
    }

    #[test]
    fn a_cookie_names_its_session_and_nothing_else_does() {
        let s = Sessions::default();
        let alice = User {
            name: "alice".into(),
            admin: false,
        };
        let c = s.open(alice.clone());
        let text = c.to_str().unwrap();
        assert!(text.contains("HttpOnly"), "{text}");
        assert!(text.contains("SameSite=Strict"), "{text}");
        let h = with_cookie(&c);
        let sess = s.find(&h).expect("open session");
        assert_eq!(sess.user, alice);
        assert!(sess.csrf_ok(&sess.csrf));
        assert!(!sess.csrf_ok(""));
        assert!(!sess.csrf_ok("0123"));
        let mut forged = HeaderMap::new();
        forged.insert(
            header::COOKIE,
            HeaderValue::from_static("mrsched_session=abc"),
        );
        assert!(s.find(&forged).is_none());
        assert!(s.find(&HeaderMap::new()).is_none());
        let cleared = s.close(&h);
        assert!(cleared.to_str().unwrap().contains("Max-Age=0"));
        assert!(s.find(&h).is_none(), "closed");
    }
}
