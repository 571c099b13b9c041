//! `[upstream]` and `[upstreams.NAME]`: the servers behind the gateway and how to reach them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::{ConfigError, ToolRules, http_client};

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
