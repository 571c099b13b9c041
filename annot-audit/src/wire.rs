//! JSON-RPC messages as bytes: how requests are written, how a response is
//! read back without an SDK's models, and where the bytes hide duplicated keys
//! that a `serde_json::Value` would silently collapse.

use std::fmt;

use serde::Serialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};

/// One request and what came back, byte for byte: the evidence of a verdict.
#[derive(Clone, Debug, Serialize)]
pub struct Exchange {
    /// The exact request text sent.
    pub request: String,
    /// The exact response text received, if any.
    pub response: Option<String>,
    /// Why there was no response (timeout, closed pipe, HTTP failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl Exchange {
    /// The parsed response, when it is JSON.
    pub fn parsed(&self) -> Option<Value> {
        self.response
            .as_deref()
            .and_then(|text| serde_json::from_str(text).ok())
    }

    /// The `result` member of the response.
    pub fn result(&self) -> Option<Value> {
        self.parsed()?.get("result").cloned()
    }

    /// The `error.code` of the response.
    pub fn error_code(&self) -> Option<i64> {
        self.parsed()?.get("error")?.get("code")?.as_i64()
    }

    /// A one-line account for tables and messages.
    pub fn outcome(&self) -> String {
        match (self.error_code(), self.result(), &self.failure) {
            (Some(code), _, _) => format!("error {code}"),
            (None, Some(_), _) => "result".to_owned(),
            (None, None, Some(failure)) => format!("no answer ({failure})"),
            (None, None, None) => "an answer that is neither result nor error".to_owned(),
        }
    }
}

/// A request's text.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// A notification's text.
pub fn notification(method: &str) -> String {
    json!({"jsonrpc": "2.0", "method": method}).to_string()
}

/// The JSON pointers of every object in `text` that repeats a key, with the
/// key: `("/result/tools/0/annotations", "readOnlyHint")`.
pub fn duplicate_keys(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let scan = Scan {
        pointer: String::new(),
        found: &mut found,
    };
    // Text that is not JSON has no duplicates to report: its parse fails elsewhere.
    let _ = scan.deserialize(&mut deserializer);
    found
}

struct Scan<'a> {
    pointer: String,
    found: &'a mut Vec<(String, String)>,
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = std::collections::BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                self.found.push((self.pointer.clone(), key.clone()));
            }
            map.next_value_seed(Scan {
                pointer: format!("{}/{}", self.pointer, escape(&key)),
                found: self.found,
            })?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while seq
            .next_element_seed(Scan {
                pointer: format!("{}/{index}", self.pointer),
                found: self.found,
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        IgnoredAny::deserialize(deserializer).map(|_| ())
    }
}

use serde::Deserialize as _;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_duplicated_hint_where_value_keeps_one() {
        let text = r#"{"result":{"tools":[{"name":"a","annotations":{"readOnlyHint":true,"readOnlyHint":false}}]}}"#;
        assert_eq!(
            duplicate_keys(text),
            [(
                "/result/tools/0/annotations".to_owned(),
                "readOnlyHint".to_owned()
            )]
        );
        assert!(duplicate_keys(r#"{"a":{"b":1},"c":[{"b":2}]}"#).is_empty());
    }
}
