//! A real MCP server over stdio whose `manage_files` tool reads, appends,
//! replaces and deletes files inside a sandbox directory.
//!
//! ```sh
//! cargo run --example manage_files -- ./sandbox
//! cargo run --example manage_files -- --read-only ./sandbox
//! ```
//!
//! With `--read-only` (or `--no-destructive`, `--closed-world`,
//! `--no-privileged`, combinable) the server serves under that profile: the
//! listing keeps only the actions that can pass it (under `--read-only`, just
//! `read`, listed read-only) and every call outside it is refused with an
//! `isError` result naming the profile and the hint, before the handler runs.
//!
//! Every path is taken relative to the sandbox; a path that escapes it (`..`,
//! an absolute path elsewhere, a symbolic link pointing out) is refused with an
//! `isError` result. Logs go to stderr; stdout carries only protocol messages.

use std::path::PathBuf;
use std::process::ExitCode;

use annot::server::{Profile, Server, ToolError, ToolOutput};
pub use manage_files::ManageFiles;
use sandbox::Sandbox;

#[path = "tools/manage_files.rs"]
mod manage_files;

fn main() -> ExitCode {
    let usage = || eprintln!("usage: manage_files {} <sandbox-dir>", flags_usage());
    let (profile, rest) = match profile_flags(std::env::args_os().skip(1)) {
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
        Ok(sandbox) => sandbox,
        Err(error) => {
            eprintln!("manage_files: cannot use {}: {error}", directory.display());
            return ExitCode::from(2);
        }
    };
    let server = Server::builder("annot-manage-files", env!("CARGO_PKG_VERSION"))
        .title("annot example: manage_files")
        .profile(profile)
        .tool(move |arguments: ManageFiles| run(&sandbox, arguments))
        .build()
        .expect("the manage_files server is consistent");
    eprintln!(
        "manage_files: serving {} over stdio (profile: {})",
        directory.display(),
        server.profile()
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

/// Runs one validated call inside the sandbox (also used by `examples/tour.rs`).
pub fn run(sandbox: &Sandbox, arguments: ManageFiles) -> Result<ToolOutput, ToolError> {
    match arguments {
        ManageFiles::Read { path } => {
            let text = sandbox.read(&path)?;
            Ok(ToolOutput::text(text))
        }
        ManageFiles::Append { path, content } => {
            sandbox.append(&path, &content)?;
            Ok(ToolOutput::text(format!(
                "appended {} bytes to {path}",
                content.len()
            )))
        }
        ManageFiles::Replace { path, content } => {
            sandbox.replace(&path, &content)?;
            Ok(ToolOutput::text(format!(
                "wrote {} bytes to {path}",
                content.len()
            )))
        }
        ManageFiles::Delete { path } => {
            sandbox.delete(&path)?;
            Ok(ToolOutput::text(format!("deleted {path}")))
        }
    }
}

/// The files a session may touch, and nothing else.
pub mod sandbox {
    use std::fs::{self, OpenOptions};
    use std::io::{self, Write};
    use std::path::{Component, Path, PathBuf};

    use annot::server::ToolError;

    /// A directory that every path of a call is confined to.
    pub struct Sandbox {
        /// Canonical: no symbolic links, no `..`.
        root: PathBuf,
    }

    impl Sandbox {
        /// Opens an existing directory as the sandbox.
        pub fn open(directory: PathBuf) -> io::Result<Self> {
            let root = directory.canonicalize()?;
            if !root.is_dir() {
                return Err(io::Error::other("not a directory"));
            }
            Ok(Sandbox { root })
        }

        pub fn read(&self, path: &str) -> Result<String, ToolError> {
            let file = self.existing(path)?;
            fs::read_to_string(&file).map_err(|error| failed("read", path, &error))
        }

        pub fn append(&self, path: &str, content: &str) -> Result<(), ToolError> {
            let file = self.writable(path)?;
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&file)
                .and_then(|mut handle| handle.write_all(content.as_bytes()))
                .map_err(|error| failed("append to", path, &error))
        }

        pub fn replace(&self, path: &str, content: &str) -> Result<(), ToolError> {
            let file = self.writable(path)?;
            fs::write(&file, content).map_err(|error| failed("write", path, &error))
        }

        pub fn delete(&self, path: &str) -> Result<(), ToolError> {
            let file = self.existing(path)?;
            fs::remove_file(&file).map_err(|error| failed("delete", path, &error))
        }

        /// The real location of a file that must exist inside the sandbox.
        fn existing(&self, path: &str) -> Result<PathBuf, ToolError> {
            let candidate = self.join(path)?;
            let real = candidate
                .canonicalize()
                .map_err(|error| failed("open", path, &error))?;
            self.confine(path, real)
        }

        /// Where a file that may not exist yet would be written: its directory
        /// must exist inside the sandbox, and the name must not be a symbolic
        /// link (writing through it could create a file outside).
        fn writable(&self, path: &str) -> Result<PathBuf, ToolError> {
            let candidate = self.join(path)?;
            match fs::symlink_metadata(&candidate) {
                Ok(_) => return self.existing(path),
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => return Err(failed("open", path, &error)),
            }
            let (Some(parent), Some(name)) = (candidate.parent(), candidate.file_name()) else {
                return Err(refused(path, "it names no file"));
            };
            let parent = parent
                .canonicalize()
                .map_err(|error| failed("open the directory of", path, &error))?;
            self.confine(path, parent.join(name))
        }

        /// The sandbox joined with a relative path, or an absolute path inside
        /// it; `..` is refused outright rather than reasoned about.
        fn join(&self, path: &str) -> Result<PathBuf, ToolError> {
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
            if requested.is_absolute() {
                return match requested.strip_prefix(&self.root) {
                    Ok(inside) => Ok(self.root.join(inside)),
                    Err(_) => Err(refused(path, "it is outside the sandbox")),
                };
            }
            Ok(self.root.join(requested))
        }

        /// Accepts a resolved path only if it is inside the sandbox.
        fn confine(&self, path: &str, real: PathBuf) -> Result<PathBuf, ToolError> {
            if real.starts_with(&self.root) {
                Ok(real)
            } else {
                Err(refused(path, "it leads outside the sandbox"))
            }
        }
    }

    fn refused(path: &str, why: &str) -> ToolError {
        ToolError::new(format!("refused `{path}`: {why}"))
    }

    fn failed(what: &str, path: &str, error: &io::Error) -> ToolError {
        ToolError::new(format!("cannot {what} `{path}`: {error}"))
    }
}
