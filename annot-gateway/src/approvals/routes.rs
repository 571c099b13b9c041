//! The approvals page's HTTP routes, under `/approvals` of `--http`.
//!
//! Reading (`GET`) needs a signed-in session; every action is a `POST` that
//! passes three checks against cross-site requests: the session cookie is
//! `SameSite=Strict`, a browser's `Sec-Fetch-Site` must say `same-origin` and
//! its `Origin` must be the page's own, and the form must carry the
//! session's token. Every page forbids framing and inline script.

use std::borrow::Cow;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Form, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use crate::approvals::sessions::{PageSessions, same_token};
use crate::approvals::views::{SCRIPT, STYLESHEET, Views};
use crate::auth::AuthError;
use crate::config::ApprovalsSettings;
use crate::gateway::Shared;
use crate::store::{PageSession, StoreError};

/// Who decides when the gateway authenticates nobody (it then listens on
/// loopback only).
const LOCAL_APPROVER: &str = "local user";

/// Calls of the decision log the page shows.
const RECENT: usize = 15;

/// What the routes share.
struct Page {
    shared: Arc<Shared>,
    settings: ApprovalsSettings,
    /// The check a `Host` must pass (on loopback: a loopback name, against
    /// DNS rebinding).
    host_allowed: fn(&str) -> bool,
    views: Views,
}

/// The page's routes, when it is on.
pub fn router(shared: Arc<Shared>, host_allowed: fn(&str) -> bool) -> Option<Router> {
    let settings = shared.settings.approvals.clone()?;
    let page = Arc::new(Page {
        shared,
        settings,
        host_allowed,
        views: Views::new(),
    });
    Some(
        Router::new()
            .route("/approvals", get(show))
            .route("/approvals/pending", get(pending))
            .route("/approvals/sign-in", post(sign_in))
            .route("/approvals/sign-out", post(sign_out))
            .route("/approvals/decide", post(decide))
            .route("/approvals/page.css", get(stylesheet))
            .route("/approvals/page.js", get(script))
            .with_state(page),
    )
}

#[derive(Deserialize)]
struct SignIn {
    #[serde(default)]
    token: String,
}

#[derive(Deserialize)]
struct Decide {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    id: String,
    #[serde(default)]
    decision: String,
}

#[derive(Deserialize)]
struct SignOut {
    #[serde(default)]
    csrf: String,
}

async fn show(State(page): State<Arc<Page>>, headers: HeaderMap) -> Response {
    if let Err(refused) = page.check_host(&headers) {
        return refused.into_response();
    }
    match page.sessions().find(&headers).await {
        Ok(Some((key, session))) => page.render(&key, &session).await,
        Ok(None) if page.shared.authenticator.is_none() => {
            // On loopback without [auth], whoever reaches the page may decide.
            match page
                .sessions()
                .open(LOCAL_APPROVER.to_owned(), u64::MAX)
                .await
            {
                Ok(cookie) => {
                    let mut response = redirect();
                    set_cookie(&mut response, &cookie);
                    response
                }
                Err(error) => store_failed(&error),
            }
        }
        Ok(None) => html(
            StatusCode::OK,
            page.views.sign_in(None, &page.settings.approver_scope),
        ),
        Err(error) => store_failed(&error),
    }
}

async fn pending(State(page): State<Arc<Page>>, headers: HeaderMap) -> Response {
    if let Err(refused) = page.check_host(&headers) {
        return refused.into_response();
    }
    let session = match page.sessions().find(&headers).await {
        Ok(Some((_, session))) => session,
        Ok(None) => return text(StatusCode::UNAUTHORIZED, "sign in at /approvals"),
        Err(error) => return store_failed(&error),
    };
    match page.shared.store.pending_approvals().await {
        Ok(pending) => html(StatusCode::OK, page.views.pending(&pending, &session.csrf)),
        Err(error) => store_failed(&error),
    }
}

async fn sign_in(
    State(page): State<Arc<Page>>,
    headers: HeaderMap,
    Form(form): Form<SignIn>,
) -> Response {
    if let Err(refused) = page.check_post(&headers) {
        return refused.into_response();
    }
    let (approver, until) = match &page.shared.authenticator {
        None => (LOCAL_APPROVER.to_owned(), u64::MAX),
        Some(authenticator) => {
            let scope = &page.settings.approver_scope;
            match authenticator.approver(&form.token, scope) {
                Ok(approver) => approver,
                Err(error) => {
                    let (status, why) = match error {
                        AuthError::InsufficientScope(_) => (
                            StatusCode::FORBIDDEN,
                            format!(
                                "This token does not grant `{scope}`, the scope that may decide."
                            ),
                        ),
                        error => (
                            StatusCode::UNAUTHORIZED,
                            format!("This token cannot sign in: {error}."),
                        ),
                    };
                    return html(status, page.views.sign_in(Some(&why), scope));
                }
            }
        }
    };
    let cookie = match page.sessions().open(approver, until).await {
        Ok(cookie) => cookie,
        Err(error) => return store_failed(&error),
    };
    let mut response = redirect();
    set_cookie(&mut response, &cookie);
    response
}

async fn sign_out(
    State(page): State<Arc<Page>>,
    headers: HeaderMap,
    Form(form): Form<SignOut>,
) -> Response {
    let (key, _) = match page.check_action(&headers, &form.csrf).await {
        Ok(signed_in) => signed_in,
        Err(refused) => return refused.into_response(),
    };
    let cookie = match page.sessions().close(&key).await {
        Ok(cookie) => cookie,
        Err(error) => return store_failed(&error),
    };
    let mut response = redirect();
    set_cookie(&mut response, &cookie);
    response
}

async fn decide(
    State(page): State<Arc<Page>>,
    headers: HeaderMap,
    Form(form): Form<Decide>,
) -> Response {
    let (key, session) = match page.check_action(&headers, &form.csrf).await {
        Ok(signed_in) => signed_in,
        Err(refused) => return refused.into_response(),
    };
    let approve = match form.decision.as_str() {
        "approve" => true,
        "deny" => false,
        _ => {
            return text(
                StatusCode::BAD_REQUEST,
                "the decision is `approve` or `deny`",
            );
        }
    };
    let decided = page
        .shared
        .store
        .decide_approval(&form.id, approve, &session.approver)
        .await;
    if let Ok(Some(_)) = decided {
        page.shared.decided.notify_waiters();
    }
    let line = match decided {
        Ok(Some(tool)) if approve => format!("Approved `{tool}`: the call runs."),
        Ok(Some(tool)) => format!("Denied `{tool}`: the call is refused."),
        Ok(None) => "That call was already decided, or its time ran out.".to_owned(),
        Err(error) => format!("The gateway's store failed: {error}."),
    };
    if let Err(error) = page.sessions().flash(&key, &line).await {
        tracing::warn!("the approvals page's notice was not kept: {error}");
    }
    redirect()
}

async fn stylesheet() -> Response {
    asset("text/css; charset=utf-8", STYLESHEET)
}

async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

impl Page {
    fn sessions(&self) -> PageSessions<'_> {
        PageSessions(&self.shared.store)
    }

    async fn render(&self, key: &str, session: &PageSession) -> Response {
        let pending = self.shared.store.pending_approvals().await;
        let recent = self.shared.store.recent_decisions(RECENT).await;
        let (pending, recent) = match (pending, recent) {
            (Ok(pending), Ok(recent)) => (pending, recent),
            (Err(error), _) | (_, Err(error)) => return store_failed(&error),
        };
        let notice = match self.sessions().take_flash(key).await {
            Ok(notice) => notice,
            Err(error) => return store_failed(&error),
        };
        let body = self.views.page(
            &session.approver,
            &session.csrf,
            &pending,
            self.shared.catalog.upstreams(),
            &recent,
            notice.as_deref(),
        );
        html(StatusCode::OK, body)
    }

    fn check_host(&self, headers: &HeaderMap) -> Result<(), Refused> {
        let allowed = headers
            .get(header::HOST)
            .and_then(|host| host.to_str().ok())
            .is_none_or(self.host_allowed);
        if allowed {
            Ok(())
        } else {
            Err(Refused(
                StatusCode::FORBIDDEN,
                "the Host is not a loopback name, and the gateway listens on loopback".into(),
            ))
        }
    }

    /// A POST from this page only: the browser's own word on where it came
    /// from, when it gives one.
    fn check_post(&self, headers: &HeaderMap) -> Result<(), Refused> {
        self.check_host(headers)?;
        let cross_site = |why: &'static str| Err(Refused(StatusCode::FORBIDDEN, why.into()));
        if let Some(site) = headers.get("sec-fetch-site")
            && site.as_bytes() != b"same-origin"
        {
            return cross_site("a cross-site request (Sec-Fetch-Site) cannot act on this page");
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let host = headers
                .get(header::HOST)
                .and_then(|host| host.to_str().ok())
                .unwrap_or_default();
            let own = origin.to_str().ok().and_then(|origin| {
                let (scheme, authority) = origin.split_once("://")?;
                Some(matches!(scheme, "http" | "https") && authority == host)
            });
            if own != Some(true) {
                return cross_site("a request from another origin cannot act on this page");
            }
        }
        Ok(())
    }

    /// A signed-in session's action: the POST checks and the form's token.
    async fn check_action(
        &self,
        headers: &HeaderMap,
        csrf: &str,
    ) -> Result<(String, PageSession), Refused> {
        self.check_post(headers)?;
        let (key, session) = match self.sessions().find(headers).await {
            Ok(Some(signed_in)) => signed_in,
            Ok(None) => {
                return Err(Refused(
                    StatusCode::UNAUTHORIZED,
                    "sign in at /approvals first".into(),
                ));
            }
            Err(error) => {
                return Err(Refused(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    store_failure(&error).into(),
                ));
            }
        };
        if !same_token(csrf, &session.csrf) {
            return Err(Refused(
                StatusCode::FORBIDDEN,
                "the form's token is missing or not this session's".into(),
            ));
        }
        Ok((key, session))
    }
}

/// Why a request is refused: its status and a line saying why.
struct Refused(StatusCode, Cow<'static, str>);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        text(self.0, &self.1)
    }
}

fn store_failure(error: &StoreError) -> String {
    format!("the gateway's store failed: {error}")
}

fn store_failed(error: &StoreError) -> Response {
    text(StatusCode::INTERNAL_SERVER_ERROR, &store_failure(error))
}

fn redirect() -> Response {
    (StatusCode::SEE_OTHER, [(header::LOCATION, "/approvals")]).into_response()
}

fn set_cookie(response: &mut Response, cookie: &str) {
    if let Ok(value) = HeaderValue::from_str(cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
}

/// A page, with the headers that keep it from being framed, cached or
/// made to run script it did not ship.
fn html(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        ("content-type", "text/html; charset=utf-8"),
        (
            "content-security-policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
             img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
        ("x-frame-options", "DENY"),
        ("x-content-type-options", "nosniff"),
        // Not `no-referrer`: with it a browser sends `Origin: null` on the page's own forms.
        ("referrer-policy", "same-origin"),
        ("cache-control", "no-store"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

fn text(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{message}\n"),
    )
        .into_response()
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}
