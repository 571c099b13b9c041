//! A real MCP server over stdio whose `github_api` tool answers from an
//! in-memory fake of GitHub: no network, no token, the same rules.
//!
//! ```sh
//! cargo run --example github_api
//! cargo run --example github_api -- --read-only --no-privileged
//! ```
//!
//! The flags `--read-only`, `--no-destructive`, `--closed-world` and
//! `--no-privileged` (combinable) serve under that profile: every method
//! stays listed when a rule can bring it inside (the `/orgs/` rule only
//! raises privileges, so `--no-privileged` keeps every method and refuses
//! organisation paths per call); `--read-only` keeps `GET`, `HEAD` and
//! `OPTIONS`; `--closed-world` leaves nothing (the tool is open-world), so
//! the tool is not listed at all.
//!
//! Each call runs with the authorization its own arguments resolve to: a
//! call on a public repository goes without credentials (so a private one
//! answers 404, as to anyone), and a call needing a scope the server's token
//! lacks is refused with 403, before anything changes. The token of this
//! example holds `repo` and `public_repo`, not `delete_repo` nor `admin:org`.
//! Logs go to stderr; stdout carries only protocol messages.

#[path = "common/exposure.rs"]
mod exposure_flag;
#[path = "tools/github_api.rs"]
mod tool;

use std::process::ExitCode;
use std::sync::Mutex;

use annot::guard::http::{HttpGuard, Method, Url};
use annot::server::{Call, Exposure, Profile, Server, ToolError, ToolOutput};
use annot::{AnnotatedTool, Authorization, HttpMethod};
use fake::FakeGithub;
use serde_json::{Value, json};
pub use tool::GithubApi;

/// The scopes of the token this example's server calls GitHub with.
pub const TOKEN_SCOPES: &[&str] = &["repo", "public_repo"];

fn main() -> ExitCode {
    let usage = || {
        eprintln!(
            "usage: github_api {} [--read-only] [--no-destructive] [--closed-world] \
             [--no-privileged]",
            exposure_flag::USAGE
        )
    };
    let (exposure, rest) = match exposure_flag::take_exposure(std::env::args_os().skip(1)) {
        Ok(parsed) => parsed,
        Err(error) => {
            eprintln!("github_api: {error}");
            usage();
            return ExitCode::from(2);
        }
    };
    // Every other argument is a profile flag, as in `examples/manage_files.rs`.
    let mut profile = Profile::any();
    for argument in rest {
        let argument = argument.to_string_lossy();
        match argument.strip_prefix("--").and_then(Profile::named) {
            Some(named) => profile = profile.and(named),
            None => {
                eprintln!("github_api: unknown argument `{argument}`");
                usage();
                return ExitCode::from(2);
            }
        }
    }
    let server = server_exposed(FakeGithub::seeded(), TOKEN_SCOPES, profile, exposure);
    eprintln!(
        "github_api: serving a fake GitHub over stdio (profile: {}, exposure: {})",
        server.profile(),
        server.exposure()
    );
    match server.serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("github_api: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The server of this example, over `github` with a token of `scopes`.
pub fn server(github: FakeGithub, scopes: &'static [&'static str]) -> Server {
    server_with(github, scopes, Profile::any())
}

/// [`server`] under `profile`.
pub fn server_with(
    github: FakeGithub,
    scopes: &'static [&'static str],
    profile: Profile,
) -> Server {
    server_exposed(github, scopes, profile, Exposure::Resolvable)
}

/// [`server_with`], exposing `github_api` as `exposure` says.
pub fn server_exposed(
    github: FakeGithub,
    scopes: &'static [&'static str],
    profile: Profile,
    exposure: Exposure,
) -> Server {
    let github = Mutex::new(github);
    Server::builder("annot-github", env!("CARGO_PKG_VERSION"))
        .title("annot example: github_api")
        .profile(profile)
        .exposure(exposure)
        .tool_with_call(move |arguments: GithubApi, call: &Call| {
            let mut github = github
                .lock()
                .map_err(|_| ToolError::new("the fake GitHub is unavailable"))?;
            run(&mut github, scopes, &arguments, call)
        })
        .build()
        .expect("the github_api server is consistent")
}

/// Where the real API lives: every request this example would send goes
/// there.
pub const API: &str = "https://api.github.com/";

/// The request the fake answers, as the real API would receive it, checked
/// by the HTTP guard against the call's resolution before the fake acts: a
/// path that leaves the API (`//host/...`, `https://...`) or a method the
/// call did not claim is refused, and nothing changes.
fn check_request(arguments: &GithubApi, call: &Call) -> Result<(), ToolError> {
    let base = Url::parse(API).map_err(|error| ToolError::new(error.to_string()))?;
    let url = HttpGuard::url_below(&base, &arguments.path)?;
    HttpGuard::for_call(call)
        .allow_host("api.github.com")
        // The rules resolve removing a label as not destructive: it is
        // added back as easily.
        .additive_when(|method, url| {
            let segments: Vec<&str> = url.path().split('/').filter(|s| !s.is_empty()).collect();
            *method == Method::DELETE
                && matches!(
                    segments.as_slice(),
                    ["repos", _, _, "issues", _, "labels", _]
                )
        })
        .check(arguments.method.as_str(), url.as_str())?;
    Ok(())
}

/// Runs one call with the authorization it resolves to.
fn run(
    github: &mut FakeGithub,
    scopes: &[&str],
    call: &GithubApi,
    resolved: &Call,
) -> Result<ToolOutput, ToolError> {
    check_request(call, resolved)?;
    let anonymous = match call.resolve_authorization() {
        Some(Authorization::NoAuth) => true,
        Some(Authorization::OAuth2(needed)) => {
            if let Some(missing) = needed.iter().find(|scope| !scopes.contains(scope)) {
                return Err(ToolError::new(format!(
                    "403 Forbidden: this call needs the `{missing}` scope; the token has {}",
                    scopes.join(", ")
                )));
            }
            false
        }
        None => false,
    };
    let path = call.path.split(['?', '#']).next().unwrap_or_default();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let body = call.body.clone().unwrap_or(Value::Null);
    let answer = github.handle(call.method, &segments, &body, anonymous)?;
    let text = serde_json::to_string_pretty(&answer).expect("JSON values serialize");
    Ok(match answer {
        Value::Object(object) => ToolOutput::structured(object),
        _ => ToolOutput::text(text),
    })
}

/// Repositories, issues and organisations, in memory.
pub mod fake {
    use std::collections::BTreeMap;

    use super::*;

    /// One repository.
    #[derive(Clone, Debug)]
    pub struct Repo {
        pub private: bool,
        pub description: String,
        pub issues: Vec<Issue>,
    }

    /// One issue.
    #[derive(Clone, Debug)]
    pub struct Issue {
        pub number: u64,
        pub title: String,
        pub body: String,
        pub open: bool,
        pub locked: bool,
        pub labels: Vec<String>,
    }

    /// The whole fake.
    #[derive(Clone, Debug, Default)]
    pub struct FakeGithub {
        /// By `owner/name`.
        pub repos: BTreeMap<String, Repo>,
        /// Members by organisation.
        pub orgs: BTreeMap<String, Vec<String>>,
    }

    impl FakeGithub {
        /// `octo/hello` (public, one issue), `octo/secret` (private) and the
        /// organisation `octo`.
        pub fn seeded() -> Self {
            let mut github = FakeGithub::default();
            let issue = Issue {
                number: 1,
                title: "Say hello in French".into(),
                body: "Bonjour?".into(),
                open: true,
                locked: false,
                labels: vec!["good first issue".into()],
            };
            github.repos.insert(
                "octo/hello".into(),
                Repo {
                    private: false,
                    description: "Hello, world".into(),
                    issues: vec![issue],
                },
            );
            github.repos.insert(
                "octo/secret".into(),
                Repo {
                    private: true,
                    description: "Nothing to see".into(),
                    issues: Vec::new(),
                },
            );
            github
                .orgs
                .insert("octo".into(), vec!["ann".into(), "bob".into()]);
            github
        }

        /// Answers one request, as GitHub would.
        pub fn handle(
            &mut self,
            method: HttpMethod,
            segments: &[&str],
            body: &Value,
            anonymous: bool,
        ) -> Result<Value, ToolError> {
            use HttpMethod::*;
            match (method, segments) {
                (Get | Head, ["orgs", org, "members"]) => {
                    let members = self.orgs.get(*org).ok_or_else(not_found)?;
                    Ok(json!({ "members": members }))
                }
                (Options, _) => {
                    Ok(json!({ "allow": ["GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"] }))
                }
                (_, ["repos", owner, name, rest @ ..]) => {
                    let key = format!("{owner}/{name}");
                    let repo = self.repos.get_mut(&key).ok_or_else(not_found)?;
                    if repo.private && anonymous {
                        return Err(not_found());
                    }
                    let answer = repo_request(repo, &key, method, rest, body)?;
                    if method == Delete && rest.is_empty() {
                        self.repos.remove(&key);
                    }
                    Ok(answer)
                }
                _ => Err(not_found()),
            }
        }
    }

    fn repo_request(
        repo: &mut Repo,
        key: &str,
        method: HttpMethod,
        rest: &[&str],
        body: &Value,
    ) -> Result<Value, ToolError> {
        use HttpMethod::*;
        match (method, rest) {
            (Get | Head, []) => Ok(json!({
                "full_name": key, "private": repo.private, "description": repo.description,
            })),
            (Delete, []) => Ok(json!({ "deleted": key })),
            (Get | Head, ["issues"]) => Ok(json!({
                "issues": repo.issues.iter().map(issue_json).collect::<Vec<_>>()
            })),
            (Post, ["issues"]) => {
                let title = string(body, "title")?.ok_or_else(|| unprocessable("title"))?;
                let issue = Issue {
                    number: repo.issues.len() as u64 + 1,
                    title,
                    body: string(body, "body")?.unwrap_or_default(),
                    open: true,
                    locked: false,
                    labels: Vec::new(),
                };
                repo.issues.push(issue);
                Ok(issue_json(repo.issues.last().expect("just pushed")))
            }
            (_, ["issues", number, more @ ..]) => {
                let number: u64 = number.parse().map_err(|_| not_found())?;
                let issue = repo
                    .issues
                    .iter_mut()
                    .find(|issue| issue.number == number)
                    .ok_or_else(not_found)?;
                issue_request(issue, method, more, body)
            }
            _ => Err(not_found()),
        }
    }

    fn issue_request(
        issue: &mut Issue,
        method: HttpMethod,
        rest: &[&str],
        body: &Value,
    ) -> Result<Value, ToolError> {
        use HttpMethod::*;
        match (method, rest) {
            (Get | Head, []) => {}
            (Patch, []) => {
                if let Some(title) = string(body, "title")? {
                    issue.title = title;
                }
                if let Some(text) = string(body, "body")? {
                    issue.body = text;
                }
                match string(body, "state")?.as_deref() {
                    None => {}
                    Some("open") => issue.open = true,
                    Some("closed") => issue.open = false,
                    Some(_) => return Err(unprocessable("state")),
                }
            }
            (Put, ["lock"]) => issue.locked = true,
            (Delete, ["lock"]) => issue.locked = false,
            (Post, ["labels"]) => {
                let labels = body
                    .get("labels")
                    .and_then(Value::as_array)
                    .ok_or_else(|| unprocessable("labels"))?;
                for label in labels {
                    let label = label.as_str().ok_or_else(|| unprocessable("labels"))?;
                    if !issue.labels.iter().any(|known| known == label) {
                        issue.labels.push(label.to_owned());
                    }
                }
            }
            (Delete, ["labels", name]) => {
                let before = issue.labels.len();
                issue.labels.retain(|label| label != name);
                if issue.labels.len() == before {
                    return Err(not_found());
                }
            }
            _ => return Err(not_found()),
        }
        Ok(issue_json(issue))
    }

    fn issue_json(issue: &Issue) -> Value {
        json!({
            "number": issue.number,
            "title": issue.title,
            "body": issue.body,
            "state": if issue.open { "open" } else { "closed" },
            "locked": issue.locked,
            "labels": issue.labels,
        })
    }

    fn string(body: &Value, field: &str) -> Result<Option<String>, ToolError> {
        match body.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(unprocessable(field)),
        }
    }

    fn not_found() -> ToolError {
        ToolError::new("404 Not Found")
    }

    fn unprocessable(field: &str) -> ToolError {
        ToolError::new(format!("422 Unprocessable Entity: `{field}` is invalid"))
    }
}
