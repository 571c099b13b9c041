//! The physical limit of each measurement: hand-written code that returns the
//! same constants the generated code returns, with nothing generated.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use annot::Annotations;
use regex::Regex;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::http_api::{HttpApi, HttpMethod};
use super::manage_files::ManageFiles;

// The annotations of `manage_files`, written out as its `#[annotate]`
// attributes and tool-level `open_world = false, privileged_access = false,
// sensitive_data = false` say.
pub const READ: Annotations = Annotations::new()
    .title("Read a file")
    .read_only(true)
    .open_world(false)
    .privileged_access(false)
    .sensitive_data(false)
    .effective();
pub const APPEND: Annotations = Annotations::new()
    .title("Append to a file")
    .destructive(false)
    .open_world(false)
    .privileged_access(false)
    .sensitive_data(false)
    .effective();
pub const REPLACE: Annotations = Annotations::new()
    .title("Replace a file")
    .destructive(true)
    .idempotent(true)
    .open_world(false)
    .privileged_access(false)
    .sensitive_data(false)
    .effective();
pub const DELETE: Annotations = Annotations::new()
    .title("Delete a file")
    .destructive(true)
    .idempotent(true)
    .open_world(false)
    .privileged_access(false)
    .sensitive_data(false)
    .effective();

/// The system paths of the rule of `manage_files`.
pub const SYSTEM_PATH: &str = "^/(etc|root|sys|proc|boot|dev|usr|var|bin|sbin|lib|lib64)(/|$)";
static SYSTEM_PATH_REGEX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(SYSTEM_PATH).expect("a valid pattern"));

/// The rule of `manage_files`: an action on a system path needs privileged
/// access and touches sensitive data.
pub fn on_system_path(action: Annotations, path: &str) -> Annotations {
    if SYSTEM_PATH_REGEX.is_match(path) {
        action.privileged_access(true).sensitive_data(true)
    } else {
        action
    }
}

/// `manage_files` resolved by a hand-written `match` and its rule.
pub fn manage_files(tool: &ManageFiles) -> Annotations {
    match tool {
        ManageFiles::Read { path } => on_system_path(READ, path),
        ManageFiles::Append { path, .. } => on_system_path(APPEND, path),
        ManageFiles::Replace { path, .. } => on_system_path(REPLACE, path),
        ManageFiles::Delete { path } => on_system_path(DELETE, path),
    }
}

// The annotations of `http_request` per method, with the tool-level
// `open_world = true`.
pub const GET: Annotations = Annotations::new()
    .read_only(true)
    .open_world(true)
    .effective();
pub const POST: Annotations = Annotations::new()
    .destructive(false)
    .idempotent(false)
    .open_world(true)
    .effective();
pub const PUT: Annotations = Annotations::new()
    .destructive(true)
    .idempotent(true)
    .open_world(true)
    .effective();
pub const PATCH: Annotations = Annotations::new()
    .destructive(true)
    .idempotent(false)
    .open_world(true)
    .effective();
pub const DELETE_RESOURCE: Annotations = Annotations::new()
    .destructive(true)
    .idempotent(true)
    .reversible(false)
    .open_world(true)
    .effective();

fn http_method(method: HttpMethod) -> Annotations {
    match method {
        HttpMethod::Get | HttpMethod::Head | HttpMethod::Options => GET,
        HttpMethod::Post => POST,
        HttpMethod::Put => PUT,
        HttpMethod::Patch => PATCH,
        HttpMethod::Delete => DELETE_RESOURCE,
    }
}

/// `http_request` resolved by a hand-written `match` on its method.
pub fn http_api(tool: &HttpApi) -> Annotations {
    http_method(tool.method)
}

/// A tool parsed by serde's derive alone, resolved by a hand-written `match`.
pub trait TypedLimit: DeserializeOwned {
    fn resolve(&self) -> Annotations;
}

/// `manage_files` as serde alone would parse it: the typed limit of going from
/// JSON arguments to annotations.
#[derive(Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum TypedFiles {
    Read { path: String },
    Append { path: String, content: String },
    Replace { path: String, content: String },
    Delete { path: String },
}

impl TypedLimit for TypedFiles {
    fn resolve(&self) -> Annotations {
        match self {
            TypedFiles::Read { path } => on_system_path(READ, path),
            TypedFiles::Append { path, .. } => on_system_path(APPEND, path),
            TypedFiles::Replace { path, .. } => on_system_path(REPLACE, path),
            TypedFiles::Delete { path } => on_system_path(DELETE, path),
        }
    }
}

/// The method of [`TypedHttp`].
#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum TypedMethod {
    Get,
    Head,
    Options,
    Post,
    Put,
    Patch,
    Delete,
}

/// `http_request` as serde alone would parse it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypedHttp {
    pub method: TypedMethod,
    pub path: String,
    pub headers: Option<BTreeMap<String, String>>,
    pub body: Option<String>,
    #[serde(default = "default_timeout")]
    pub timeout_seconds: u16,
}

fn default_timeout() -> u16 {
    30
}

impl TypedLimit for TypedHttp {
    fn resolve(&self) -> Annotations {
        match self.method {
            TypedMethod::Get | TypedMethod::Head | TypedMethod::Options => GET,
            TypedMethod::Post => POST,
            TypedMethod::Put => PUT,
            TypedMethod::Patch => PATCH,
            TypedMethod::Delete => DELETE_RESOURCE,
        }
    }
}
