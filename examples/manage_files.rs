//! A real MCP server over stdio whose `manage_files` tool reads, appends,
//! replaces and deletes files inside a sandbox directory.
//!
//! ```sh
//! cargo run --example manage_files -- ./sandbox
//! cargo run --example manage_files -- --read-only ./sandbox
//! cargo run --example manage_files -- --exposure auto ./sandbox
//! ```
//!
//! Beside it, `stat_file` counts a file's bytes and lines and returns them as
//! structured content (`#[mcp_tool(output = FileStats)]`): it lists an
//! `outputSchema`, and each result carries `structuredContent`.
//!
//! `--exposure per-action` lists one tool per action (`manage_files_read`,
//! ...), each with its own exact annotations, for hosts that never resolve;
//! `--exposure auto` lists the resolvable `manage_files` to clients that
//! negotiated tool resolution and the per-action tools to every other one
//! (see the `exposure` chapter of the docs).
//!
//! With `--read-only` (or `--no-destructive`, `--closed-world`,
//! `--no-privileged`, combinable) the server serves under that profile: the
//! listing keeps only the actions that can pass it (under `--read-only`, just
//! `read`, listed read-only) and every call outside it is refused with an
//! `isError` result naming the profile and the hint, before the handler runs.
//!
//! Every path is taken relative to the sandbox; a path that escapes it (`..`,
//! an absolute path elsewhere, a symbolic link pointing out) is refused with an
//! `isError` result. Every call acts through the file guard
//! (`annot::guard::fs`) built from its own resolution, so a `read` cannot
//! write and an `append` cannot overwrite, truncate or delete, even if the
//! handler's code tried. Logs go to stderr; stdout carries only protocol
//! messages.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use annot::guard;
use annot::server::{Call, Profile, Server, ToolError, ToolOutput};
pub use manage_files::ManageFiles;
use sandbox::Sandbox;
use stat_file::{FileStats, StatFile};

#[path = "common/exposure.rs"]
mod exposure_flag;
#[path = "tools/manage_files.rs"]
mod manage_files;
#[path = "common/stat_file.rs"]
mod stat_file;

fn main() -> ExitCode {
    let usage = || {
        eprintln!(
            "usage: manage_files {} {} <sandbox-dir>",
            exposure_flag::USAGE,
            flags_usage()
        )
    };
    let parsed =
        exposure_flag::take_exposure(std::env::args_os().skip(1)).and_then(|(exposure, rest)| {
            profile_flags(rest).map(|(profile, rest)| (exposure, profile, rest))
        });
    let (exposure, profile, rest) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            eprintln!("manage_files: {error}");
            usage();
            return ExitCode::from(2);
        }
    };
    let Ok([directory]) = <[_; 1]>::try_from(rest) else {
        usage();
        return ExitCode::from(2);
    };
    let sandbox = match Sandbox::open(PathBuf::from(&directory)) {
        Ok(sandbox) => Arc::new(sandbox),
        Err(error) => {
            eprintln!("manage_files: cannot use {}: {error}", directory.display());
            return ExitCode::from(2);
        }
    };
    let server = Server::builder("annot-manage-files", env!("CARGO_PKG_VERSION"))
        .title("annot example: manage_files")
        .profile(profile)
        .exposure(exposure)
        .tool_with_call({
            let sandbox = Arc::clone(&sandbox);
            move |arguments: ManageFiles, call: &Call| run(&sandbox, arguments, call)
        })
        .tool_with_call(move |arguments: StatFile, call: &Call| stat(&sandbox, arguments, call))
        .build()
        .expect("the manage_files server is consistent");
    eprintln!(
        "manage_files: serving {} over stdio (profile: {}, exposure: {})",
        directory.display(),
        server.profile(),
        server.exposure()
    );
    match server.serve_stdio() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("manage_files: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Splits command-line arguments into the profile their flags make
/// (`--read-only`, `--no-destructive`, `--closed-world`, `--no-privileged`,
/// combinable) and the other arguments; `Err` names a flag that is none of
/// these. Also used by `examples/github_api.rs`.
pub fn profile_flags(
    arguments: impl IntoIterator<Item = std::ffi::OsString>,
) -> Result<(Profile, Vec<std::ffi::OsString>), String> {
    let mut profile = Profile::any();
    let mut rest = Vec::new();
    for argument in arguments {
        match argument.to_str().and_then(|text| text.strip_prefix("--")) {
            Some(flag) => match Profile::named(flag) {
                Some(named) => profile = profile.and(named),
                None => return Err(format!("unknown flag `--{flag}`")),
            },
            None => rest.push(argument),
        }
    }
    Ok((profile, rest))
}

/// `[--read-only] [--no-destructive] [--closed-world] [--no-privileged]`.
pub fn flags_usage() -> String {
    Profile::NAMES
        .map(|name| format!("[--{}]", name.replace('_', "-")))
        .join(" ")
}

/// Runs one validated call inside the sandbox (also used by `examples/tour.rs`),
/// through the file guard built from the call's resolution: a call resolved
/// read-only cannot write, an append cannot overwrite or delete, whatever
/// this code asks for.
pub fn run(
    sandbox: &Sandbox,
    arguments: ManageFiles,
    call: &Call,
) -> Result<ToolOutput, ToolError> {
    let files = sandbox.guarded(call)?;
    match arguments {
        ManageFiles::Read { path } => {
            let text = files
                .read_to_string(sandbox.relative(&path)?)
                .map_err(|error| failed("read", &path, error))?;
            // The contents are for the model; a person reads this line.
            let shown = format!("read {} bytes of {path}", text.len());
            Ok(ToolOutput::text(text).with_display_text(shown))
        }
        ManageFiles::Append { path, content } => {
            files
                .append(sandbox.relative(&path)?)
                .and_then(|mut file| Ok(file.write_all(content.as_bytes())?))
                .map_err(|error| failed("append to", &path, error))?;
            Ok(ToolOutput::text(format!(
                "appended {} bytes to {path}",
                content.len()
            )))
        }
        ManageFiles::Replace { path, content } => {
            files
                .write(sandbox.relative(&path)?, &content)
                .map_err(|error| failed("write", &path, error))?;
            Ok(ToolOutput::text(format!(
                "wrote {} bytes to {path}",
                content.len()
            )))
        }
        ManageFiles::Delete { path } => {
            files
                .remove_file(sandbox.relative(&path)?)
                .map_err(|error| failed("delete", &path, error))?;
            Ok(ToolOutput::text(format!("deleted {path}")))
        }
    }
}

/// Counts the bytes and lines of a file inside the sandbox, read through the
/// file guard: a structured result, its `FileStats` checked against the
/// listed `outputSchema` in debug builds.
fn stat(sandbox: &Sandbox, arguments: StatFile, call: &Call) -> Result<ToolOutput, ToolError> {
    let path = arguments.path;
    let text = sandbox
        .guarded(call)?
        .read_to_string(sandbox.relative(&path)?)
        .map_err(|error| failed("read", &path, error))?;
    ToolOutput::json(&FileStats::of(&path, &text))
}

/// A guard's refusal as it is, any other failure with what was tried.
fn failed(what: &str, path: &str, error: guard::Error) -> ToolError {
    match error {
        guard::Error::Refused(refusal) => ToolError::new(refusal.to_string()),
        other => ToolError::new(format!("cannot {what} `{path}`: {other}")),
    }
}

/// The files a session may touch, and nothing else.
pub mod sandbox {
    use std::io;
    use std::path::{Component, Path, PathBuf};

    use annot::guard::fs::{GuardedDir, Root};
    use annot::server::{Call, ToolError};

    /// A directory that every path of a call is confined to: a cap-std
    /// capability, so no path, `..` or symbolic link reaches outside it.
    pub struct Sandbox {
        /// Canonical: no symbolic links, no `..`; absolute paths inside it
        /// are taken relative to it.
        root: PathBuf,
        dir: Root,
    }

    impl Sandbox {
        /// Opens an existing directory as the sandbox.
        pub fn open(directory: PathBuf) -> io::Result<Self> {
            let root = directory.canonicalize()?;
            if !root.is_dir() {
                return Err(io::Error::other("not a directory"));
            }
            let dir = Root::open_ambient(&root)?;
            Ok(Sandbox { root, dir })
        }

        /// The sandbox as `call` may use it.
        pub fn guarded(&self, call: &Call) -> Result<GuardedDir, ToolError> {
            self.dir
                .for_call(call)
                .map_err(|error| ToolError::new(format!("cannot open the sandbox: {error}")))
        }

        /// A path of a call, relative to the sandbox: a relative path as it
        /// is, an absolute one only inside the sandbox; `..` is refused
        /// outright rather than reasoned about (the capability would keep
        /// it inside anyway).
        pub fn relative(&self, path: &str) -> Result<PathBuf, ToolError> {
            let requested = Path::new(path);
            if path.is_empty() {
                return Err(refused(path, "the path is empty"));
            }
            if requested
                .components()
                .any(|component| component == Component::ParentDir)
            {
                return Err(refused(path, "`..` is not allowed"));
            }
            let inside = if requested.is_absolute() {
                requested
                    .strip_prefix(&self.root)
                    .map_err(|_| refused(path, "it is outside the sandbox"))?
            } else {
                requested
            };
            if inside.as_os_str().is_empty() {
                return Err(refused(path, "it names no file"));
            }
            Ok(inside.to_path_buf())
        }
    }

    fn refused(path: &str, why: &str) -> ToolError {
        ToolError::new(format!("refused `{path}`: {why}"))
    }
}
