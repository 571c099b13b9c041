//! The configuration file (TOML) and what the command line sets without one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use annot_runtime::client::{Policy, Strength, Verdict};
use annot_runtime::server::{Exposure, Profile};
use annot_runtime::{Annotations, Hint};
use serde::Deserialize;

use crate::store::StoreLocation;

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

/// The approvals page (`/approvals` of `--http`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApprovalsSettings {
    /// How long a call waits there for a decision before it is refused.
    pub wait: Duration,
    /// The scope a token must grant to sign in and decide, with `[auth]`.
    pub approver_scope: String,
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
}

impl ApprovalsSection {
    /// The settings, with `wait` (from the command line) over the file's.
    pub fn settings(&self, wait: Option<&str>) -> Result<ApprovalsSettings, ConfigError> {
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

/// One upstream server: its name, how to start it, its tools' rules.
#[derive(Clone, Debug)]
pub struct UpstreamConfig {
    /// Its name in the log, in messages and, with several, in tool names.
    pub name: String,
    /// How to start it.
    pub spec: UpstreamSpec,
    /// Rules per tool, by the tool's upstream name.
    pub tools: BTreeMap<String, ToolRules>,
}

/// `[upstreams.NAME]`: one of several upstream servers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamEntry {
    /// The program (stdio).
    #[serde(default)]
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables set for it.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The Streamable HTTP endpoint, instead of a command.
    pub url: Option<String>,
    /// Headers sent with every request to `url`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Certificates (PEM) trusted for an `https://` `url` beside the system's.
    pub ca_file: Option<PathBuf>,
    /// Rules per tool, by the tool's upstream name.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolRules>,
}

/// How to reach the upstream server: a command to run (stdio), or a
/// Streamable HTTP URL.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamSpec {
    /// The program (stdio).
    #[serde(default)]
    pub command: String,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables set for it, beside the gateway's own.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The Streamable HTTP endpoint (`http://` or `https://`), instead of a
    /// command.
    pub url: Option<String>,
    /// Headers sent with every request to `url` (an `Authorization`, say).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Certificates (PEM) trusted for an `https://` `url` beside the
    /// system's: an upstream behind a company's own certificate authority.
    pub ca_file: Option<PathBuf>,
}

impl UpstreamSpec {
    /// Checks that the spec names one way to reach the upstream.
    pub fn check(&self, name: &str) -> Result<(), ConfigError> {
        if self.ca_file.is_some() && self.url.is_none() {
            return Err(ConfigError::Invalid(format!(
                "{name}: `ca_file` is for an https:// `url`"
            )));
        }
        match (&self.url, self.command.is_empty()) {
            (Some(url), true) if url.starts_with("http://") || url.starts_with("https://") => {
                self.http_client(name).map(drop)
            }
            (Some(url), true) => Err(ConfigError::Invalid(format!(
                "{name}: `{url}` is not an http:// or https:// URL"
            ))),
            (None, false) => Ok(()),
            (Some(_), false) => Err(ConfigError::Invalid(format!(
                "{name}: give a `command` or a `url`, not both"
            ))),
            (None, true) => Err(ConfigError::Invalid(format!(
                "{name}: give a `command` (stdio) or a `url` (Streamable HTTP)"
            ))),
        }
    }

    /// The HTTP client for `url`: TLS by rustls, verifying with the system's
    /// roots and those of `ca_file`.
    pub fn http_client(&self, name: &str) -> Result<reqwest::Client, ConfigError> {
        http_client(self.ca_file.as_deref(), name)
    }

    /// How the upstream is named in messages.
    pub fn describe(&self) -> &str {
        self.url.as_deref().unwrap_or(&self.command)
    }
}

/// What the gateway does with a call its policy wants a person to confirm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfirmMode {
    /// Ask the host (`elicitation/create`); a host that cannot be asked gets
    /// a refusal, or with the approvals page on, the page decides.
    Ask,
    /// Refuse every call that needs confirmation.
    Deny,
    /// Forward it: the host's own approval flow is trusted to ask.
    Host,
    /// Queue it on the approvals page (`/approvals`), where a person
    /// approves or denies it, whatever the host can do.
    Page,
}

/// Rules for one upstream tool, in the language of `#[annotate]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRules {
    /// The argument that names the action, for a multi-action tool.
    pub discriminator: Option<String>,
    /// The tool's annotations before any rule (attribute names:
    /// `read_only = true`).
    #[serde(default)]
    pub defaults: BTreeMap<String, bool>,
    /// Rules over every action.
    #[serde(default)]
    pub rules: String,
    /// Each action's annotations and rules.
    #[serde(default)]
    pub actions: BTreeMap<String, ActionRules>,
    /// Lets these rules state a hint lower than the upstream or an audit
    /// states. Every call that uses it is logged as an override.
    #[serde(default, rename = "override")]
    pub lowers: bool,
    /// A preset of actions: `"http"` gives each HTTP method (the value of the
    /// discriminator, `method` unless set) seed 002's hints: `GET`, `HEAD`
    /// and `OPTIONS` read-only, `PUT` idempotent, `DELETE` destructive.
    /// Actions written out replace the preset's.
    pub preset: Option<String>,
    /// The call preview a confirmation shows, as a display-templates
    /// template (`"write {path}"`), where the upstream gives none.
    pub preview: Option<String>,
}

impl ToolRules {
    /// Checks what can be checked before the upstream lists the tool: hint
    /// names and the preset.
    pub fn check(&self, tool: &str) -> Result<(), ConfigError> {
        annotations_of(&self.defaults, &format!("tools.{tool}.defaults"))?;
        for (action, rules) in &self.actions {
            let place = format!("tools.{tool}.actions.{action}.annotations");
            annotations_of(&rules.annotations, &place)?;
        }
        match self.preset.as_deref() {
            None | Some("http") => Ok(()),
            Some(other) => Err(ConfigError::Invalid(format!(
                "tools.{tool}.preset: unknown preset `{other}` (the one preset is `http`)"
            ))),
        }
    }

    /// Whether the entry says anything about annotations (it may only set a
    /// preview).
    pub fn has_rules(&self) -> bool {
        self.discriminator.is_some()
            || self.preset.is_some()
            || !self.defaults.is_empty()
            || !self.rules.trim().is_empty()
            || !self.actions.is_empty()
    }
}

/// One action of a multi-action upstream tool.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRules {
    /// The action's annotations (attribute names).
    #[serde(default)]
    pub annotations: BTreeMap<String, bool>,
    /// Rules over this action's arguments.
    #[serde(default)]
    pub rules: String,
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

/// `[policy]`: a verdict per class of call (`allow`, `confirm-light`,
/// `confirm`, `confirm-strong`, `deny`); a class left out keeps annot's
/// default (`annot::client::Policy`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicySection {
    /// A read-only call.
    pub read_only: Option<VerdictName>,
    /// A call that may be destructive.
    pub destructive: Option<VerdictName>,
    /// A non-destructive write whose effects can be undone.
    pub reversible_non_destructive: Option<VerdictName>,
    /// Any other non-destructive write.
    pub non_destructive_write: Option<VerdictName>,
    /// Sensitive data with privileged access.
    pub sensitive_and_privileged: Option<VerdictName>,
    /// Privileged access.
    pub privileged_access: Option<VerdictName>,
    /// Sensitive data.
    pub sensitive_data: Option<VerdictName>,
    /// A call that would complete the lethal trifecta (default `deny`).
    pub trifecta: Option<VerdictName>,
}

/// A verdict as the configuration spells it.
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictName {
    /// Run it.
    Allow,
    /// Ask, lightly.
    ConfirmLight,
    /// Ask.
    Confirm,
    /// Ask so that nobody clicks through by habit.
    ConfirmStrong,
    /// Refuse it.
    Deny,
}

impl From<VerdictName> for Verdict {
    fn from(name: VerdictName) -> Verdict {
        match name {
            VerdictName::Allow => Verdict::Allow,
            VerdictName::ConfirmLight => Verdict::Confirm(Strength::Light),
            VerdictName::Confirm => Verdict::Confirm(Strength::Normal),
            VerdictName::ConfirmStrong => Verdict::Confirm(Strength::Strong),
            VerdictName::Deny => Verdict::Deny,
        }
    }
}

impl PolicySection {
    /// annot's default policy with this section's verdicts.
    pub fn policy(&self) -> Policy {
        let mut policy = Policy::default();
        let fields = [
            (self.read_only, &mut policy.read_only),
            (self.destructive, &mut policy.destructive),
            (
                self.reversible_non_destructive,
                &mut policy.reversible_non_destructive,
            ),
            (
                self.non_destructive_write,
                &mut policy.non_destructive_write,
            ),
            (
                self.sensitive_and_privileged,
                &mut policy.sensitive_and_privileged,
            ),
            (self.privileged_access, &mut policy.privileged_access),
            (self.sensitive_data, &mut policy.sensitive_data),
        ];
        for (configured, field) in fields {
            if let Some(name) = configured {
                *field = name.into();
            }
        }
        policy
    }

    /// What a call completing the trifecta gets.
    pub fn on_trifecta(&self) -> Verdict {
        self.trifecta.map_or(Verdict::Deny, Verdict::from)
    }
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

/// Annotations from a table of attribute names (`read_only = true`).
pub fn annotations_of(
    table: &BTreeMap<String, bool>,
    place: &str,
) -> Result<Annotations, ConfigError> {
    table
        .iter()
        .try_fold(Annotations::new(), |annotations, (name, value)| {
            let hint = Hint::from_attribute_name(name).ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "{place}: unknown hint `{name}` (hints are spelled as in `#[annotate]`: \
                     read_only, destructive, idempotent, open_world, ...)"
                ))
            })?;
            Ok(annotations.with(hint, Some(*value)))
        })
}

/// Whether `name` can name an upstream: letters, digits and `-`, so that
/// `name__tool` reads back unambiguously.
pub fn check_upstream_name(name: &str) -> Result<(), ConfigError> {
    let valid = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || character == '-');
    if valid {
        Ok(())
    } else {
        Err(ConfigError::Invalid(format!(
            "upstreams.{name}: an upstream's name is 1 to 32 letters, digits or `-`"
        )))
    }
}

/// `[auth]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSection {
    /// The issuer a token must name (`iss`).
    pub issuer: String,
    /// The audience a token must name (`aud`): this gateway.
    pub audience: String,
    /// The issuer's keys, as a JWKS file.
    pub jwks_file: Option<PathBuf>,
    /// The issuer's keys, as its JWKS URL (`jwks_uri` of its metadata).
    pub jwks_url: Option<String>,
    /// Certificates (PEM) trusted for an `https://` `jwks_url` beside the
    /// system's.
    pub ca_file: Option<PathBuf>,
    /// Each scope's profile (`"files:read" = "read-only"`).
    pub scopes: BTreeMap<String, String>,
    /// The protected-resource metadata URL (RFC 9728) `WWW-Authenticate`
    /// points clients to.
    pub resource_metadata: Option<String>,
}

impl AuthSection {
    /// Checks that the keys come from one place, and where from.
    pub fn check(&self) -> Result<(), ConfigError> {
        match (&self.jwks_file, &self.jwks_url) {
            (Some(_), None) if self.ca_file.is_none() => Ok(()),
            (Some(_), None) => Err(ConfigError::Invalid(
                "[auth]: `ca_file` is for an https:// `jwks_url`".into(),
            )),
            (None, Some(url)) if url.starts_with("https://") || url.starts_with("http://") => {
                self.jwks_client().map(drop)
            }
            (None, Some(url)) => Err(ConfigError::Invalid(format!(
                "[auth]: `jwks_url` {url} is not an http:// or https:// URL"
            ))),
            _ => Err(ConfigError::Invalid(
                "[auth]: give the issuer's keys as `jwks_file` or `jwks_url`, one of them".into(),
            )),
        }
    }

    /// The HTTP client that fetches `jwks_url`.
    pub fn jwks_client(&self) -> Result<reqwest::Client, ConfigError> {
        http_client(self.ca_file.as_deref(), "[auth]")
    }
}

/// An HTTP client whose TLS (rustls) verifies with the system's roots and
/// the PEM certificates of `ca_file`; `name` says whose in an error.
fn http_client(ca_file: Option<&Path>, name: &str) -> Result<reqwest::Client, ConfigError> {
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
