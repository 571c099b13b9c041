//! Bearer tokens as an issuer mints them (an Ed25519 key the test makes,
//! published as a JWKS), and the gateway's check of them through its public
//! API: the one token helper of the suite.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use annot_gateway::auth::{AuthError, Authenticator};
use annot_gateway::config::AuthSection;
use annot_runtime::Annotations;

pub const ISSUER: &str = "http://127.0.0.1:9000";
pub const AUDIENCE: &str = "annot-gateway";

/// An issuer's signing key and its public JWK.
pub struct Issuer {
    key: EncodingKey,
    pub jwk: Value,
}

impl Issuer {
    /// An Ed25519 key from `seed`: its PKCS#8 DER (RFC 8410) and its JWK.
    pub fn new(seed: u8, kid: &str) -> Issuer {
        let secret = [seed; 32];
        let public = ed25519_dalek::SigningKey::from_bytes(&secret)
            .verifying_key()
            .to_bytes();
        let mut der = vec![
            0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22,
            0x04, 0x20,
        ];
        der.extend_from_slice(&secret);
        Issuer {
            key: EncodingKey::from_ed_der(&der),
            jwk: json!({"kty": "OKP", "crv": "Ed25519", "x": URL_SAFE_NO_PAD.encode(public),
                        "kid": kid, "alg": "EdDSA", "use": "sig"}),
        }
    }

    /// The JWKS that publishes this key.
    pub fn jwks(&self) -> Value {
        json!({"keys": [self.jwk]})
    }

    /// A token of `claims`, signed under key id `kid`.
    pub fn mint(&self, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(kid.to_owned());
        jsonwebtoken::encode(&header, claims, &self.key).unwrap()
    }
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Claims for `sub` with `scope`, valid for ten minutes.
pub fn claims(sub: &str, scope: &str) -> Value {
    json!({"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "scope": scope, "exp": now() + 600})
}

/// `[auth]` for `issuer`'s JWKS (written into `directory`): `files:read` is
/// read-only, `files:write` anything but destructive.
pub fn auth_section(issuer: &Issuer, directory: &std::path::Path) -> String {
    let jwks = directory.join("jwks.json");
    std::fs::write(&jwks, issuer.jwks().to_string()).unwrap();
    format!(
        "[auth]\nissuer = \"{ISSUER}\"\naudience = \"{AUDIENCE}\"\njwks_file = \"{}\"\n\
         scopes = {{ \"files:read\" = \"read-only\", \"files:write\" = \"no-destructive\" }}\n",
        jwks.display()
    )
}

/// Every kind of bad token: a name, and the token.
pub fn bad_tokens(issuer: &Issuer) -> Vec<(&'static str, String)> {
    let mut expired = claims("alice", "files:read");
    expired["exp"] = json!(now() - 3600);
    let mut audience = claims("alice", "files:read");
    audience["aud"] = json!("someone-else");
    let mut stranger = claims("alice", "files:read");
    stranger["iss"] = json!("http://evil.example");
    let good = issuer.mint("k1", &claims("alice", "files:read"));
    let (head, rest) = good.split_once('.').unwrap();
    let (_, signature) = rest.split_once('.').unwrap();
    let forged = URL_SAFE_NO_PAD.encode(claims("alice", "files:write").to_string());
    let unsigned = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(claims("alice", "files:read").to_string())
    );
    let public = URL_SAFE_NO_PAD
        .decode(issuer.jwk["x"].as_str().unwrap())
        .unwrap();
    let mut hmac = Header::new(Algorithm::HS256);
    hmac.kid = Some("k1".into());
    let confused = jsonwebtoken::encode(
        &hmac,
        &claims("alice", "files:read"),
        &EncodingKey::from_secret(&public).unwrap(),
    )
    .unwrap();
    vec![
        ("expired", issuer.mint("k1", &expired)),
        ("wrong audience", issuer.mint("k1", &audience)),
        ("wrong issuer", issuer.mint("k1", &stranger)),
        (
            "another key",
            Issuer::new(9, "k1").mint("k1", &claims("alice", "files:read")),
        ),
        ("tampered", format!("{head}.{forged}.{signature}")),
        ("alg none", unsigned),
        ("public key as HMAC secret", confused),
        (
            "unknown kid",
            issuer.mint("k9", &claims("alice", "files:read")),
        ),
        ("not a JWT", "abc".to_owned()),
    ]
}

fn authenticator(issuer: &Issuer) -> (tempfile::TempDir, Authenticator) {
    let directory = tempfile::tempdir().unwrap();
    let text = auth_section(issuer, directory.path());
    let section: toml::Table = toml::from_str(&text).unwrap();
    let section: AuthSection = section["auth"].clone().try_into().unwrap();
    let authenticator = Authenticator::from_section(&section).unwrap();
    (directory, authenticator)
}

#[test]
fn a_valid_token_names_the_profiles_of_its_scopes() {
    let issuer = Issuer::new(7, "k1");
    let (_directory, gate) = authenticator(&issuer);
    let token = issuer.mint("k1", &claims("alice", "openid files:read"));
    let caller = gate.authenticate(Some(&format!("Bearer {token}"))).unwrap();
    assert_eq!(caller.subject.as_deref(), Some("alice"));
    let read = Annotations::new().read_only(true).open_world(false);
    let append = Annotations::new()
        .read_only(false)
        .destructive(false)
        .open_world(false);
    assert!(caller.allows(&read).is_ok());
    let refusal = caller.allows(&append).unwrap_err();
    assert!(
        refusal.contains("files:read") && refusal.contains("readOnlyHint"),
        "{refusal}"
    );

    let both = issuer.mint("k1", &claims("alice", "files:read files:write"));
    let caller = gate.authenticate(Some(&format!("Bearer {both}"))).unwrap();
    let delete = Annotations::new()
        .read_only(false)
        .destructive(true)
        .open_world(false);
    assert!(caller.allows(&append).is_ok());
    assert!(caller.allows(&delete).is_err());
}

#[test]
fn every_bad_token_is_refused_with_401_and_the_reason() {
    let issuer = Issuer::new(7, "k1");
    let (_directory, gate) = authenticator(&issuer);
    for (name, token) in bad_tokens(&issuer) {
        let error = gate
            .authenticate(Some(&format!("Bearer {token}")))
            .unwrap_err();
        assert!(matches!(error, AuthError::Invalid(_)), "{name}: {error:?}");
        assert_eq!(error.status(), 401, "{name}");
        let challenge = error.www_authenticate(None);
        assert!(
            challenge.contains("error=\"invalid_token\""),
            "{name}: {challenge}"
        );
    }
}

#[test]
fn no_token_and_no_scope_are_told_apart() {
    let issuer = Issuer::new(7, "k1");
    let (_directory, gate) = authenticator(&issuer);
    assert_eq!(gate.authenticate(None), Err(AuthError::Missing));
    assert_eq!(
        gate.authenticate(Some("Basic YWxpY2U6")),
        Err(AuthError::Missing)
    );
    let url = "http://127.0.0.1:8080/.well-known/oauth-protected-resource";
    assert_eq!(
        AuthError::Missing.www_authenticate(Some(url)),
        format!("Bearer realm=\"annot-gateway\", resource_metadata=\"{url}\"")
    );
    let token = issuer.mint("k1", &claims("alice", "openid profile"));
    let error = gate
        .authenticate(Some(&format!("Bearer {token}")))
        .unwrap_err();
    assert_eq!(error.status(), 403);
    let challenge = error.www_authenticate(None);
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(
        challenge.contains("scope=\"files:read files:write\""),
        "{challenge}"
    );
}
