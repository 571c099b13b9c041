//! A toy OAuth issuer for tests and measurements, never for real use: one
//! Ed25519 key derived from a seed given on the command line, its JWKS, and
//! bearer tokens signed with it, as `[auth]` checks them
//! (`annot-gateway/tests/scaleout.sh`).
//!
//! ```sh
//! cargo run -p annot-gateway --example test_issuer -- jwks --seed 7 > jwks.json
//! cargo run -p annot-gateway --example test_issuer -- token --seed 7 \
//!     --issuer http://127.0.0.1:9000 --audience annot-gateway --subject alice --scope files:write
//! ```
//!
//! A token is valid for `--minutes` (default 60).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;

const USAGE: &str = "usage: test_issuer jwks --seed N | test_issuer token --seed N --issuer URL \
--audience NAME --subject NAME --scope SCOPES [--minutes N]";
const KEY_ID: &str = "test-issuer";

fn main() {
    if let Err(message) = run() {
        eprintln!("test_issuer: {message}\n{USAGE}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut arguments = std::env::args().skip(1);
    let command = arguments.next().ok_or("jwks or token?")?;
    let mut flags = std::collections::BTreeMap::new();
    while let Some(flag) = arguments.next() {
        let value = arguments
            .next()
            .ok_or_else(|| format!("{flag} needs a value"))?;
        flags.insert(flag, value);
    }
    let flag = |name: &str| {
        flags
            .get(name)
            .cloned()
            .ok_or_else(|| format!("{name} is required"))
    };
    let seed: u8 = flag("--seed")?
        .parse()
        .map_err(|error| format!("--seed: {error}"))?;
    let secret = [seed; 32];
    match command.as_str() {
        "jwks" => {
            let public = ed25519_dalek::SigningKey::from_bytes(&secret)
                .verifying_key()
                .to_bytes();
            let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": URL_SAFE_NO_PAD.encode(public),
                             "kid": KEY_ID, "alg": "EdDSA", "use": "sig"});
            println!("{}", json!({"keys": [jwk]}));
        }
        "token" => {
            let minutes: u64 = flags
                .get("--minutes")
                .map_or(Ok(60), |text| text.parse())
                .map_err(|error| format!("--minutes: {error}"))?;
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_err(|error| error.to_string())?
                .as_secs();
            let claims = json!({"iss": flag("--issuer")?, "aud": flag("--audience")?,
                "sub": flag("--subject")?, "scope": flag("--scope")?, "exp": now + 60 * minutes});
            // PKCS#8 DER of an Ed25519 private key (RFC 8410): a fixed prefix, then the seed.
            let mut der = vec![
                0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22,
                0x04, 0x20,
            ];
            der.extend_from_slice(&secret);
            let mut header = Header::new(Algorithm::EdDSA);
            header.kid = Some(KEY_ID.to_owned());
            let token = jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ed_der(&der))
                .map_err(|error| error.to_string())?;
            println!("{token}");
        }
        other => return Err(format!("unknown command `{other}`")),
    }
    Ok(())
}
