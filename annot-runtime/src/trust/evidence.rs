//! Deriving and checking an `evidenceRef` digest: the record is made canonical
//! by a maintained encoder (`serde_jcs` for RFC 8785, `ciborium`'s canonical
//! ordering for RFC 8949 §4.2.1), then hashed with SHA-256.

use ciborium::value::{CanonicalValue, Integer};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{Canonicalization, EvidenceRef};

/// Why an evidence digest could not be derived or did not match.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum EvidenceError {
    /// The `canonicalization` is neither `jcs/rfc8785` nor `cbor/rfc8949`.
    #[error("unknown canonicalization `{0}`")]
    UnknownCanonicalization(String),
    /// CBOR takes integers only: a JSON fraction or exponent has no single
    /// deterministic CBOR form that both sides would agree on.
    #[error("`{0}` is not an integer: cbor/rfc8949 evidence records take integers only")]
    NotAnInteger(String),
    /// The encoder refused the record.
    #[error("the record cannot be made canonical: {0}")]
    Encoding(String),
    /// The record hashes to another digest than the one claimed.
    #[error("digest mismatch: the reference says {claimed}, the record hashes to {derived}")]
    Mismatch {
        /// The digest in the reference.
        claimed: String,
        /// The digest of the record at hand.
        derived: String,
    },
}

impl Canonicalization {
    /// The canonical bytes of `record` under this scheme.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::trust::Canonicalization;
    /// use serde_json::json;
    ///
    /// let record = json!({"b": 1, "a": 2, "aa": 3});
    /// assert_eq!(Canonicalization::Jcs.bytes(&record).unwrap(), br#"{"a":2,"aa":3,"b":1}"#);
    /// // Length first, then bytewise: "a", "b", then "aa".
    /// let cbor = Canonicalization::Cbor.bytes(&record).unwrap();
    /// assert_eq!(cbor, [0xa3, 0x61, 0x61, 0x02, 0x61, 0x62, 0x01, 0x62, 0x61, 0x61, 0x03]);
    /// ```
    pub fn bytes(self, record: &Value) -> Result<Vec<u8>, EvidenceError> {
        match self {
            Canonicalization::Jcs => serde_jcs::to_vec(record)
                .map_err(|error| EvidenceError::Encoding(error.to_string())),
            Canonicalization::Cbor => {
                let mut bytes = Vec::new();
                ciborium::into_writer(&cbor_value(record)?, &mut bytes)
                    .map_err(|error| EvidenceError::Encoding(error.to_string()))?;
                Ok(bytes)
            }
        }
    }

    /// `sha256:` and the lowercase hex SHA-256 of the canonical bytes.
    pub fn digest(self, record: &Value) -> Result<String, EvidenceError> {
        let hash = Sha256::digest(self.bytes(record)?);
        let hex: String = hash.iter().map(|byte| format!("{byte:02x}")).collect();
        Ok(format!("sha256:{hex}"))
    }
}

/// A JSON value as a CBOR value whose maps are in canonical order (RFC 8949
/// §4.2.1: keys sorted by their encoded bytes, shorter first). Serialising a
/// JSON map as it stands would keep its own (alphabetical) order.
fn cbor_value(value: &Value) -> Result<ciborium::Value, EvidenceError> {
    Ok(match value {
        Value::Null => ciborium::Value::Null,
        Value::Bool(flag) => ciborium::Value::Bool(*flag),
        Value::Number(number) => {
            let integer = match (number.as_u64(), number.as_i64()) {
                (Some(unsigned), _) => Integer::from(unsigned),
                (None, Some(signed)) => Integer::from(signed),
                (None, None) => return Err(EvidenceError::NotAnInteger(number.to_string())),
            };
            ciborium::Value::Integer(integer)
        }
        Value::String(text) => ciborium::Value::Text(text.clone()),
        Value::Array(items) => {
            ciborium::Value::Array(items.iter().map(cbor_value).collect::<Result<_, _>>()?)
        }
        Value::Object(members) => {
            let mut entries = members
                .iter()
                .map(|(key, member)| {
                    let key = CanonicalValue::from(ciborium::Value::Text(key.clone()));
                    Ok((key, cbor_value(member)?))
                })
                .collect::<Result<Vec<_>, EvidenceError>>()?;
            entries.sort_by(|left, right| left.0.cmp(&right.0));
            ciborium::Value::Map(
                entries
                    .into_iter()
                    .map(|(key, member)| (key.into(), member))
                    .collect(),
            )
        }
    })
}

impl EvidenceRef {
    /// A reference of kind `kind` committing to `record` under `scheme`.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::trust::{Canonicalization, EvidenceRef};
    /// use serde_json::json;
    ///
    /// let record = json!({"decision": "deny", "stage": "pre_call"});
    /// let evidence = EvidenceRef::derive("policy-decision", &record, Canonicalization::Jcs).unwrap();
    /// assert!(evidence.digest.starts_with("sha256:"));
    /// assert_eq!(evidence.verify(&record), Ok(()));
    /// assert!(evidence.verify(&json!({"decision": "allow"})).is_err());
    /// ```
    pub fn derive(
        kind: impl Into<String>,
        record: &Value,
        scheme: Canonicalization,
    ) -> Result<EvidenceRef, EvidenceError> {
        Ok(EvidenceRef {
            kind: kind.into(),
            digest: scheme.digest(record)?,
            canonicalization: scheme.name().to_owned(),
            schema: None,
            reference: None,
        })
    }

    /// Names the schema of the record.
    #[must_use]
    pub fn with_schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = Some(schema.into());
        self
    }

    /// Names where the record can be fetched.
    #[must_use]
    pub fn with_reference(mut self, reference: impl Into<String>) -> Self {
        self.reference = Some(reference.into());
        self
    }

    /// Re-derives the digest of `record` under this reference's own
    /// canonicalization and compares it with the claimed one.
    pub fn verify(&self, record: &Value) -> Result<(), EvidenceError> {
        let scheme = Canonicalization::named(&self.canonicalization)
            .ok_or_else(|| EvidenceError::UnknownCanonicalization(self.canonicalization.clone()))?;
        let derived = scheme.digest(record)?;
        if derived == self.digest {
            Ok(())
        } else {
            Err(EvidenceError::Mismatch {
                claimed: self.digest.clone(),
                derived,
            })
        }
    }
}
