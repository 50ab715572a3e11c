//! The web UI: read-only pages over the master's state (pools, jobs,
//! workers, blocks) and one action, killing a job.
//!
//! Same listener and same users as the API. A browser signs in once with
//! its token (the login form, or `?token=` in a link, which is then
//! redirected away so the token stays out of history and later URLs) and
//! gets a session cookie (`HttpOnly`, `SameSite=Strict`): the token itself
//! is never stored in the browser. The kill form carries the session's
//! CSRF token, checked on every POST. Pages are rendered on the server with
//! maud (which escapes every value); `app.js` refreshes a page's `<main>`
//! by fetching the same URL as a fragment every two seconds, so a page
//! stays current without reloading. No script or style is fetched from
//! elsewhere (the content security policy forbids it).

mod chart;
mod pages;
mod session;

use super::{lock, ApiError, Shared, S};
use axum::extract::{Form, Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use maud::Markup;
use session::Session;
pub(super) use session::Sessions;
use std::sync::Arc;

const APP_JS: &str = include_str!("app.js");
const STYLE_CSS: &str = include_str!("style.css");

/// The UI's routes, merged into the master's router.
pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/", get(pools_page))
        .route("/jobs", get(jobs_page))
        .route("/jobs/{id}", get(job_page))
        .route("/jobs/{id}/kill", post(kill_job))
        .route("/workers", get(workers_page))
        .route("/blocks", get(blocks_page))
        .route("/login", get(login_form).post(login))
        .route("/logout", post(logout))
        .route("/ui/app.js", get(|| asset(APP_JS, "text/javascript")))
        .route("/ui/style.css", get(|| asset(STYLE_CSS, "text/css")))
}

async fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// Headers every page carries: no framing, no scripts or styles from
/// elsewhere, no caching of pages that show a user's cluster.
fn secure(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
             connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

fn html(status: StatusCode, m: Markup) -> Response {
    secure(
        (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            m.into_string(),
        )
            .into_response(),
    )
}

fn redirect(to: &str) -> Response {
    secure((StatusCode::SEE_OTHER, [(header::LOCATION, to.to_string())]).into_response())
}

/// `?token=`: a link that signs in once.
#[derive(serde::Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// What a page handler needs: the signed-in session, or the response that
/// replaces the page (the login form, or the redirect that drops a token
/// from the URL).
enum Gate {
    In(Session),
    Out(Response),
}

fn gate(s: &Shared, h: &HeaderMap, q: &TokenQuery, path: &str) -> Gate {
    if let Some(t) = &q.token {
        return Gate::Out(match s.users.find(t) {
            Some(u) => {
                let cookie = s.sessions.open(u.clone());
                let mut r = redirect(path);
                r.headers_mut().insert(header::SET_COOKIE, cookie);
                r
            }
            None => html(
                StatusCode::UNAUTHORIZED,
                pages::login(Some("unknown token")),
            ),
        });
    }
    match s.sessions.find(h) {
        Some(sess) => Gate::In(sess),
        None => Gate::Out(html(StatusCode::UNAUTHORIZED, pages::login(None))),
    }
}

/// A page: the whole document, or only its `<main>` when `app.js` asks
/// for a refresh.
fn page(h: &HeaderMap, sess: &Session, title: &str, body: Result<Markup, ApiError>) -> Response {
    let fragment = h.contains_key("x-mrsched-fragment");
    match body {
        Ok(b) if fragment => html(StatusCode::OK, b),
        Ok(b) => html(StatusCode::OK, pages::layout(title, sess, b)),
        Err(e) => {
            let code = StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            html(code, pages::layout(title, sess, pages::error(&e.message)))
        }
    }
}

async fn pools_page(State(s): S, h: HeaderMap, Query(q): Query<TokenQuery>) -> Response {
    let sess = match gate(&s, &h, &q, "/") {
        Gate::In(x) => x,
        Gate::Out(r) => return r,
    };
    let body = {
        let core = lock(&s);
        core.pools().map(|p| {
            let health = core.health();
            pages::pools(&p, &health, &core.pool_history(), core.now().as_secs_f64())
        })
    };
    page(&h, &sess, "Pools", body)
}

async fn jobs_page(State(s): S, h: HeaderMap, Query(q): Query<TokenQuery>) -> Response {
    let sess = match gate(&s, &h, &q, "/jobs") {
        Gate::In(x) => x,
        Gate::Out(r) => return r,
    };
    let body = {
        let core = lock(&s);
        let now = core.now().as_secs_f64();
        core.jobs().map(|j| pages::jobs(&j, now))
    };
    page(&h, &sess, "Jobs", body)
}

async fn job_page(
    State(s): S,
    h: HeaderMap,
    Path(id): Path<u32>,
    Query(q): Query<TokenQuery>,
) -> Response {
    let sess = match gate(&s, &h, &q, &format!("/jobs/{id}")) {
        Gate::In(x) => x,
        Gate::Out(r) => return r,
    };
    let body = {
        let core = lock(&s);
        let now = core.now().as_secs_f64();
        core.job_view(id).and_then(|j| {
            let attempts = core.attempts(id)?;
            Ok(pages::job(&j, &attempts, &sess, now))
        })
    };
    page(&h, &sess, &format!("Job {id}"), body)
}

async fn workers_page(State(s): S, h: HeaderMap, Query(q): Query<TokenQuery>) -> Response {
    let sess = match gate(&s, &h, &q, "/workers") {
        Gate::In(x) => x,
        Gate::Out(r) => return r,
    };
    let body = Ok(pages::workers(&lock(&s).workers()));
    page(&h, &sess, "Workers", body)
}

async fn blocks_page(State(s): S, h: HeaderMap, Query(q): Query<TokenQuery>) -> Response {
    let sess = match gate(&s, &h, &q, "/blocks") {
        Gate::In(x) => x,
        Gate::Out(r) => return r,
    };
    let body = {
        let core = lock(&s);
        let alive: Vec<String> = core
            .workers()
            .into_iter()
            .filter(|w| w.alive)
            .map(|w| w.name)
            .collect();
        Ok(pages::blocks(&core.files(), &alive))
    };
    page(&h, &sess, "Blocks", body)
}

/// The kill form: the session's CSRF token.
#[derive(serde::Deserialize)]
struct KillForm {
    #[serde(default)]
    csrf: String,
}

async fn kill_job(
    State(s): S,
    h: HeaderMap,
    Path(id): Path<u32>,
    Form(f): Form<KillForm>,
) -> Response {
    let Some(sess) = s.sessions.find(&h) else {
        return html(StatusCode::UNAUTHORIZED, pages::login(None));
    };
    if !sess.csrf_ok(&f.csrf) {
        let e = ApiError::forbidden("the form's CSRF token is missing or wrong: reload the page");
        return page(&HeaderMap::new(), &sess, "Kill", Err(e));
    }
    let r = lock(&s).kill(&sess.user, id);
    match r {
        Ok(_) => redirect(&format!("/jobs/{id}")),
        Err(e) => page(&HeaderMap::new(), &sess, "Kill", Err(e)),
    }
}

async fn login_form() -> Response {
    html(StatusCode::OK, pages::login(None))
}

/// The login form's field.
#[derive(serde::Deserialize)]
struct LoginForm {
    #[serde(default)]
    token: String,
}

async fn login(State(s): S, Form(f): Form<LoginForm>) -> Response {
    match s.users.find(f.token.trim()) {
        Some(u) => {
            let cookie = s.sessions.open(u.clone());
            let mut r = redirect("/");
            r.headers_mut().insert(header::SET_COOKIE, cookie);
            r
        }
        None => html(
            StatusCode::UNAUTHORIZED,
            pages::login(Some("unknown token")),
        ),
    }
}

async fn logout(State(s): S, h: HeaderMap) -> Response {
    let mut r = redirect("/login");
    r.headers_mut()
        .insert(header::SET_COOKIE, s.sessions.close(&h));
    r
}
