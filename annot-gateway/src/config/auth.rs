//! `[auth]`: how HTTP callers' bearer tokens are checked, and each scope's profile.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::{ConfigError, http_client};

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
