//! `sha256:` digests of canonical JSON (RFC 8785).

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `sha256:` and the lowercase hex digest of `value`'s canonical bytes.
pub fn of(value: &Value) -> String {
    let bytes = serde_jcs::to_vec(value).expect("a JSON value has a canonical form");
    let digest = Sha256::digest(&bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in digest {
        text.push_str(&format!("{byte:02x}"));
    }
    text
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
    fn matches_a_digest_computed_elsewhere() {
        // printf '{"a":1}' | sha256sum
        assert_eq!(
            super::of(&json!({"a": 1})),
            "sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"
        );
    }
}
