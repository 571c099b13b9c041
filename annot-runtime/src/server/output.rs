//! What a tool handler returns, and how it becomes a `CallToolResult`.

use core::fmt;

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::{Map, Value};

use crate::protocol::DISPLAY_TEMPLATES_EXTENSION;

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
/// `structuredContent` of a `CallToolResult`, and optionally a line for the
/// person watching the session.
///
/// ```
/// use annot_runtime::server::ToolOutput;
///
/// let output = ToolOutput::text("{\"appended\":3}").with_display_text("appended 3 lines to notes.md");
/// assert_eq!(output.content.len(), 1);
/// assert_eq!(output.display_text.as_deref(), Some("appended 3 lines to notes.md"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutput {
    /// The content blocks, in order.
    pub content: Vec<Content>,
    /// A JSON object for clients that read structured results.
    pub structured_content: Option<Map<String, Value>>,
    /// What happened, rendered for a person rather than the model: the
    /// display-templates extension's result-side text, sent on the first
    /// content block as `_meta["io.modelcontextprotocol/display-templates"].text`
    /// (an output without content has no block to carry it). The extension
    /// asks for no negotiation; a client that does not know it ignores it.
    pub display_text: Option<String>,
}

impl ToolOutput {
    /// An output of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::text(text)],
            structured_content: None,
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
            display_text: None,
        }
    }

    /// Sets [`display_text`](Self::display_text): a line for the person
    /// watching, such as "moved 14 items to /archive".
    #[must_use]
    pub fn with_display_text(mut self, text: impl Into<String>) -> Self {
        self.display_text = Some(text.into());
        self
    }

    /// Adds a content block.
    #[must_use]
    pub fn with_content(mut self, content: Content) -> Self {
        self.content.push(content);
        self
    }
}

/// A tool failure, reported to the client as a `CallToolResult` with
/// `isError: true` so the model can read it and correct itself.
///
/// Any error type converts into it, so handlers can use `?`:
///
/// ```
/// use annot_runtime::server::{ToolError, ToolOutput};
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
    content: Blocks<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a Map<String, Value>>,
    #[serde(skip_serializing_if = "core::ops::Not::not")]
    is_error: bool,
}

/// The content blocks, the first one carrying the display text, if any.
struct Blocks<'a> {
    content: &'a [Content],
    display_text: Option<&'a str>,
}

/// A content block with the display-templates `_meta` beside its fields.
#[derive(Serialize)]
struct DisplayedBlock<'a> {
    #[serde(flatten)]
    content: &'a Content,
    #[serde(rename = "_meta")]
    meta: Map<String, Value>,
}

impl Serialize for Blocks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut blocks = serializer.serialize_seq(Some(self.content.len()))?;
        for (index, content) in self.content.iter().enumerate() {
            match self.display_text.filter(|_| index == 0) {
                Some(text) => {
                    let mut meta = Map::new();
                    meta.insert(
                        DISPLAY_TEMPLATES_EXTENSION.to_owned(),
                        serde_json::json!({ "text": text }),
                    );
                    blocks.serialize_element(&DisplayedBlock { content, meta })?;
                }
                None => blocks.serialize_element(content)?,
            }
        }
        blocks.end()
    }
}

/// Appends the `CallToolResult` JSON of a successful call to `out`.
pub(crate) fn write_success(out: &mut Vec<u8>, output: &ToolOutput) {
    write(
        out,
        &CallToolResult {
            content: Blocks {
                content: &output.content,
                display_text: output.display_text.as_deref(),
            },
            structured_content: output.structured_content.as_ref(),
            is_error: false,
        },
    );
}

/// Appends the `CallToolResult` JSON of a failed call (`isError: true`) to `out`.
pub(crate) fn write_failure(out: &mut Vec<u8>, message: &str) {
    write(
        out,
        &CallToolResult {
            content: Blocks {
                content: &[Content::text(message)],
                display_text: None,
            },
            structured_content: None,
            is_error: true,
        },
    );
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
        write_success(&mut out, &ToolOutput::text("hi"));
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
        write_success(&mut out, &ToolOutput::structured(object));
        assert_eq!(
            serde_json::from_slice::<Value>(&out).unwrap(),
            json!({
                "content": [{"type": "text", "text": "{\"lines\":3}"}],
                "structuredContent": {"lines": 3}
            })
        );
    }

    #[test]
    fn display_text_rides_on_the_first_block() {
        let output = ToolOutput::text("{\"moved\":14}")
            .with_content(Content::text("second"))
            .with_display_text("moved 14 items to /archive");
        let mut out = vec![];
        write_success(&mut out, &output);
        assert_eq!(
            serde_json::from_slice::<Value>(&out).unwrap(),
            json!({"content": [
                {"type": "text", "text": "{\"moved\":14}", "_meta": {
                    "io.modelcontextprotocol/display-templates": {"text": "moved 14 items to /archive"}
                }},
                {"type": "text", "text": "second"}
            ]})
        );
    }

    #[test]
    fn any_error_converts() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        assert_eq!(ToolError::from(io).message(), "gone");
    }
}
