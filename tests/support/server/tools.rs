//! Tools written by hand against `AnnotatedTool`, in the shape `#[mcp_tool]`
//! generates, so the server is tested independently of the macro.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use annot::__private as private;
use annot::server::{Server, ServerBuilder, ToolError, ToolOutput};
use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
use serde_json::{Value, json};

/// Seed 003's `manage_files`: four actions on a path.
#[derive(Debug, PartialEq)]
pub enum ManageFiles {
    Read { path: String },
    Append { path: String, content: String },
    Replace { path: String, content: String },
    Delete { path: String },
}

const READ: Annotations = Annotations::new()
    .title("Read a file")
    .read_only(true)
    .open_world(false)
    .effective();
const APPEND: Annotations = Annotations::new()
    .destructive(false)
    .open_world(false)
    .effective();
const REPLACE: Annotations = Annotations::new()
    .destructive(true)
    .idempotent(true)
    .open_world(false)
    .effective();
const DELETE: Annotations = REPLACE;
const ACTION_NAMES: &[&str] = &["read", "append", "replace", "delete"];

impl AnnotatedTool for ManageFiles {
    const NAME: &'static str = "manage_files";
    const TITLE: Option<&'static str> = Some("Manage files");
    const DESCRIPTION: Option<&'static str> =
        Some("Read, append, replace, or delete file contents");
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [Action] = &[
        Action {
            name: "read",
            annotations: READ,
        },
        Action {
            name: "append",
            annotations: APPEND,
        },
        Action {
            name: "replace",
            annotations: REPLACE,
        },
        Action {
            name: "delete",
            annotations: DELETE,
        },
    ];
    const STATIC_ANNOTATIONS: Annotations =
        Annotations::join_all(&[READ, APPEND, REPLACE, DELETE]).title("Manage files");

    fn input_schema() -> &'static str {
        r#"{"type":"object","properties":{"action":{"type":"string","enum":["read","append","replace","delete"]},"path":{"type":"string"},"content":{"type":"string"}},"required":["action","path"]}"#
    }

    fn resolve(&self) -> Annotations {
        match self {
            ManageFiles::Read { .. } => READ,
            ManageFiles::Append { .. } => APPEND,
            ManageFiles::Replace { .. } => REPLACE,
            ManageFiles::Delete { .. } => DELETE,
        }
    }

    fn from_arguments(arguments: &Value) -> Result<Self, ArgumentError> {
        let object = private::object(arguments)?;
        let action = private::discriminator(object, "action", ACTION_NAMES)?;
        let (allowed, parsed): (&'static [&'static str], _) = match action {
            "read" => (
                &["action", "path"],
                ManageFiles::Read {
                    path: private::required(object, "path")?,
                },
            ),
            "append" => (
                &["action", "path", "content"],
                ManageFiles::Append {
                    path: private::required(object, "path")?,
                    content: private::required(object, "content")?,
                },
            ),
            "replace" => (
                &["action", "path", "content"],
                ManageFiles::Replace {
                    path: private::required(object, "path")?,
                    content: private::required(object, "content")?,
                },
            ),
            "delete" => (
                &["action", "path"],
                ManageFiles::Delete {
                    path: private::required(object, "path")?,
                },
            ),
            other => return Err(private::unknown_action("action", other, ACTION_NAMES)),
        };
        private::deny_unknown_fields(object, allowed)?;
        Ok(parsed)
    }
}

/// A counter whose `bump` by zero resolves, by a rule on the value, to a
/// combination no action declares (idempotent), so the server must render it
/// on the spot.
#[derive(Debug)]
pub struct Counter {
    pub bump: bool,
    pub by: u32,
}

const PEEK: Annotations = Annotations::new()
    .read_only(true)
    .open_world(false)
    .effective();
const BUMP: Annotations = Annotations::new()
    .destructive(false)
    .open_world(false)
    .effective();

impl AnnotatedTool for Counter {
    const NAME: &'static str = "counter";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = None;
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [Action] = &[
        Action {
            name: "peek",
            annotations: PEEK,
        },
        Action {
            name: "bump",
            annotations: BUMP,
        },
    ];
    const STATIC_ANNOTATIONS: Annotations = Annotations::join_all(&[PEEK, BUMP]);

    fn input_schema() -> &'static str {
        r#"{"type":"object","properties":{"action":{"type":"string","enum":["peek","bump"]},"by":{"type":"integer","minimum":0}},"required":["action"]}"#
    }

    fn resolve(&self) -> Annotations {
        match (self.bump, self.by) {
            (false, _) => PEEK,
            (true, 0) => BUMP.idempotent(true),
            (true, _) => BUMP,
        }
    }

    fn from_arguments(arguments: &Value) -> Result<Self, ArgumentError> {
        let object = private::object(arguments)?;
        let names = &["peek", "bump"];
        let bump = match private::discriminator(object, "action", names)? {
            "peek" => false,
            "bump" => true,
            other => return Err(private::unknown_action("action", other, names)),
        };
        private::deny_unknown_fields(object, &["action", "by"])?;
        let by = private::optional(object, "by")?.unwrap_or(1);
        Ok(Counter { bump, by })
    }
}

/// A buggy tool: it declares itself read-only but resolves `{"lie": true}` to a
/// write, which the server must refuse to pass on. Its two actions differ, so
/// it is marked resolvable. Its handler panics on
/// `{"panic": true}`, its argument parser on `{"explode": true}`.
#[derive(Debug)]
pub struct Liar {
    pub lie: bool,
    pub panic: bool,
}

const HONEST: Annotations = Annotations::new().read_only(true).effective();
const QUIET: Annotations = Annotations::new()
    .read_only(true)
    .open_world(false)
    .effective();

impl AnnotatedTool for Liar {
    const NAME: &'static str = "liar";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = Some("Breaks its promises");
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [Action] = &[
        Action {
            name: "speak",
            annotations: HONEST,
        },
        Action {
            name: "whisper",
            annotations: QUIET,
        },
    ];
    const STATIC_ANNOTATIONS: Annotations = HONEST;

    fn input_schema() -> &'static str {
        r#"{"type":"object","properties":{"lie":{"type":"boolean"},"panic":{"type":"boolean"}}}"#
    }

    fn resolve(&self) -> Annotations {
        if self.lie {
            Annotations::new().read_only(false)
        } else {
            HONEST
        }
    }

    fn from_arguments(arguments: &Value) -> Result<Self, ArgumentError> {
        let object = private::object(arguments)?;
        if object.contains_key("explode") {
            panic!("the parser exploded on purpose");
        }
        private::deny_unknown_fields(object, &["lie", "panic"])?;
        Ok(Liar {
            lie: private::optional(object, "lie")?.unwrap_or(false),
            panic: private::optional(object, "panic")?.unwrap_or(false),
        })
    }
}

/// The files of the in-memory `manage_files` handler.
pub type Files = Arc<Mutex<BTreeMap<String, String>>>;

/// The `manage_files` handler over an in-memory file system.
pub fn manage_files_handler(
    files: Files,
) -> impl Fn(ManageFiles) -> Result<ToolOutput, ToolError> + Send + Sync + 'static {
    move |arguments| {
        let mut files = files.lock().unwrap();
        let missing = |path: &str| ToolError::new(format!("no such file: {path}"));
        match arguments {
            ManageFiles::Read { path } => files
                .get(&path)
                .map(|text| ToolOutput::text(text.clone()))
                .ok_or_else(|| missing(&path)),
            ManageFiles::Append { path, content } => {
                files.entry(path).or_default().push_str(&content);
                Ok(ToolOutput::text(format!(
                    "appended {} bytes",
                    content.len()
                )))
            }
            ManageFiles::Replace { path, content } => {
                files.insert(path, content);
                Ok(ToolOutput::text("replaced"))
            }
            ManageFiles::Delete { path } => files
                .remove(&path)
                .map(|_| ToolOutput::text("deleted"))
                .ok_or_else(|| missing(&path)),
        }
    }
}

/// A builder with every test tool registered.
pub fn builder(files: Files) -> ServerBuilder {
    Server::builder("annot-test", "1.2.3")
        .tool(manage_files_handler(files))
        .tool(|counter: Counter| Ok(ToolOutput::text(format!("counted {}", counter.by))))
        .tool(|liar: Liar| {
            if liar.panic {
                panic!("the liar panicked on purpose");
            }
            Ok(ToolOutput::text("all is well"))
        })
}

/// A server with every test tool and all three dialects.
pub fn server() -> (Server, Files) {
    let files = Files::default();
    let server = builder(files.clone()).build().unwrap();
    (server, files)
}

/// The extension's `tools/resolve` result for `manage_files` deleting a file,
/// written out by hand from seed 003's table (no `_meta`).
pub fn manage_files_delete_resolved() -> Value {
    json!({
        "resultType": "complete",
        "name": "manage_files",
        "annotations": {
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": true,
            "openWorldHint": false
        }
    })
}
