//! `[approvals]`: the approvals page's wait, who may decide, and where the
//! page is served when the host speaks over stdio.

use std::net::SocketAddr;
use std::time::Duration;

use serde::Deserialize;

use super::ConfigError;

/// The approvals page (`/approvals` of `--http`, or of its own address).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApprovalsSettings {
    /// How long a call waits there for a decision before it is refused.
    pub wait: Duration,
    /// The scope a token must grant to sign in and decide, with `[auth]`.
    pub approver_scope: String,
    /// The page's own address, for a gateway whose host speaks over stdio
    /// (with `--http` the page is at `/approvals` of that address).
    pub listen: Option<SocketAddr>,
}

/// The page's wait when nothing sets it.
pub const DEFAULT_APPROVAL_WAIT: Duration = Duration::from_secs(120);

/// The approver scope when `[approvals]` names none.
pub const DEFAULT_APPROVER_SCOPE: &str = "gateway:approve";

/// `[approvals]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalsSection {
    /// How long a call waits for a decision: `"90s"`, `"2m"`, `"1h"`.
    pub wait: Option<String>,
    /// The scope a token must grant to decide (default `gateway:approve`).
    pub approver_scope: Option<String>,
    /// The page's own address (`"127.0.0.1:8787"`), for a stdio gateway.
    pub listen: Option<String>,
}

impl ApprovalsSection {
    /// The settings, with `wait` and `listen` (from the command line) over
    /// the file's.
    pub fn settings(
        &self,
        wait: Option<&str>,
        listen: Option<SocketAddr>,
    ) -> Result<ApprovalsSettings, ConfigError> {
        let listen = match (listen, &self.listen) {
            (Some(address), _) => Some(address),
            (None, Some(text)) => Some(text.parse().map_err(|_| {
                ConfigError::Invalid(format!(
                    "approvals.listen: `{text}` is not an address and port (127.0.0.1:8787)"
                ))
            })?),
            (None, None) => None,
        };
        let wait = match wait.or(self.wait.as_deref()) {
            Some(text) => parse_duration(text)
                .map_err(|why| ConfigError::Invalid(format!("approvals.wait: {why}")))?,
            None => DEFAULT_APPROVAL_WAIT,
        };
        Ok(ApprovalsSettings {
            wait,
            approver_scope: self
                .approver_scope
                .clone()
                .unwrap_or_else(|| DEFAULT_APPROVER_SCOPE.to_owned()),
            listen,
        })
    }
}

/// A duration as a number and a unit: `500ms`, `90s`, `2m`, `1h`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|character: char| !character.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (a number and ms, s, m or h)"))?;
    let duration = match unit.trim() {
        "ms" => Duration::from_millis(number),
        "s" => Duration::from_secs(number),
        "m" => Duration::from_secs(number.saturating_mul(60)),
        "h" => Duration::from_secs(number.saturating_mul(3600)),
        other => {
            return Err(format!(
                "`{other}` in `{text}` is not a unit (ms, s, m or h)"
            ));
        }
    };
    if duration.is_zero() {
        return Err(format!("`{text}` is no time at all"));
    }
    Ok(duration)
}
