//! The HTTP guard (feature `guard-http`): outgoing requests, and every
//! redirect they lead to, checked against the call's resolution.
//!
//! Two ways in, one check:
//!
//! - [`HttpGuard::send`] makes the request through [ureq] (small, blocking,
//!   as a handler of the built-in server is) with redirects turned off in
//!   the client, and follows each one itself only after checking it;
//! - [`HttpGuard::check`] is the same check for a handler that uses another
//!   client (or, as `examples/github_api.rs`, a fake): call it before every
//!   request and before following every redirect
//!   ([`HttpGuard::check_redirect`]).
//!
//! | request | needs |
//! |---|---|
//! | `GET`, `HEAD`, `OPTIONS`, `TRACE` | nothing |
//! | `POST` | `readOnlyHint: false` |
//! | `PUT`, `PATCH`, `DELETE`, any other method | `readOnlyHint: false` and `destructiveHint: true` |
//! | a host that is not configured ([`HttpGuard::allow_host`]) | `openWorldHint: true` |
//! | a scheme other than `http` and `https` | never |
//!
//! `POST` creates, so it counts as additive; `PUT` replaces and `PATCH` and
//! `DELETE` change or remove what exists. A server that knows some request
//! of a riskier method is additive (removing a label that can be added
//! again) says so with [`HttpGuard::additive_when`]; such a request still
//! needs a write.
//!
//! Redirects: `303` turns any method but `HEAD` into `GET`; `301` and `302`
//! turn `POST` into `GET`, as clients do; `307` and `308` keep the method
//! and the body. Every hop is checked like the first request, so a redirect
//! to an unconfigured host of a closed-world call, or a `307` of a `DELETE`
//! the call may not make, is refused before it is sent. At most
//! [`MAX_REDIRECTS`] are followed.

use std::io::Read;
use std::time::Duration;

use ureq::http::Request;

/// The HTTP method type the guard takes ([`HttpGuard::additive_when`]).
pub use ureq::http::Method;
/// The URL type the guard parses into ([`HttpGuard::check`]).
pub use url::Url;

use super::{Claims, Error};
use crate::Hint;
use crate::server::Call;

/// The most redirects [`HttpGuard::send`] follows.
pub const MAX_REDIRECTS: usize = 10;

/// How much of a response body [`HttpGuard::send`] reads: 10 MiB.
pub const MAX_BODY: u64 = 10 * 1024 * 1024;

/// Requests additive although their method is not.
type Additive = Box<dyn Fn(&Method, &Url) -> bool + Send + Sync>;

/// Checks, and makes, the outgoing requests of one call. Build one per call
/// from its [`Call`], with the hosts the server talks to.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::Annotations;
/// use annot::guard::Claims;
/// use annot::guard::http::HttpGuard;
///
/// let read = Claims::of("api", &Annotations::new().read_only(true).open_world(false));
/// let guard = HttpGuard::new(read).allow_host("api.example.com");
/// assert!(guard.check("GET", "https://api.example.com/items").is_ok());
/// let refused = guard.check("DELETE", "https://api.example.com/items/1").unwrap_err();
/// assert_eq!(refused.refusal().unwrap().hint.wire_name(), "readOnlyHint");
/// let elsewhere = guard.check("GET", "https://other.example/").unwrap_err();
/// assert_eq!(elsewhere.refusal().unwrap().hint.wire_name(), "openWorldHint");
/// ```
pub struct HttpGuard {
    claims: Claims,
    /// Configured hosts, lower case, each with its port when one was given.
    hosts: Vec<(String, Option<u16>)>,
    additive: Option<Additive>,
    agent: ureq::Agent,
}

impl std::fmt::Debug for HttpGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpGuard")
            .field("claims", &self.claims)
            .field("hosts", &self.hosts)
            .field("additive", &self.additive.is_some())
            .finish_non_exhaustive()
    }
}

/// A response of [`HttpGuard::send`]: the last hop's status, headers and
/// body (at most [`MAX_BODY`] bytes), and where it came from.
#[derive(Clone, Debug)]
pub struct Response {
    /// The HTTP status.
    pub status: u16,
    /// The URL that answered, after redirects.
    pub url: Url,
    /// The headers, names in lower case, values that are text.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl HttpGuard {
    /// A guard for a call that claims `claims`, with no host configured.
    pub fn new(claims: Claims) -> Self {
        HttpGuard {
            claims,
            hosts: Vec::new(),
            additive: None,
            agent: agent(None),
        }
    }

    /// Gives up on an exchange (each hop) after `timeout`.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.agent = agent(Some(timeout));
        self
    }

    /// A guard for `call`.
    pub fn for_call(call: &Call) -> Self {
        HttpGuard::new(Claims::of_call(call))
    }

    /// Adds a host the server talks to (`api.example.com`, or with a port,
    /// `127.0.0.1:8080`): a closed-world call may reach it. Without a port,
    /// any port of the host.
    #[must_use]
    pub fn allow_host(mut self, host: &str) -> Self {
        let (name, port) = match host.rsplit_once(':') {
            Some((name, port)) if !name.contains(':') || name.ends_with(']') => {
                (name, port.parse().ok())
            }
            _ => (host, None),
        };
        self.hosts.push((name.to_ascii_lowercase(), port));
        self
    }

    /// Requests for which `additive` answers `true` need only a write, not
    /// a claim of destruction, whatever their method.
    #[must_use]
    pub fn additive_when(
        mut self,
        additive: impl Fn(&Method, &Url) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.additive = Some(Box::new(additive));
        self
    }

    /// What the call claims.
    pub fn claims(&self) -> &Claims {
        &self.claims
    }

    /// Checks a request of `method` to `url`; returns the parsed URL.
    pub fn check(&self, method: &str, url: &str) -> Result<Url, Error> {
        let method = parse_method(method)?;
        let url = parse_url(url)?;
        self.check_parsed(&method, &url)?;
        Ok(url)
    }

    /// `base` with `path` (and its query) below it: `http://host/api/` and
    /// `/items?page=2` give `http://host/api/items?page=2`. Refused: a path
    /// that does not start with one `/` (`//host/...`, `https://...`, a
    /// relative one), a backslash, and dot segments that climb out of
    /// `base`'s path. What a handler joins a tool's `path` argument with.
    pub fn url_below(base: &Url, path: &str) -> Result<Url, Error> {
        let refused = |why: &str| Error::Http(format!("`{path}` {why} {base}"));
        if !path.starts_with('/') || path.starts_with("//") || path.contains('\\') {
            return Err(refused("is not a path from the root of"));
        }
        let without_fragment = path.split('#').next().unwrap_or_default();
        let (below, query) = match without_fragment.split_once('?') {
            Some((below, query)) => (below, Some(query)),
            None => (without_fragment, None),
        };
        let prefix = base.path().trim_end_matches('/');
        let mut joined = base.clone();
        joined.set_path(&format!("{prefix}{below}"));
        joined.set_query(query);
        joined.set_fragment(None);
        // The URL parser resolves `..`: what is left must still be below.
        let inside = joined.path() == prefix
            || joined
                .path()
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/'));
        if !inside
            || joined.scheme() != base.scheme()
            || joined.host_str() != base.host_str()
            || joined.port_or_known_default() != base.port_or_known_default()
        {
            return Err(refused("leaves"));
        }
        Ok(joined)
    }

    /// Where a redirect leads, and with which method, if the call may
    /// follow it: `status` is the answer's, `location` its `Location`
    /// header, `from` the URL that answered. `Ok(None)` when `status` is no
    /// redirect.
    pub fn check_redirect(
        &self,
        method: &str,
        from: &Url,
        status: u16,
        location: &str,
    ) -> Result<Option<(Method, Url)>, Error> {
        let method = parse_method(method)?;
        let Some(next) = redirected_method(&method, status) else {
            return Ok(None);
        };
        let url = from
            .join(location)
            .map_err(|error| Error::Http(format!("redirect to `{location}`: {error}")))?;
        self.check_parsed(&next, &url)?;
        Ok(Some((next, url)))
    }

    fn check_parsed(&self, method: &Method, url: &Url) -> Result<(), Error> {
        let effect = || format!("{method} {url}");
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Error::Http(format!("refused: {url} is not an HTTP URL")));
        }
        match method_class(method) {
            Class::Safe => {}
            Class::Write => self.claims.check_write(effect())?,
            Class::Destroy if self.additive.as_ref().is_some_and(|f| f(method, url)) => {
                self.claims.check_write(effect())?
            }
            Class::Destroy => self.claims.check_destroy(effect())?,
        }
        if !self.claims.may_reach_any_host() && !self.configured(url) {
            return Err(self.claims.refusal(effect(), Hint::OpenWorld).into());
        }
        Ok(())
    }

    fn configured(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else {
            return false;
        };
        let port = url.port_or_known_default();
        self.hosts.iter().any(|(name, allowed)| {
            name.eq_ignore_ascii_case(host) && allowed.is_none_or(|allowed| Some(allowed) == port)
        })
    }

    /// Sends `method` to `url` with `headers` and `body`, following
    /// redirects the call may follow; every request is checked first, so a
    /// refused one is never sent.
    pub fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
    ) -> Result<Response, Error> {
        let mut method = parse_method(method)?;
        let mut url = self.check(method.as_str(), url)?;
        let mut body = body.map(<[u8]>::to_vec);
        for _ in 0..=MAX_REDIRECTS {
            let mut request = Request::builder().method(method.clone()).uri(url.as_str());
            for (name, value) in headers {
                request = request.header(*name, *value);
            }
            let request = request
                .body(body.clone().unwrap_or_default())
                .map_err(|error| Error::Http(format!("{method} {url}: {error}")))?;
            let mut response = self
                .agent
                .run(request)
                .map_err(|error| Error::Http(format!("{method} {url}: {error}")))?;
            let status = response.status().as_u16();
            let location = response
                .headers()
                .get("location")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned);
            let next = match location.as_deref() {
                Some(location) => self.check_redirect(method.as_str(), &url, status, location)?,
                None => None,
            };
            if let Some((next, to)) = next {
                if next != method {
                    body = None;
                }
                (method, url) = (next, to);
                continue;
            }
            let headers = response
                .headers()
                .iter()
                .filter_map(|(name, value)| {
                    Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned()))
                })
                .collect();
            let mut bytes = Vec::new();
            response
                .body_mut()
                .as_reader()
                .take(MAX_BODY)
                .read_to_end(&mut bytes)
                .map_err(|error| Error::Http(format!("{method} {url}: {error}")))?;
            return Ok(Response {
                status,
                url,
                headers,
                body: bytes,
            });
        }
        Err(Error::Http(format!(
            "more than {MAX_REDIRECTS} redirects from {url}"
        )))
    }
}

/// A ureq agent that follows no redirect itself (the guard does, after
/// checking each) and hands every status back as a response.
fn agent(timeout: Option<Duration>) -> ureq::Agent {
    ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .timeout_global(timeout)
        .build()
        .into()
}

/// What a method needs of the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Safe,
    Write,
    Destroy,
}

fn method_class(method: &Method) -> Class {
    match *method {
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE => Class::Safe,
        Method::POST => Class::Write,
        // PUT, PATCH, DELETE, CONNECT and every extension method.
        _ => Class::Destroy,
    }
}

/// The method a client uses after a `status` answer, or `None` when the
/// status is no redirect.
fn redirected_method(method: &Method, status: u16) -> Option<Method> {
    match status {
        303 if *method == Method::HEAD => Some(Method::HEAD),
        303 => Some(Method::GET),
        301 | 302 if *method == Method::POST => Some(Method::GET),
        301 | 302 | 307 | 308 => Some(method.clone()),
        _ => None,
    }
}

fn parse_method(method: &str) -> Result<Method, Error> {
    Method::from_bytes(method.as_bytes())
        .map_err(|_| Error::Http(format!("`{method}` is not an HTTP method")))
}

fn parse_url(url: &str) -> Result<Url, Error> {
    Url::parse(url).map_err(|error| Error::Http(format!("`{url}` is not a URL: {error}")))
}
