//! Callers over HTTP, as an OAuth 2.1 resource server: a bearer token (a
//! JWT signed by a key of the issuer's JWKS, for this audience, unexpired)
//! names the caller's scopes, and the configuration maps scopes to
//! profiles. A call passes when the gateway's profile and one of the
//! caller's scopes' profiles let it through. Tokens are never logged.

use std::collections::BTreeMap;

use annot_runtime::Annotations;
use annot_runtime::server::Profile;
use jsonwebtoken::jwk::JwkSet;
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
    keys: JwkSet,
    scopes: BTreeMap<String, Profile>,
    resource_metadata: Option<String>,
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
    /// From `[auth]`: reads the JWKS and the scope map.
    pub fn from_section(section: &AuthSection) -> Result<Authenticator, ConfigError> {
        let text =
            std::fs::read_to_string(&section.jwks_file).map_err(|source| ConfigError::Read {
                path: section.jwks_file.clone(),
                source,
            })?;
        let keys: JwkSet = serde_json::from_str(&text).map_err(|error| ConfigError::Parse {
            path: section.jwks_file.clone(),
            message: format!("not a JWKS: {error}"),
        })?;
        let mut scopes = BTreeMap::new();
        for (scope, profile) in &section.scopes {
            scopes.insert(scope.clone(), parse_profile(profile)?);
        }
        Ok(Authenticator {
            issuer: section.issuer.clone(),
            audience: section.audience.clone(),
            keys,
            scopes,
            resource_metadata: section.resource_metadata.clone(),
        })
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
        let jwk = match &header.kid {
            Some(kid) => self.keys.find(kid),
            None if self.keys.keys.len() == 1 => self.keys.keys.first(),
            None => None,
        }
        .ok_or_else(|| AuthError::Invalid("no key of the issuer's JWKS signed it".into()))?;
        let key = DecodingKey::from_jwk(jwk).map_err(invalid)?;
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
