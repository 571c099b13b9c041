//! Tokens minted here with a key made here, as an issuer would.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use super::{AuthError, Authenticator};
use annot_runtime::Annotations;
use annot_runtime::server::Profile;

const ISSUER: &str = "http://127.0.0.1:9000";
const AUDIENCE: &str = "annot-gateway";

struct Issuer {
    key: EncodingKey,
    jwk: Value,
}

/// An Ed25519 key from `seed`, as its PKCS#8 DER (RFC 8410) and its JWK.
fn issuer(seed: u8, kid: &str) -> Issuer {
    let secret = [seed; 32];
    let public = ed25519_dalek::SigningKey::from_bytes(&secret)
        .verifying_key()
        .to_bytes();
    let mut der = vec![
        0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04,
        0x20,
    ];
    der.extend_from_slice(&secret);
    Issuer {
        key: EncodingKey::from_ed_der(&der),
        jwk: json!({"kty": "OKP", "crv": "Ed25519", "x": URL_SAFE_NO_PAD.encode(public),
                    "kid": kid, "alg": "EdDSA", "use": "sig"}),
    }
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn claims(scope: &str) -> Value {
    json!({"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "scope": scope, "exp": now() + 600})
}

fn mint(issuer: &Issuer, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::EdDSA);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &issuer.key).unwrap()
}

fn authenticator(issuer: &Issuer) -> Authenticator {
    Authenticator {
        issuer: ISSUER.into(),
        audience: AUDIENCE.into(),
        keys: serde_json::from_value(json!({"keys": [issuer.jwk]})).unwrap(),
        scopes: [
            ("files:read".to_owned(), Profile::read_only()),
            ("files:write".to_owned(), Profile::no_destructive()),
        ]
        .into(),
        resource_metadata: None,
    }
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

#[test]
fn a_valid_token_names_the_profiles_of_its_scopes() {
    let issuer = issuer(7, "k1");
    let gate = authenticator(&issuer);
    let token = mint(&issuer, "k1", &claims("openid files:read"));
    let caller = gate.authenticate(Some(&bearer(&token))).unwrap();
    assert_eq!(caller.subject.as_deref(), Some("alice"));
    assert_eq!(
        caller.profiles,
        [("files:read".to_owned(), Profile::read_only())]
    );
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
}

#[test]
fn a_token_with_two_scopes_passes_what_either_lets_through() {
    let issuer = issuer(7, "k1");
    let token = mint(&issuer, "k1", &claims("files:read files:write"));
    let caller = authenticator(&issuer)
        .authenticate(Some(&bearer(&token)))
        .unwrap();
    let append = Annotations::new()
        .read_only(false)
        .destructive(false)
        .open_world(false);
    let delete = Annotations::new()
        .read_only(false)
        .destructive(true)
        .open_world(false);
    assert!(caller.allows(&append).is_ok());
    assert!(caller.allows(&delete).is_err());
}

#[test]
fn bad_tokens_are_refused_with_401_and_the_reason() {
    let issuer = issuer(7, "k1");
    let gate = authenticator(&issuer);
    let mut expired = claims("files:read");
    expired["exp"] = json!(now() - 3600);
    let mut audience = claims("files:read");
    audience["aud"] = json!("someone-else");
    let mut stranger = claims("files:read");
    stranger["iss"] = json!("http://evil.example");
    let other_key = mint(&issuer_of_seed(9), "k1", &claims("files:read"));
    let good = mint(&issuer, "k1", &claims("files:read"));
    let (head, rest) = good.split_once('.').unwrap();
    let (_, signature) = rest.split_once('.').unwrap();
    let forged_payload = URL_SAFE_NO_PAD.encode(claims("files:write").to_string());
    let tampered = format!("{head}.{forged_payload}.{signature}");
    let unsigned = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(claims("files:read").to_string())
    );
    let cases = [
        ("expired", mint(&issuer, "k1", &expired)),
        ("wrong audience", mint(&issuer, "k1", &audience)),
        ("wrong issuer", mint(&issuer, "k1", &stranger)),
        ("another key", other_key),
        ("tampered", tampered),
        ("alg none", unsigned),
        ("unknown kid", mint(&issuer, "k9", &claims("files:read"))),
        ("not a JWT", "abc".to_owned()),
    ];
    for (name, token) in cases {
        let error = gate.authenticate(Some(&bearer(&token))).unwrap_err();
        assert!(matches!(error, AuthError::Invalid(_)), "{name}: {error:?}");
        assert_eq!(error.status(), 401, "{name}");
        assert!(
            error
                .www_authenticate(None)
                .contains("error=\"invalid_token\""),
            "{name}"
        );
    }
}

fn issuer_of_seed(seed: u8) -> Issuer {
    issuer(seed, "k1")
}

#[test]
fn a_public_key_used_as_an_hmac_secret_is_refused() {
    let issuer = issuer(7, "k1");
    let public = URL_SAFE_NO_PAD
        .decode(issuer.jwk["x"].as_str().unwrap())
        .unwrap();
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("k1".into());
    let token = jsonwebtoken::encode(
        &header,
        &claims("files:read"),
        &EncodingKey::from_secret(&public).unwrap(),
    )
    .unwrap();
    let error = authenticator(&issuer)
        .authenticate(Some(&bearer(&token)))
        .unwrap_err();
    assert!(matches!(error, AuthError::Invalid(_)), "{error:?}");
}

#[test]
fn no_token_and_no_scope_are_told_apart() {
    let issuer = issuer(7, "k1");
    let gate = authenticator(&issuer);
    assert_eq!(gate.authenticate(None), Err(AuthError::Missing));
    assert_eq!(
        gate.authenticate(Some("Basic YWxpY2U6")),
        Err(AuthError::Missing)
    );
    assert_eq!(
        AuthError::Missing.www_authenticate(Some(
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        )),
        "Bearer realm=\"annot-gateway\", resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource\""
    );
    let token = mint(&issuer, "k1", &claims("openid profile"));
    let error = gate.authenticate(Some(&bearer(&token))).unwrap_err();
    assert_eq!(error.status(), 403);
    assert!(
        error
            .www_authenticate(None)
            .contains("error=\"insufficient_scope\"")
    );
    assert!(
        error
            .www_authenticate(None)
            .contains("scope=\"files:read files:write\"")
    );
}
