//! `sha256:` digests of canonical JSON (RFC 8785), and ids nobody can guess.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `sha256:` and the lowercase hex digest of `value`'s canonical bytes.
pub fn of(value: &Value) -> String {
    let bytes = serde_jcs::to_vec(value).expect("a JSON value has a canonical form");
    format!("sha256:{}", hex(&Sha256::digest(&bytes)))
}

/// 128 random bits in hex: a session's id, a confirmation's `requestState`.
pub fn random_id() -> String {
    static FALLBACK: AtomicU64 = AtomicU64::new(0);
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No entropy source: unique still, though not secret.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos());
        bytes = (nanos ^ u128::from(FALLBACK.fetch_add(1, Ordering::Relaxed))).to_le_bytes();
    }
    hex(&bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn key_order_and_spacing_do_not_change_the_digest() {
        let one = json!({"b": 1, "a": [true, "x"]});
        let two: serde_json::Value = serde_json::from_str(r#"{ "a":[true,"x"],"b":1 }"#).unwrap();
        assert_eq!(super::of(&one), super::of(&two));
        assert_ne!(
            super::of(&one),
            super::of(&json!({"b": 2, "a": [true, "x"]}))
        );
    }

    #[test]
    fn random_ids_are_128_bits_and_differ() {
        let (one, two) = (super::random_id(), super::random_id());
        assert_eq!(one.len(), 32);
        assert!(one.bytes().all(|byte| byte.is_ascii_hexdigit()));
        assert_ne!(one, two);
    }

    #[test]
    fn matches_a_digest_computed_elsewhere() {
        // printf '{"a":1}' | sha256sum
        assert_eq!(
            super::of(&json!({"a": 1})),
            "sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"
        );
    }
}
