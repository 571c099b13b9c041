//! What a tool handler returns, and how it becomes a `CallToolResult` (the
//! trust claims it may carry are `trust_claims.rs`'s).

use core::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::server::answers::trust_claims::{self, Blocks, Floor, OutputClaims};
use crate::trust::TrustClaims;

/// One block of a tool result's `content`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Content {
    /// Text for the model (`{"type": "text", "text": ...}`).
    Text {
        /// The text.
        text: String,
    },
    /// An image (`{"type": "image", "data": ..., "mimeType": ...}`).
    Image {
        /// The image bytes, base64-encoded.
        data: String,
        /// Its MIME type, such as `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }
}

/// The successful output of a tool handler: the `content` and optional
/// `structuredContent` of a `CallToolResult`, and the trust-annotations
/// claims the handler adds ([`with_claims`](Self::with_claims),
/// [`with_claimed_content`](Self::with_claimed_content)).
///
/// ```
/// # use annot_runtime as annot;
/// use annot::server::ToolOutput;
///
/// let output = ToolOutput::text("3 lines appended");
/// assert_eq!(output.content.len(), 1);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutput {
    /// The content blocks, in order.
    pub content: Vec<Content>,
    /// A JSON object for clients that read structured results.
    pub structured_content: Option<Map<String, Value>>,
    /// Only ever added to: see `trust_claims.rs`. Boxed: most outputs claim
    /// nothing of their own.
    pub(crate) claims: Option<Box<OutputClaims>>,
    /// The display-templates result-side text: see
    /// [`with_display_text`](Self::with_display_text).
    display_text: Option<Box<str>>,
}

impl ToolOutput {
    /// An output of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::text(text)],
            structured_content: None,
            claims: None,
            display_text: None,
        }
    }

    /// A structured output. The object is also given as a text block of its
    /// JSON, as the specification asks for clients that do not read
    /// `structuredContent`.
    pub fn structured(object: Map<String, Value>) -> Self {
        let text = Value::Object(object.clone()).to_string();
        ToolOutput {
            content: vec![Content::text(text)],
            structured_content: Some(object),
            claims: None,
            display_text: None,
        }
    }

    /// The structured output of a tool declared with
    /// `#[mcp_tool(output = Type)]`: `value`'s JSON object as
    /// `structuredContent`, and the same JSON as a text block (see
    /// [`structured`](Self::structured)). What rmcp's `Json<T>` return type
    /// does for an rmcp tool.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::ToolOutput;
    ///
    /// #[derive(serde::Serialize)]
    /// struct Report {
    ///     branch: String,
    ///     ahead: u32,
    /// }
    ///
    /// let output = ToolOutput::json(&Report { branch: "main".into(), ahead: 2 }).unwrap();
    /// assert_eq!(output.structured_content.unwrap()["ahead"], 2);
    /// assert!(ToolOutput::json(&[1, 2]).is_err()); // structuredContent is an object
    /// ```
    ///
    /// # Errors
    ///
    /// A tool error when `value` does not serialize to a JSON object (a
    /// number, a list, a map whose keys are not strings), which
    /// `structuredContent` must be.
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Self, ToolError> {
        match serde_json::to_value(value) {
            Ok(Value::Object(object)) => Ok(ToolOutput::structured(object)),
            Ok(other) => Err(ToolError::new(format!(
                "internal error: a structured result must be a JSON object, not {}",
                crate::argument_error::json_type(&other)
            ))),
            Err(error) => Err(ToolError::new(format!(
                "internal error: the structured result does not serialize: {error}"
            ))),
        }
    }

    /// Adds what happened, rendered for a person rather than the model
    /// ("moved 14 items to /archive"): the display-templates extension's
    /// result-side text, sent on the first content block as
    /// `_meta["io.modelcontextprotocol/display-templates"].text` (an output
    /// without content has no block to carry it). The extension asks for no
    /// negotiation; a client that does not know it ignores it.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::ToolOutput;
    ///
    /// let output = ToolOutput::text("{\"moved\":14}").with_display_text("moved 14 items");
    /// assert_eq!(output.display_text(), Some("moved 14 items"));
    /// ```
    #[must_use]
    pub fn with_display_text(mut self, text: impl Into<String>) -> Self {
        self.display_text = Some(text.into().into_boxed_str());
        self
    }

    /// The text set by [`with_display_text`](Self::with_display_text).
    pub fn display_text(&self) -> Option<&str> {
        self.display_text.as_deref()
    }

    /// Adds a content block.
    #[must_use]
    pub fn with_content(mut self, content: Content) -> Self {
        self.content.push(content);
        self
    }
}

// The trust claims a handler adds, which only ever strengthen (see
// `trust_claims.rs` for how they are written).
impl ToolOutput {
    /// Adds `claims` to the whole result. Claims only add up: each holds when
    /// any call to this method (or the call's floor) makes it, so passing
    /// [`TrustClaims::NONE`] changes nothing. The first evidence given is
    /// kept.
    ///
    /// The server sends the claims only to a client that negotiated the
    /// trust-annotations extension, joined with the call's floor
    /// ([`Call::trust_floor`](crate::server::Call::trust_floor)).
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::ToolOutput;
    /// use annot::trust::TrustClaims;
    ///
    /// let output = ToolOutput::text("the collaborator roster")
    ///     .with_claims(TrustClaims::NONE.sensitive())
    ///     .with_claims(TrustClaims::NONE); // no claim taken back
    /// assert!(output.claims().sensitive);
    /// ```
    #[must_use]
    pub fn with_claims(mut self, claims: TrustClaims) -> Self {
        self.claims.get_or_insert_default().add(&claims);
        self
    }

    /// Adds a content block that makes `claims` on its own `_meta`: one block
    /// of a result may be sensitive or untrusted when the others are not. A
    /// block's claim raises the result's, never lowers it.
    ///
    /// ```
    /// # use annot_runtime as annot;
    /// use annot::server::{Content, ToolOutput};
    /// use annot::trust::TrustClaims;
    ///
    /// let output = ToolOutput::text("README.md")
    ///     .with_claimed_content(Content::text("draft advisory"), TrustClaims::NONE.sensitive());
    /// assert_eq!(output.block_claims(0), None);
    /// assert!(output.block_claims(1).unwrap().sensitive);
    /// ```
    #[must_use]
    pub fn with_claimed_content(mut self, content: Content, claims: TrustClaims) -> Self {
        self.content.push(content);
        let index = self.content.len() - 1;
        self.claim_block(index, claims)
    }

    /// Adds `claims` to the content block at `index` (as
    /// [`with_claimed_content`](Self::with_claimed_content)). A claim for a
    /// block the result no longer has when it is sent counts for the whole
    /// result: a claim is never dropped.
    #[must_use]
    pub fn claim_block(mut self, index: usize, claims: TrustClaims) -> Self {
        self.claims
            .get_or_insert_default()
            .add_to_block(index, claims);
        self
    }

    /// What the handler claimed for the whole result (the server joins the
    /// call's floor with it when it sends them).
    pub fn claims(&self) -> &TrustClaims {
        self.claims
            .as_ref()
            .map_or(&TrustClaims::NONE, |own| own.result())
    }

    /// What the handler claimed for the content block at `index`, if anything.
    pub fn block_claims(&self, index: usize) -> Option<&TrustClaims> {
        self.block_claim_list()
            .iter()
            .find(|(at, _)| *at == index)
            .map(|(_, claims)| claims)
    }

    fn block_claim_list(&self) -> &[(usize, TrustClaims)] {
        self.claims.as_ref().map_or(&[], |own| own.blocks())
    }
}

/// A tool failure, reported to the client as a `CallToolResult` with
/// `isError: true` so the model can read it and correct itself.
///
/// Any error type converts into it, so handlers can use `?`:
///
/// ```
/// # use annot_runtime as annot;
/// use annot::server::{ToolError, ToolOutput};
///
/// fn read(path: &str) -> Result<ToolOutput, ToolError> {
///     let text = std::fs::read_to_string(path)?;
///     Ok(ToolOutput::text(text))
/// }
/// let error = read("/definitely/not/here").unwrap_err();
/// assert!(!error.message().is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }

    /// The message the client sees.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

// `ToolError` deliberately does not implement `std::error::Error`, so that this
// blanket conversion does not overlap with `From<T> for T`.
impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::new(error.to_string())
    }
}

/// The wire shape of a `CallToolResult`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallToolResult<'a> {
    content: Blocks<'a, Content>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a Map<String, Value>>,
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    is_error: bool,
}

/// Appends the `CallToolResult` JSON of a successful call to `out`, with its
/// blocks' claims when the client gets claims (`floor`, the call's). Returns
/// the text of the result's `_meta` object for its own claims, which the
/// caller closes the result with.
pub(crate) fn write_success(
    out: &mut Vec<u8>,
    output: &ToolOutput,
    floor: Option<Floor>,
) -> Option<String> {
    write(
        out,
        &CallToolResult {
            content: Blocks::new(
                &output.content,
                if floor.is_some() {
                    output.block_claim_list()
                } else {
                    &[]
                },
            )
            .with_display_text(output.display_text()),
            structured_content: output.structured_content.as_ref(),
            is_error: false,
        },
    );
    let blocks = output.content.len();
    floor.and_then(|floor| trust_claims::result_meta(floor, output.claims.as_deref(), blocks))
}

/// Appends the `CallToolResult` JSON of a failed call (`isError: true`) to `out`.
pub(crate) fn write_failure(out: &mut Vec<u8>, message: &str) {
    write(
        out,
        &CallToolResult {
            content: Blocks::new(&[Content::text(message)], &[]),
            structured_content: None,
            is_error: true,
        },
    );
}

/// Adds `_meta` (an object's JSON text) to the result object written to the
/// end of `out`, which has none.
pub(crate) fn append_meta(out: &mut Vec<u8>, meta: &str) {
    debug_assert_eq!(out.last(), Some(&b'}'));
    out.pop();
    out.extend_from_slice(br#","_meta":"#);
    out.extend_from_slice(meta.as_bytes());
    out.push(b'}');
}

fn write(out: &mut Vec<u8>, result: &CallToolResult<'_>) {
    // Serializing plain strings and maps into a Vec cannot fail.
    serde_json::to_writer(out, result).expect("a CallToolResult always serializes");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_have_the_wire_shape() {
        let mut out = vec![];
        assert_eq!(write_success(&mut out, &ToolOutput::text("hi"), None), None);
        assert_eq!(
            serde_json::from_slice::<Value>(&out).unwrap(),
            json!({"content": [{"type": "text", "text": "hi"}]})
        );

        let mut out = vec![];
        write_failure(&mut out, "no such file");
        assert_eq!(
            serde_json::from_slice::<Value>(&out).unwrap(),
            json!({"content": [{"type": "text", "text": "no such file"}], "isError": true})
        );
    }

    #[test]
    fn structured_output_repeats_itself_as_text() {
        let mut object = Map::new();
        object.insert("lines".into(), json!(3));
        let mut out = vec![];
        write_success(&mut out, &ToolOutput::structured(object), None);
        assert_eq!(
            serde_json::from_slice::<Value>(&out).unwrap(),
            json!({
                "content": [{"type": "text", "text": "{\"lines\":3}"}],
                "structuredContent": {"lines": 3}
            })
        );
    }

    #[test]
    fn any_error_converts() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        assert_eq!(ToolError::from(io).message(), "gone");
    }
}
