//! The configuration file (TOML) and what the command line sets without one,
//! a module per section.

mod approvals;
mod auth;
mod policy;
mod rules;
mod upstreams;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use annot_runtime::client::{Policy, Verdict};
use annot_runtime::server::{Exposure, Profile};
use serde::Deserialize;

use crate::store::StoreLocation;

pub use approvals::{
    ApprovalsSection, ApprovalsSettings, DEFAULT_APPROVAL_WAIT, DEFAULT_APPROVER_SCOPE,
    parse_duration,
};
pub use auth::AuthSection;
pub use policy::{ConfirmMode, PolicySection, VerdictName};
pub use rules::{ActionRules, ToolRules, annotations_of};
pub use upstreams::{UpstreamConfig, UpstreamEntry, UpstreamSpec, check_upstream_name};

/// Everything the gateway runs with, from the file and the command line.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The upstream servers, in order. With more than one, each tool, prompt
    /// and prompt is shown under its upstream's name
    /// (`name__tool`), so none shadows another.
    pub upstreams: Vec<UpstreamConfig>,
    /// What every call must satisfy, judged on its resolved annotations.
    pub profile: Profile,
    /// How the upstream's tools are shown to the host.
    pub exposure: Exposure,
    /// What happens to a call the policy wants confirmed.
    pub confirm: ConfirmMode,
    /// Allow, confirm or deny, on each call's resolved annotations.
    pub policy: Policy,
    /// What a call that would complete the lethal trifecta gets.
    pub on_trifecta: Verdict,
    /// How long the upstream may take to answer one request.
    pub timeout: Duration,
    /// The store: the decision log, pins, risk and confirmations.
    pub store: StoreLocation,
    /// The risk key of callers without a token (stdio, or HTTP without
    /// `[auth]`): gateways given the same key share one trifecta. `None`:
    /// each gateway session has its own.
    pub risk_key: Option<String>,
    /// Whether the log keeps the arguments themselves, not only their digest.
    pub log_arguments: bool,
    /// An `annot-audit` JSON report of the upstream.
    pub audit: Option<PathBuf>,
    /// How HTTP callers are authenticated, when they are.
    pub auth: Option<AuthSection>,
    /// The approvals page, when it is on (`[approvals]` or `--confirm page`).
    pub approvals: Option<ApprovalsSettings>,
}

/// The file's shape.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Settings the command line can also give (the command line wins).
    #[serde(default)]
    pub gateway: GatewaySection,
    /// The upstream server, when there is one.
    pub upstream: Option<UpstreamSpec>,
    /// Rules per tool of `[upstream]` (or of the command after `--`), by the
    /// tool's upstream name.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolRules>,
    /// Several upstream servers, by name.
    #[serde(default)]
    pub upstreams: BTreeMap<String, UpstreamEntry>,
    /// The confirmation policy, by class of call.
    #[serde(default)]
    pub policy: PolicySection,
    /// HTTP callers' bearer tokens, and the profile of each scope.
    pub auth: Option<AuthSection>,
    /// The approvals page.
    pub approvals: Option<ApprovalsSection>,
    /// Where the state every gateway process shares is kept.
    #[serde(default)]
    pub store: StoreSection,
}

/// `[store]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreSection {
    /// A SQLite file's path, or a `postgres://` URL.
    pub url: Option<String>,
    /// The risk key of callers without a token.
    pub risk_key: Option<String>,
}

/// `[gateway]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewaySection {
    /// A profile name, or names joined with `+`.
    pub profile: Option<String>,
    /// `resolvable`, `per-action` or `auto`.
    pub exposure: Option<String>,
    /// `ask`, `deny`, `host` or `page`.
    pub confirm: Option<ConfirmMode>,
    /// Seconds the upstream may take per request.
    pub timeout_seconds: Option<u64>,
    /// The decision log's file (SQLite): `[store] url` by its older name.
    pub log: Option<PathBuf>,
    /// Keep the arguments in the log (default true).
    pub log_arguments: Option<bool>,
    /// An `annot-audit` JSON report of the upstream.
    pub audit: Option<PathBuf>,
}

/// Why the configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML of the expected shape.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A setting has a value the gateway does not know.
    #[error("{0}")]
    Invalid(String),
}

impl ConfigFile {
    /// Reads and parses `path`.
    pub fn read(path: &Path) -> Result<ConfigFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|error| ConfigError::Parse {
            path: path.to_owned(),
            message: error.to_string(),
        })
    }
}

/// A profile from its command-line spelling: `read-only`, `no-destructive`,
/// `closed-world`, `no-privileged`, `any`, or several joined with `+`.
pub fn parse_profile(text: &str) -> Result<Profile, ConfigError> {
    if text == "any" {
        return Ok(Profile::any());
    }
    text.split('+').try_fold(Profile::any(), |profile, name| {
        Profile::named(name.trim())
            .map(|one| profile.and(one))
            .ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "unknown profile `{name}`: expected read-only, no-destructive, closed-world, \
                     no-privileged or any, joined with `+`"
                ))
            })
    })
}

/// An exposure mode from its spelling.
pub fn parse_exposure(text: &str) -> Result<Exposure, ConfigError> {
    Exposure::named(text).ok_or_else(|| {
        ConfigError::Invalid(format!(
            "unknown exposure `{text}`: expected resolvable, per-action or auto"
        ))
    })
}

/// An HTTP client whose TLS (rustls) verifies with the system's roots and
/// the PEM certificates of `ca_file`; `name` says whose in an error.
pub(crate) fn http_client(
    ca_file: Option<&Path>,
    name: &str,
) -> Result<reqwest::Client, ConfigError> {
    let mut builder = reqwest::Client::builder();
    if let Some(path) = ca_file {
        let pem = std::fs::read(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        let certificates =
            reqwest::Certificate::from_pem_bundle(&pem).map_err(|error| ConfigError::Parse {
                path: path.to_owned(),
                message: format!("not PEM certificates: {error}"),
            })?;
        if certificates.is_empty() {
            return Err(ConfigError::Parse {
                path: path.to_owned(),
                message: "no certificate in it".into(),
            });
        }
        builder = builder.tls_certs_merge(certificates);
    }
    builder
        .build()
        .map_err(|error| ConfigError::Invalid(format!("{name}: no HTTP client: {error}")))
}
