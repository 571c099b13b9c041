//! HTTP methods as the actions of an HTTP-backed tool.

use core::fmt;
use core::str::FromStr;

use crate::{Action, AnnotatedActions, Annotations};

/// The method of an HTTP request, with the hints of seed 002's inference
/// table built in, for use as the action field of an annotated struct.
///
/// | method | readOnlyHint | destructiveHint | idempotentHint |
/// |---|---|---|---|
/// | `GET`, `HEAD`, `OPTIONS` | true | (false) | (true) |
/// | `POST` | false | false | false |
/// | `PUT` | false | false | true |
/// | `PATCH` | false | false | false |
/// | `DELETE` | false | true | true |
///
/// `openWorldHint` and the SEP-1984 hints are left to the tool
/// (`#[mcp_tool(open_world = true)]`). The read-only methods declare
/// `readOnlyHint` only: the values in parentheses are what
/// [`Annotations::effective`] implies for a read, and a rule that turns
/// `read_only` off on a `GET` gets the hints any read-only action would get
/// (the tool's defaults, then the specification's: destructive, not
/// idempotent), not a `GET`-specific guess.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::{AnnotatedActions, HttpMethod};
///
/// let delete: HttpMethod = "DELETE".parse().unwrap();
/// assert_eq!(delete.action().annotations.destructive, Some(true));
/// assert!(HttpMethod::Get.action().annotations.is_read_only());
/// assert_eq!(HttpMethod::NAMES[3], "POST");
/// ```
///
/// To change one method's hints in a tool, write a rule on the discriminator,
/// which the macro checks against these names at compile time and which
/// replaces the table's value for that method (also in the static bound, as
/// it always fires on it):
///
/// ```text
/// #[mcp_tool(
///     discriminator = "method",
///     // Deleting a cache entry loses nothing that cannot be fetched again.
///     when(method == "DELETE") => (destructive = false),
/// )]
/// struct Cache { method: HttpMethod, path: String }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HttpMethod {
    /// `GET`: fetch a resource.
    Get,
    /// `HEAD`: fetch a resource's headers.
    Head,
    /// `OPTIONS`: ask which methods a resource allows.
    Options,
    /// `POST`: create a resource or start a process.
    Post,
    /// `PUT`: create or replace a resource.
    Put,
    /// `PATCH`: change part of a resource.
    Patch,
    /// `DELETE`: remove a resource.
    Delete,
}

const READ: Annotations = Annotations::new().read_only(true);

impl HttpMethod {
    /// Every method, in the order of [`AnnotatedActions::ACTIONS`].
    pub const ALL: [HttpMethod; 7] = [
        HttpMethod::Get,
        HttpMethod::Head,
        HttpMethod::Options,
        HttpMethod::Post,
        HttpMethod::Put,
        HttpMethod::Patch,
        HttpMethod::Delete,
    ];

    /// The method's name, upper case (`"GET"`).
    pub const fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Head => "HEAD",
            HttpMethod::Options => "OPTIONS",
            HttpMethod::Post => "POST",
            HttpMethod::Put => "PUT",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
        }
    }

    /// The hints seed 002 infers for the method.
    pub const fn inferred_annotations(self) -> Annotations {
        match self {
            HttpMethod::Get | HttpMethod::Head | HttpMethod::Options => READ,
            HttpMethod::Post | HttpMethod::Patch => Annotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(false),
            HttpMethod::Put => Annotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(true),
            HttpMethod::Delete => Annotations::new()
                .read_only(false)
                .destructive(true)
                .idempotent(true),
        }
    }

    const fn action(self) -> Action {
        Action {
            name: self.as_str(),
            annotations: self.inferred_annotations(),
        }
    }
}

impl AnnotatedActions for HttpMethod {
    const ACTIONS: &'static [Action] = &[
        HttpMethod::Get.action(),
        HttpMethod::Head.action(),
        HttpMethod::Options.action(),
        HttpMethod::Post.action(),
        HttpMethod::Put.action(),
        HttpMethod::Patch.action(),
        HttpMethod::Delete.action(),
    ];
    const NAMES: &'static [&'static str] =
        &["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];
    const NAMES_JSON: &'static str = r#"["GET","HEAD","OPTIONS","POST","PUT","PATCH","DELETE"]"#;
    const SCHEMA: &'static str = concat!(
        r#"{"type":"string","enum":["GET","HEAD","OPTIONS","POST","PUT","PATCH","DELETE"],"#,
        r#""description":"The HTTP method of the request.\n`GET`: fetch a resource.\n"#,
        r#"`HEAD`: fetch a resource's headers.\n`OPTIONS`: ask which methods a resource allows.\n"#,
        r#"`POST`: create a resource or start a process.\n`PUT`: create or replace a resource.\n"#,
        r#"`PATCH`: change part of a resource.\n`DELETE`: remove a resource."}"#
    );

    fn index(self) -> usize {
        self as usize
    }

    fn from_name(name: &str) -> Option<Self> {
        HttpMethod::ALL
            .into_iter()
            .find(|method| method.as_str() == name)
    }
}

impl fmt::Display for HttpMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not one of the seven methods [`HttpMethod`] knows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown HTTP method `{0}`, expected one of GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE")]
pub struct UnknownMethod(pub String);

impl FromStr for HttpMethod {
    type Err = UnknownMethod;

    /// Parses an upper-case method name, as on the wire.
    fn from_str(name: &str) -> Result<Self, UnknownMethod> {
        HttpMethod::from_name(name).ok_or_else(|| UnknownMethod(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (method, action) in HttpMethod::ALL.iter().zip(HttpMethod::ACTIONS) {
            assert_eq!(method.as_str(), action.name);
            assert_eq!(HttpMethod::from_name(action.name), Some(*method));
            assert_eq!(action.name.parse::<HttpMethod>(), Ok(*method));
        }
        assert_eq!(HttpMethod::NAMES.len(), HttpMethod::ACTIONS.len());
        for method in HttpMethod::ALL {
            assert_eq!(method.action().name, method.as_str());
        }
        let json: Vec<String> = serde_json::from_str(HttpMethod::NAMES_JSON).unwrap();
        assert_eq!(json, HttpMethod::NAMES);
        assert!("get".parse::<HttpMethod>().is_err());
    }

    #[test]
    fn schema_is_a_string_enum_of_the_names() {
        let schema: serde_json::Value = serde_json::from_str(HttpMethod::SCHEMA).unwrap();
        assert_eq!(schema["type"], "string");
        assert_eq!(
            schema["enum"],
            serde_json::from_str::<serde_json::Value>(HttpMethod::NAMES_JSON).unwrap()
        );
    }

    #[test]
    fn the_table_of_seed_002() {
        let hints = |method: HttpMethod| {
            let a = method.action().annotations.effective();
            (a.read_only, a.destructive, a.idempotent)
        };
        let t = Some(true);
        let f = Some(false);
        for read in [HttpMethod::Get, HttpMethod::Head, HttpMethod::Options] {
            assert_eq!(hints(read), (t, f, t));
        }
        assert_eq!(hints(HttpMethod::Post), (f, f, f));
        assert_eq!(hints(HttpMethod::Put), (f, f, t));
        assert_eq!(hints(HttpMethod::Patch), (f, f, f));
        assert_eq!(hints(HttpMethod::Delete), (f, t, t));
        // Reads declare `readOnlyHint` only: the rest is what a read implies.
        for read in [HttpMethod::Get, HttpMethod::Head, HttpMethod::Options] {
            assert_eq!(
                read.action().annotations,
                Annotations::new().read_only(true)
            );
        }
        // The tool decides whether it reaches an open world.
        assert!(
            HttpMethod::ALL
                .iter()
                .all(|m| m.action().annotations.open_world.is_none())
        );
    }
}
