//! Guards at the handler's edge: capabilities built from a call's resolved
//! annotations ([`Call`]) that refuse every effect the resolution did not
//! claim.
//!
//! Resolution is a claim about what a call will do; a guard turns the claim
//! into a check where the effect happens. Each guard is opt-in (a cargo
//! feature), cheap (a few comparisons before the system call) and
//! fail-closed: an effect is allowed only when the call's annotations claim
//! it (read with the specification's defaults, as a client reads them), and
//! a refused effect changes nothing.
//!
//! | guard | feature | refuses |
//! |---|---|---|
//! | `fs::GuardedDir` | `guard-fs` | under `readOnlyHint: true` every write, create, rename, delete and truncate; under `destructiveHint: false` every delete, overwrite and truncate of what exists |
//! | `http::HttpGuard` | `guard-http` | under `readOnlyHint: true` every method but `GET`, `HEAD`, `OPTIONS`, `TRACE`; under `destructiveHint: false` also `PUT`, `PATCH`, `DELETE`; under `openWorldHint: false` every host not configured; redirects outside the same |
//! | `sqlite::SqliteGuard` | `guard-sqlite` | under `readOnlyHint: true` every write (SQLite's authorizer, `PRAGMA query_only`); under `destructiveHint: false` every delete, update, drop, alter and `REPLACE`; `ATTACH`, `PRAGMA` unless `privilegedAccessHint: true` |
//!
//! Every guard fails with the one [`Error`]. A refusal is an
//! [`Error::Refused`] naming the hint, which `?` turns into
//! a [`ToolError`](crate::server::ToolError): the client gets an `isError`
//! result and the server keeps serving. See `docs/guards.md` for what
//! resolution can and cannot promise.

#[cfg(feature = "guard-fs")]
pub mod fs;
#[cfg(feature = "guard-http")]
pub mod http;
#[cfg(feature = "guard-sqlite")]
pub mod sqlite;

use core::fmt;

use crate::server::Call;
use crate::{Annotations, Hint};

/// What a call's resolution claims it may do, read from its annotations
/// (defaults applied): the three effects the guards check.
///
/// ```
/// # use annot_runtime as annot;
/// use annot::Annotations;
/// use annot::guard::Claims;
///
/// let append = Claims::of("files", &Annotations::new().destructive(false));
/// assert!(append.may_write() && !append.may_destroy() && append.may_reach_any_host());
/// let read = Claims::of("files", &Annotations::new().read_only(true).open_world(false));
/// assert!(!read.may_write() && !read.may_destroy() && !read.may_reach_any_host());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Claims {
    tool: &'static str,
    annotations: Annotations,
}

impl Claims {
    /// The claims of `annotations` (defaults are applied here) for `tool`.
    pub fn of(tool: &'static str, annotations: &Annotations) -> Claims {
        Claims {
            tool,
            annotations: annotations.effective(),
        }
    }

    /// The claims of a handler's call.
    pub fn of_call(call: &Call) -> Claims {
        Claims::of(call.tool(), call.annotations())
    }

    /// The tool whose call these are.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// The annotations, defaults applied.
    pub fn annotations(&self) -> &Annotations {
        &self.annotations
    }

    /// Whether the call may change anything: `readOnlyHint` is `false`.
    pub fn may_write(&self) -> bool {
        self.annotations.read_only == Some(false)
    }

    /// Whether the call may delete, overwrite or truncate what exists: it
    /// may write and `destructiveHint` is `true`.
    pub fn may_destroy(&self) -> bool {
        self.may_write() && self.annotations.destructive == Some(true)
    }

    /// Whether the call may reach hosts beyond the configured ones:
    /// `openWorldHint` is `true`.
    pub fn may_reach_any_host(&self) -> bool {
        self.annotations.open_world == Some(true)
    }

    /// `Ok` when the call may write, else the refusal of `effect`.
    pub fn check_write(&self, effect: impl Into<String>) -> Result<(), Refusal> {
        if self.may_write() {
            Ok(())
        } else {
            Err(self.refusal(effect, Hint::ReadOnly))
        }
    }

    /// `Ok` when the call may destroy, else the refusal of `effect`, naming
    /// `readOnlyHint` for a read-only call and `destructiveHint` otherwise.
    pub fn check_destroy(&self, effect: impl Into<String>) -> Result<(), Refusal> {
        if !self.may_write() {
            return Err(self.refusal(effect, Hint::ReadOnly));
        }
        if !self.may_destroy() {
            return Err(self.refusal(effect, Hint::Destructive));
        }
        Ok(())
    }

    /// `Ok` when the call may reach any host, else the refusal of `effect`.
    pub fn check_open_world(&self, effect: impl Into<String>) -> Result<(), Refusal> {
        if self.may_reach_any_host() {
            Ok(())
        } else {
            Err(self.refusal(effect, Hint::OpenWorld))
        }
    }

    /// The refusal of `effect`, which needs `hint` at its risky value.
    pub fn refusal(&self, effect: impl Into<String>, hint: Hint) -> Refusal {
        Refusal {
            tool: self.tool,
            effect: effect.into(),
            hint,
            resolved: self.annotations.get(hint),
        }
    }
}

/// An effect a guard refused: what it was, and the hint whose resolved value
/// does not claim it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The tool whose call tried it.
    pub tool: &'static str,
    /// The effect, in words (`delete "notes.txt"`).
    pub effect: String,
    /// The hint that would have to be at its risky value.
    pub hint: Hint,
    /// Its value in the call's resolution (`None`: absent).
    pub resolved: Option<bool>,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let resolved = match self.resolved {
            Some(value) => value.to_string(),
            None => "absent".to_owned(),
        };
        write!(
            f,
            "refused: {} needs {}: {}, and this call of `{}` resolved {}: {resolved}",
            self.effect,
            self.hint.wire_name(),
            self.hint.risky_value(),
            self.tool,
            self.hint.wire_name(),
        )
    }
}

impl std::error::Error for Refusal {}

/// Why a guarded effect did not happen: the guard refused it, or the system
/// failed it.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The call's resolution does not claim the effect; nothing changed.
    Refused(Refusal),
    /// The effect was allowed and the operating system failed it (a file
    /// that does not exist, a path that leads outside the root).
    Io(std::io::Error),
    /// The effect was allowed and the HTTP exchange failed.
    Http(String),
    /// The effect was allowed and SQLite failed it (a syntax error, a
    /// constraint); nothing the call did was kept.
    #[cfg(feature = "guard-sqlite")]
    Sqlite(rusqlite::Error),
    /// An effect the guard keeps for itself whatever the resolution: the
    /// SQLite guard runs each call in its own savepoint, so `BEGIN`,
    /// `COMMIT`, `SAVEPOINT` and the like are refused inside it; nothing
    /// changed.
    Reserved(String),
}

impl Error {
    /// The refusal, when the guard refused.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            Error::Refused(refusal) => Some(refusal),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Refused(refusal) => refusal.fmt(f),
            Error::Io(error) => error.fmt(f),
            Error::Http(message) => f.write_str(message),
            #[cfg(feature = "guard-sqlite")]
            Error::Sqlite(error) => write!(f, "SQLite: {error}"),
            Error::Reserved(effect) => write!(
                f,
                "refused: the guard keeps {effect} for itself (each call runs in the \
                 guard's own savepoint)"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Refused(refusal) => Some(refusal),
            Error::Io(error) => Some(error),
            #[cfg(feature = "guard-sqlite")]
            Error::Sqlite(error) => Some(error),
            Error::Http(_) | Error::Reserved(_) => None,
        }
    }
}

impl From<Refusal> for Error {
    fn from(refusal: Refusal) -> Self {
        Error::Refused(refusal)
    }
}

impl From<std::io::Error> for Error {
    fn from(error: std::io::Error) -> Self {
        Error::Io(error)
    }
}
