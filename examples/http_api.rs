//! A real MCP server over stdio whose `http_request` tool sends each call to
//! one HTTP API, through the HTTP guard built from the call's resolution.
//!
//! ```sh
//! cargo run --example http_api -- http://127.0.0.1:8080
//! cargo run --example http_api -- --read-only http://127.0.0.1:8080
//! ```
//!
//! The tool is open-world (`examples/tools/http_api.rs`), so the guard lets a
//! call reach only what its method claims: a `GET` cannot become a `DELETE`
//! through a `307`, a `POST` (additive) cannot `PUT`, and the `path` argument
//! stays below the base URL (`//host/...` and `https://...` are refused). The
//! profile flags are those of `examples/manage_files.rs`. Logs go to stderr;
//! stdout carries only protocol messages.

#[path = "common/exposure.rs"]
mod exposure_flag;
#[path = "tools/http_api.rs"]
mod tool;

use std::process::ExitCode;
use std::time::Duration;

use annot::AnnotatedActions;
use annot::guard::http::{HttpGuard, Url};
use annot::server::{Call, Exposure, Profile, Server, ToolError, ToolOutput};
pub use tool::HttpApi;

fn main() -> ExitCode {
    let usage = format!(
        "usage: http_api {} [--read-only] [--no-destructive] <base-url>",
        exposure_flag::USAGE
    );
    let (exposure, rest) = match exposure_flag::take_exposure(std::env::args_os().skip(1)) {
        Ok(parsed) => parsed,
        Err(error) => {
            eprintln!("http_api: {error}\n{usage}");
            return ExitCode::from(2);
        }
    };
    let mut profile = Profile::any();
    let mut base = None;
    for argument in rest {
        let argument = argument.to_string_lossy().into_owned();
        match argument.strip_prefix("--") {
            Some(flag) => match Profile::named(flag) {
                Some(named) => profile = profile.and(named),
                None => {
                    eprintln!("http_api: unknown flag `--{flag}`");
                    return ExitCode::from(2);
                }
            },
            None => base = Some(argument),
        }
    }
    let Some(Ok(base)) = base.as_deref().map(Url::parse) else {
        eprintln!("{usage}");
        return ExitCode::from(2);
    };
    let server = server_exposed(base, profile, exposure);
    match server.serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("http_api: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The server of this example, sending to `base`, under `profile`.
pub fn server(base: Url, profile: Profile) -> Server {
    server_exposed(base, profile, Exposure::Resolvable)
}

/// [`server`], exposing `http_request` as `exposure` says.
pub fn server_exposed(base: Url, profile: Profile, exposure: Exposure) -> Server {
    Server::builder("annot-http-api", env!("CARGO_PKG_VERSION"))
        .title("annot example: http_api")
        .profile(profile)
        .exposure(exposure)
        .tool_with_call(move |arguments: HttpApi, call: &Call| send(&base, &arguments, call))
        .build()
        .expect("the http_api server is consistent")
}

/// Sends one call's request below `base`, as its resolution allows.
pub fn send(base: &Url, arguments: &HttpApi, call: &Call) -> Result<ToolOutput, ToolError> {
    let url = HttpGuard::url_below(base, &arguments.path)?;
    let headers: Vec<(&str, &str)> = arguments
        .headers
        .iter()
        .flatten()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let response = HttpGuard::for_call(call)
        .timeout(Duration::from_secs(arguments.timeout_seconds.into()))
        .send(
            arguments.method.action().name,
            url.as_str(),
            &headers,
            arguments.body.as_deref().map(str::as_bytes),
        )?;
    Ok(ToolOutput::text(format!(
        "{} from {}\n\n{}",
        response.status,
        response.url,
        String::from_utf8_lossy(&response.body)
    )))
}
