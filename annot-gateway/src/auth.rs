//! Callers over HTTP, as an OAuth 2.1 resource server: a bearer token (a
//! JWT signed by a key of the issuer's JWKS, for this audience, unexpired)
//! names the caller's scopes, and the configuration maps scopes to
//! profiles. A call passes when the gateway's profile and one of the
//! caller's scopes' profiles let it through. Tokens are never logged.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use annot_runtime::Annotations;
use annot_runtime::server::Profile;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::Value;

use crate::config::{AuthSection, ConfigError, parse_profile};

/// The signature algorithms a token may use: asymmetric ones only, so a
/// public key can never be used as an HMAC secret.
const ALGORITHMS: [Algorithm; 7] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Checks bearer tokens.
#[derive(Clone)]
pub struct Authenticator {
    issuer: String,
    audience: String,
    keys: Arc<RwLock<JwkSet>>,
    /// Where the keys come from when they are fetched (`jwks_url`).
    fetched_from: Option<Arc<JwksUrl>>,
    scopes: BTreeMap<String, Profile>,
    resource_metadata: Option<String>,
}

/// An issuer's JWKS served at a URL: fetched at start, again every
/// [`JWKS_REFRESH`], and again when a token names a key it does not hold
/// (a rotated key), at most once per [`JWKS_MISS_INTERVAL`] so forged key
/// ids cannot make the gateway hammer the issuer.
struct JwksUrl {
    url: String,
    client: reqwest::Client,
    last_miss_fetch: Mutex<Option<Instant>>,
}

/// How often a fetched JWKS is fetched again (keys withdrawn by the issuer
/// stop being trusted within this time).
const JWKS_REFRESH: Duration = Duration::from_secs(600);
/// The least time between two fetches for an unknown key id.
const JWKS_MISS_INTERVAL: Duration = Duration::from_secs(10);
/// The largest JWKS document read.
const JWKS_MAX_BYTES: usize = 1 << 20;

impl JwksUrl {
    async fn fetch(&self) -> Result<JwkSet, String> {
        let response = self
            .client
            .get(&self.url)
            .header("accept", "application/json")
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|error| format!("fetching the JWKS at {}: {error}", self.url))?;
        let body = response
            .bytes()
            .await
            .map_err(|error| format!("reading the JWKS at {}: {error}", self.url))?;
        if body.len() > JWKS_MAX_BYTES {
            return Err(format!("the JWKS at {} is over 1 MiB", self.url));
        }
        serde_json::from_slice(&body)
            .map_err(|error| format!("{} is not a JWKS: {error}", self.url))
    }
}

/// Who is calling, by their token.
#[derive(Clone, Debug, PartialEq)]
pub struct Caller {
    /// The token's subject (`sub`), when it names one.
    pub subject: Option<String>,
    /// The token's scopes the configuration maps, each with its profile.
    pub profiles: Vec<(String, Profile)>,
    /// Every scope the token grants, for the scopes a call needs
    /// (`securitySchemes`).
    pub granted: Vec<String>,
}

/// Why a request is not let in.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No `Authorization: Bearer` header.
    #[error("a bearer token is required")]
    Missing,
    /// A token that does not hold: its signature, issuer, audience, expiry
    /// or form.
    #[error("the token is not valid: {0}")]
    Invalid(String),
    /// A valid token none of whose scopes the gateway maps.
    #[error("the token has none of the scopes this gateway maps to a profile ({0})")]
    InsufficientScope(String),
}

impl AuthError {
    /// The HTTP status: 401, or 403 for a valid token without a scope.
    pub fn status(&self) -> u16 {
        match self {
            AuthError::InsufficientScope(_) => 403,
            _ => 401,
        }
    }

    /// The `WWW-Authenticate` header (RFC 6750, RFC 9728).
    pub fn www_authenticate(&self, resource_metadata: Option<&str>) -> String {
        let mut header = "Bearer realm=\"annot-gateway\"".to_owned();
        let (code, description) = match self {
            AuthError::Missing => (None, None),
            AuthError::Invalid(why) => (Some("invalid_token"), Some(why.as_str())),
            AuthError::InsufficientScope(scopes) => {
                (Some("insufficient_scope"), Some(scopes.as_str()))
            }
        };
        if let Some(code) = code {
            header.push_str(&format!(", error=\"{code}\""));
        }
        if let Some(description) = description {
            let quoted = description.replace(['"', '\\'], "'");
            header.push_str(&format!(", error_description=\"{quoted}\""));
        }
        if let AuthError::InsufficientScope(scopes) = self {
            header.push_str(&format!(", scope=\"{scopes}\""));
        }
        if let Some(url) = resource_metadata {
            header.push_str(&format!(", resource_metadata=\"{url}\""));
        }
        header
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    exp: u64,
    #[serde(default)]
    scope: String,
    /// Some issuers list scopes as an array (`scp`).
    #[serde(default)]
    scp: Vec<String>,
}

impl Authenticator {
    /// From `[auth]`: reads or fetches the JWKS, and reads the scope map. A
    /// fetched JWKS is kept fresh by a task of the current runtime.
    pub async fn open(section: &AuthSection) -> Result<Authenticator, ConfigError> {
        let (keys, fetched_from) = match (&section.jwks_file, &section.jwks_url) {
            (Some(path), None) => (read_jwks(path)?, None),
            (None, Some(url)) => {
                let client = section.jwks_client()?;
                let source = Arc::new(JwksUrl {
                    url: url.clone(),
                    client,
                    last_miss_fetch: Mutex::new(None),
                });
                (
                    source.fetch().await.map_err(ConfigError::Invalid)?,
                    Some(source),
                )
            }
            _ => unreachable!("AuthSection::check admits exactly one of jwks_file and jwks_url"),
        };
        let authenticator = Authenticator::with_keys(section, keys, fetched_from)?;
        if let Some(source) = authenticator.fetched_from.clone() {
            let keys = Arc::downgrade(&authenticator.keys);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(JWKS_REFRESH).await;
                    let Some(keys) = keys.upgrade() else { return };
                    match source.fetch().await {
                        Ok(fresh) => *keys.write().expect("keys lock") = fresh,
                        Err(error) => tracing::warn!("{error}; the keys fetched before still hold"),
                    }
                }
            });
        }
        Ok(authenticator)
    }

    /// From `[auth]` with a `jwks_file`: reads the JWKS and the scope map.
    pub fn from_section(section: &AuthSection) -> Result<Authenticator, ConfigError> {
        let path = section.jwks_file.as_ref().ok_or_else(|| {
            ConfigError::Invalid("[auth] names a jwks_url: open it with Authenticator::open".into())
        })?;
        Authenticator::with_keys(section, read_jwks(path)?, None)
    }

    fn with_keys(
        section: &AuthSection,
        keys: JwkSet,
        fetched_from: Option<Arc<JwksUrl>>,
    ) -> Result<Authenticator, ConfigError> {
        let mut scopes = BTreeMap::new();
        for (scope, profile) in &section.scopes {
            scopes.insert(scope.clone(), parse_profile(profile)?);
        }
        Ok(Authenticator {
            issuer: section.issuer.clone(),
            audience: section.audience.clone(),
            keys: Arc::new(RwLock::new(keys)),
            fetched_from,
            scopes,
            resource_metadata: section.resource_metadata.clone(),
        })
    }

    /// The key a token's header names: from the keys held, or, for a key id
    /// they lack, from the issuer's JWKS fetched again (a rotated key).
    fn key_for(&self, kid: Option<&str>) -> Option<Jwk> {
        let held = |keys: &JwkSet| match kid {
            Some(kid) => keys.find(kid).cloned(),
            None if keys.keys.len() == 1 => keys.keys.first().cloned(),
            None => None,
        };
        if let Some(jwk) = held(&self.keys.read().expect("keys lock")) {
            return Some(jwk);
        }
        let source = self.fetched_from.as_ref().filter(|_| kid.is_some())?;
        {
            let mut last = source.last_miss_fetch.lock().expect("miss lock");
            if last.is_some_and(|at| at.elapsed() < JWKS_MISS_INTERVAL) {
                return None;
            }
            *last = Some(Instant::now());
        }
        // Tokens are checked on the runtime's worker threads; the fetch
        // blocks this one, as the request waits for it anyway.
        let handle = tokio::runtime::Handle::try_current().ok()?;
        if handle.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
            return None;
        }
        match tokio::task::block_in_place(|| handle.block_on(source.fetch())) {
            Ok(fresh) => {
                let jwk = held(&fresh);
                *self.keys.write().expect("keys lock") = fresh;
                jwk
            }
            Err(error) => {
                tracing::warn!("{error}");
                None
            }
        }
    }

    /// The issuer tokens must name.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The scopes the gateway maps to profiles.
    pub fn scopes(&self) -> Vec<&str> {
        self.scopes.keys().map(String::as_str).collect()
    }

    /// The protected-resource metadata URL, for `WWW-Authenticate`.
    pub fn resource_metadata(&self) -> Option<&str> {
        self.resource_metadata.as_deref()
    }

    /// The caller of a request with this `Authorization` header.
    pub fn authenticate(&self, authorization: Option<&str>) -> Result<Caller, AuthError> {
        let token = authorization
            .and_then(|value| {
                let (scheme, token) = value.split_once(' ')?;
                scheme
                    .eq_ignore_ascii_case("bearer")
                    .then_some(token.trim())
            })
            .ok_or(AuthError::Missing)?;
        let (claims, granted) = self.check(token)?;
        let profiles: Vec<(String, Profile)> = granted
            .iter()
            .filter_map(|scope| Some((scope.clone(), *self.scopes.get(scope)?)))
            .collect();
        if profiles.is_empty() {
            let known: Vec<&str> = self.scopes.keys().map(String::as_str).collect();
            return Err(AuthError::InsufficientScope(known.join(" ")));
        }
        Ok(Caller {
            subject: claims.sub,
            profiles,
            granted,
        })
    }

    /// Who may decide on the approvals page with `token` (a bare token, as
    /// a person pastes it): its subject and its expiry (seconds since the
    /// epoch), when it grants `scope`.
    pub fn approver(&self, token: &str, scope: &str) -> Result<(String, u64), AuthError> {
        let (claims, granted) = self.check(token.trim())?;
        if !granted.iter().any(|granted| granted == scope) {
            return Err(AuthError::InsufficientScope(scope.to_owned()));
        }
        let subject = claims
            .sub
            .ok_or_else(|| AuthError::Invalid("the token names no subject (`sub`)".into()))?;
        Ok((subject, claims.exp))
    }

    /// A token's claims and granted scopes, once its signature, issuer,
    /// audience and expiry hold.
    fn check(&self, token: &str) -> Result<(Claims, Vec<String>), AuthError> {
        if token.is_empty() {
            return Err(AuthError::Missing);
        }
        let invalid = |error: jsonwebtoken::errors::Error| AuthError::Invalid(error.to_string());
        let header = jsonwebtoken::decode_header(token).map_err(invalid)?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(AuthError::Invalid(format!(
                "the algorithm {:?} is not accepted",
                header.alg
            )));
        }
        let jwk = self
            .key_for(header.kid.as_deref())
            .ok_or_else(|| AuthError::Invalid("no key of the issuer's JWKS signed it".into()))?;
        let key = DecodingKey::from_jwk(&jwk).map_err(invalid)?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let claims = jsonwebtoken::decode::<Claims>(token, &key, &validation)
            .map_err(invalid)?
            .claims;
        let granted: Vec<String> = claims
            .scope
            .split_whitespace()
            .map(str::to_owned)
            .chain(claims.scp.iter().cloned())
            .collect();
        Ok((claims, granted))
    }
}

impl Caller {
    /// `Ok` when one of the caller's scopes lets a call with these
    /// annotations through; else why not, naming each scope's refusal.
    pub fn allows(&self, annotations: &Annotations) -> Result<(), String> {
        let mut refusals = Vec::new();
        for (scope, profile) in &self.profiles {
            match profile.check(annotations) {
                Ok(()) => return Ok(()),
                Err(violation) => refusals.push(format!("scope `{scope}`: {violation}")),
            }
        }
        Err(refusals.join("; "))
    }

    /// `Ok` when the token meets one of the call's `securitySchemes` (SEP-1488,
    /// as the upstream resolved them for these arguments, or as it listed
    /// them): `noauth`, or `oauth2` with every scope it names granted. Schemes
    /// of other types are the upstream's to check. Else the scopes missing,
    /// for the refusal.
    pub fn authorizes(&self, schemes: &Value) -> Result<(), String> {
        let Some(schemes) = schemes.as_array() else {
            return Err(format!(
                "the upstream's securitySchemes are not a list: {schemes}"
            ));
        };
        let mut needs = Vec::new();
        for scheme in schemes {
            match scheme["type"].as_str() {
                Some("noauth") => return Ok(()),
                Some("oauth2") => {
                    let scopes: Vec<&str> = scheme["scopes"]
                        .as_array()
                        .map(|scopes| scopes.iter().filter_map(Value::as_str).collect())
                        .unwrap_or_default();
                    let missing: Vec<&str> = scopes
                        .into_iter()
                        .filter(|scope| !self.granted.iter().any(|granted| granted == scope))
                        .collect();
                    if missing.is_empty() {
                        return Ok(());
                    }
                    needs.push(format!("`{}`", missing.join(" ")));
                }
                _ => return Ok(()),
            }
        }
        if needs.is_empty() {
            return Ok(());
        }
        Err(format!(
            "it needs the scope {}, which the token does not grant",
            needs.join(" or ")
        ))
    }
}

fn read_jwks(path: &Path) -> Result<JwkSet, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|error| ConfigError::Parse {
        path: path.to_owned(),
        message: format!("not a JWKS: {error}"),
    })
}
