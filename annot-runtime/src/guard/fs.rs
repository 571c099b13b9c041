//! The file guard (feature `guard-fs`): a directory capability rooted at the
//! server's sandbox that refuses every file effect the call's resolution did
//! not claim.
//!
//! The root is a [`cap_std::fs::Dir`]: every path is resolved beneath it and
//! none can leave it (`..` past the root, an absolute path, a symbolic link
//! pointing outside are all errors of the system, not refusals). A symbolic
//! link whose target stays inside the root is followed, so the guard judges
//! the file it reaches: writing through a link writes its target, and is a
//! write; creating a file with [`GuardedDir::create_new`] over an existing
//! link fails, since the name exists. Removing a link removes the link.
//!
//! cap-std's `Dir` has no read-only mode, its `rename` replaces an existing
//! target, and a `File` opened for append can still be truncated with
//! `set_len`; so [`GuardedDir`] wraps the directory and hands out only
//! [`GuardedFile`]s, never the raw handles, and each checks before it acts:
//!
//! | effect | needs |
//! |---|---|
//! | read a file, its metadata, a directory's entries | nothing |
//! | create a file or a directory, append, rename onto a free name, extend a file | `readOnlyHint: false` |
//! | delete, overwrite, truncate, rename onto an existing name | `readOnlyHint: false` and `destructiveHint: true` |
//!
//! A hard link inside the root to a file elsewhere (made by someone else)
//! is a file inside the root to the guard: it confines paths, not inodes.

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, File, Metadata, OpenOptions};

use super::{Claims, Error};
use crate::server::Call;

/// The sandbox a server opens once: a directory capability that hands out
/// a [`GuardedDir`] per call and nothing else.
#[derive(Debug)]
pub struct Root {
    dir: Dir,
}

impl Root {
    /// Opens the directory at `path` of the file system (the one place
    /// ambient authority is used).
    pub fn open_ambient(path: impl AsRef<Path>) -> io::Result<Self> {
        Ok(Root {
            dir: Dir::open_ambient_dir(path, ambient_authority())?,
        })
    }

    /// The root as a call that claims `claims` may use it.
    pub fn guarded(&self, claims: Claims) -> io::Result<GuardedDir> {
        Ok(GuardedDir::new(self.dir.try_clone()?, claims))
    }

    /// The root as `call` may use it.
    pub fn for_call(&self, call: &Call) -> io::Result<GuardedDir> {
        self.guarded(Claims::of_call(call))
    }
}

/// A directory that a call may use only as its resolution claims. Build one
/// per call, from the call's [`Call`].
///
/// ```
/// # use annot_runtime as annot;
/// use annot::Annotations;
/// use annot::guard::Claims;
/// use annot::guard::fs::GuardedDir;
///
/// # let root = std::env::temp_dir().join(format!("annot-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&root).unwrap();
/// let read_only = Claims::of("files", &Annotations::new().read_only(true));
/// let dir = GuardedDir::open_ambient(&root, read_only)?;
/// let refused = dir.write("notes.txt", b"hello").unwrap_err();
/// assert_eq!(refused.refusal().unwrap().hint.wire_name(), "readOnlyHint");
/// assert!(!root.join("notes.txt").exists());
/// # std::fs::remove_dir_all(&root).unwrap();
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct GuardedDir {
    dir: Dir,
    claims: Claims,
}

impl GuardedDir {
    /// Guards `dir` for a call that claims `claims`.
    pub fn new(dir: Dir, claims: Claims) -> Self {
        GuardedDir { dir, claims }
    }

    /// Guards `dir` for `call`.
    pub fn for_call(dir: Dir, call: &Call) -> Self {
        GuardedDir::new(dir, Claims::of_call(call))
    }

    /// Opens the directory at `path` of the file system (the one place
    /// ambient authority is used) and guards it.
    pub fn open_ambient(path: impl AsRef<Path>, claims: Claims) -> io::Result<Self> {
        let dir = Dir::open_ambient_dir(path, ambient_authority())?;
        Ok(GuardedDir::new(dir, claims))
    }

    /// What the call claims.
    pub fn claims(&self) -> &Claims {
        &self.claims
    }

    /// The whole contents of a file.
    pub fn read(&self, path: impl AsRef<Path>) -> Result<Vec<u8>, Error> {
        Ok(self.dir.read(path)?)
    }

    /// The whole contents of a file, as UTF-8.
    pub fn read_to_string(&self, path: impl AsRef<Path>) -> Result<String, Error> {
        Ok(self.dir.read_to_string(path)?)
    }

    /// A file opened for reading.
    pub fn open(&self, path: impl AsRef<Path>) -> Result<GuardedFile, Error> {
        let file = self.dir.open(path.as_ref())?;
        Ok(self.file(file, path.as_ref(), Mode::Read))
    }

    /// The metadata of what `path` names, following symbolic links.
    pub fn metadata(&self, path: impl AsRef<Path>) -> Result<Metadata, Error> {
        Ok(self.dir.metadata(path)?)
    }

    /// Whether `path` names something (a dangling link does not count).
    pub fn exists(&self, path: impl AsRef<Path>) -> bool {
        self.dir.exists(path)
    }

    /// The names in a directory, sorted.
    pub fn entries(&self, path: impl AsRef<Path>) -> Result<Vec<String>, Error> {
        let mut names = Vec::new();
        for entry in self.dir.read_dir(path)? {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    /// Creates a file that must not exist yet, for writing. Needs a write.
    pub fn create_new(&self, path: impl AsRef<Path>) -> Result<GuardedFile, Error> {
        let path = path.as_ref();
        self.claims
            .check_write(format!("create `{}`", path.display()))?;
        let file = self
            .dir
            .open_with(path, OpenOptions::new().write(true).create_new(true))?;
        Ok(self.file(file, path, Mode::Created))
    }

    /// Opens a file for appending, creating it when it does not exist.
    /// Needs a write; what exists is never overwritten (every write goes to
    /// the end) and its [`GuardedFile::set_len`] may not shrink it unless
    /// the call claims destruction.
    pub fn append(&self, path: impl AsRef<Path>) -> Result<GuardedFile, Error> {
        let path = path.as_ref();
        self.claims
            .check_write(format!("append to `{}`", path.display()))?;
        let file = self
            .dir
            .open_with(path, OpenOptions::new().append(true).create(true))?;
        Ok(self.file(file, path, Mode::Append))
    }

    /// Writes `contents` as the whole file: creates it (a write), or
    /// replaces what exists (destruction). Under `destructiveHint: false` a
    /// file that exists, or appears meanwhile, is left as it is.
    pub fn write(&self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Result<(), Error> {
        let path = path.as_ref();
        self.claims
            .check_write(format!("write `{}`", path.display()))?;
        let options = if self.claims.may_destroy() {
            OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .clone()
        } else {
            OpenOptions::new().write(true).create_new(true).clone()
        };
        let file = match self.dir.open_with(path, &options) {
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                self.claims
                    .check_destroy(format!("overwrite `{}`", path.display()))?;
                return Err(Error::Io(error));
            }
            opened => opened?,
        };
        self.file(file, path, Mode::Created)
            .write_all(contents.as_ref())?;
        Ok(())
    }

    /// Opens an existing file for writing anywhere in it, or truncating:
    /// destruction.
    pub fn open_for_overwrite(&self, path: impl AsRef<Path>) -> Result<GuardedFile, Error> {
        let path = path.as_ref();
        self.claims
            .check_destroy(format!("overwrite `{}`", path.display()))?;
        let file = self
            .dir
            .open_with(path, OpenOptions::new().read(true).write(true))?;
        Ok(self.file(file, path, Mode::Created))
    }

    /// Deletes a file (or a symbolic link, not its target): destruction.
    pub fn remove_file(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        self.claims
            .check_destroy(format!("delete `{}`", path.display()))?;
        Ok(self.dir.remove_file(path)?)
    }

    /// Creates a directory: a write.
    pub fn create_dir(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        self.claims
            .check_write(format!("create the directory `{}`", path.display()))?;
        Ok(self.dir.create_dir(path)?)
    }

    /// Deletes an empty directory: destruction.
    pub fn remove_dir(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        self.claims
            .check_destroy(format!("delete the directory `{}`", path.display()))?;
        Ok(self.dir.remove_dir(path)?)
    }

    /// Renames `from` to `to`: a write when `to` is free, destruction when it
    /// would replace something. Without a claim of destruction a file is
    /// moved by linking it under the new name first (which fails, atomically,
    /// if the name is taken) and then unlinking the old one, so nothing is
    /// replaced even if `to` appears meanwhile; a directory is moved only
    /// when `to` is free when checked.
    pub fn rename(&self, from: impl AsRef<Path>, to: impl AsRef<Path>) -> Result<(), Error> {
        let (from, to) = (from.as_ref(), to.as_ref());
        let effect = || format!("rename `{}` to `{}`", from.display(), to.display());
        self.claims.check_write(effect())?;
        if self.claims.may_destroy() {
            return Ok(self.dir.rename(from, &self.dir, to)?);
        }
        if self.dir.symlink_metadata(to).is_ok() {
            self.claims
                .check_destroy(format!("replace `{}` by renaming", to.display()))?;
        }
        let metadata = self.dir.symlink_metadata(from)?;
        if metadata.is_dir() {
            return Ok(self.dir.rename(from, &self.dir, to)?);
        }
        match self.dir.hard_link(from, &self.dir, to) {
            Ok(()) => Ok(self.dir.remove_file(from)?),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                self.claims
                    .check_destroy(format!("replace `{}` by renaming", to.display()))?;
                Err(Error::Io(error))
            }
            Err(error) => Err(Error::Io(error)),
        }
    }

    fn file(&self, file: File, path: &Path, mode: Mode) -> GuardedFile {
        GuardedFile {
            file,
            claims: self.claims,
            mode,
            name: path.display().to_string(),
        }
    }
}

/// How a [`GuardedFile`] was opened, which decides what it may still do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// For reading only.
    Read,
    /// For appending to what may exist.
    Append,
    /// Created by this call, or opened by a call that claims destruction:
    /// nothing in it is anyone else's.
    Created,
}

/// A file handed out by a [`GuardedDir`]: reads freely, writes as it was
/// opened, and checks [`set_len`](Self::set_len) against the call.
#[derive(Debug)]
pub struct GuardedFile {
    file: File,
    claims: Claims,
    mode: Mode,
    name: String,
}

impl GuardedFile {
    /// Truncates or extends the file. Shrinking a file that was opened for
    /// appending is destruction; extending it, or resizing a file this call
    /// created, is a write.
    pub fn set_len(&self, len: u64) -> Result<(), Error> {
        match self.mode {
            Mode::Read => self.claims.check_write(format!("resize `{}`", self.name))?,
            Mode::Append if len < self.file.metadata()?.len() => self
                .claims
                .check_destroy(format!("truncate `{}`", self.name))?,
            Mode::Append | Mode::Created => {
                self.claims.check_write(format!("resize `{}`", self.name))?
            }
        }
        Ok(self.file.set_len(len)?)
    }

    /// The file's metadata.
    pub fn metadata(&self) -> Result<Metadata, Error> {
        Ok(self.file.metadata()?)
    }

    /// Flushes what was written to the disk.
    pub fn sync_all(&self) -> Result<(), Error> {
        Ok(self.file.sync_all()?)
    }
}

impl Read for GuardedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file.read(buf)
    }
}

impl Write for GuardedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.mode == Mode::Read {
            let message = format!("`{}` was opened for reading", self.name);
            return Err(io::Error::new(io::ErrorKind::PermissionDenied, message));
        }
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Seek for GuardedFile {
    /// Seeking changes nothing; a file opened for appending still writes at
    /// its end wherever it is.
    fn seek(&mut self, position: SeekFrom) -> io::Result<u64> {
        self.file.seek(position)
    }
}
