//! Observable state of a sandbox: every file with its content (and hash),
//! and every row of every table of every SQLite database in it, read with
//! SQLite itself. Compared before and after a call.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Files larger than this are kept as a hash only (a change is then an overwrite).
const KEPT_BYTES: u64 = 4 << 20;

/// One file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileState {
    pub sha256: String,
    pub len: u64,
    pub content: Option<Vec<u8>>,
    /// A JSON store's records: the elements of an array, the entries of an
    /// object, or the lines of JSON Lines. A record that only grew (its old
    /// value contained in a new one) was not destroyed.
    pub records: Option<Vec<serde_json::Value>>,
}

/// The state of a sandbox.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub files: BTreeMap<String, FileState>,
    pub directories: Vec<String>,
    /// `database::table` to its rows, each as JSON text, sorted.
    pub rows: BTreeMap<String, Vec<String>>,
}

/// What changed between two snapshots.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Change {
    pub created: Vec<String>,
    pub removed: Vec<String>,
    /// Existing files whose old content is no longer a prefix of the new.
    pub overwritten: Vec<String>,
    /// Existing files that only grew (old content kept as a prefix).
    pub appended: Vec<String>,
    pub rows_removed: Vec<String>,
    pub rows_added: Vec<String>,
}

impl Change {
    pub fn is_empty(&self) -> bool {
        *self == Change::default()
    }

    /// Whether a record that existed before is gone or overwritten.
    pub fn destroys(&self) -> bool {
        !(self.removed.is_empty() && self.overwritten.is_empty() && self.rows_removed.is_empty())
    }

    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (what, items) in [
            ("created", &self.created),
            ("removed", &self.removed),
            ("overwritten", &self.overwritten),
            ("appended to", &self.appended),
            ("rows removed", &self.rows_removed),
            ("rows added", &self.rows_added),
        ] {
            if !items.is_empty() {
                let shown: Vec<&str> = items.iter().take(3).map(String::as_str).collect();
                let more = if items.len() > 3 {
                    format!(" and {} more", items.len() - 3)
                } else {
                    String::new()
                };
                parts.push(format!("{what}: {}{more}", shown.join(", ")));
            }
        }
        if parts.is_empty() {
            "nothing changed".into()
        } else {
            parts.join("; ")
        }
    }
}

fn is_sqlite(bytes: &[u8]) -> bool {
    bytes.starts_with(b"SQLite format 3\0")
}

fn is_sidecar(name: &str) -> bool {
    name.ends_with("-wal") || name.ends_with("-shm") || name.ends_with("-journal")
}

impl Snapshot {
    pub fn take(root: &Path) -> Result<Snapshot, String> {
        let mut snapshot = Snapshot::default();
        snapshot.visit(root, root)?;
        Ok(snapshot)
    }

    fn visit(&mut self, root: &Path, directory: &Path) -> Result<(), String> {
        let mut entries: Vec<_> = std::fs::read_dir(directory)
            .map_err(|error| format!("cannot read {}: {error}", directory.display()))?
            .filter_map(Result::ok)
            .collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let path = entry.path();
            let name = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            let kind = entry.file_type().map_err(|error| error.to_string())?;
            if kind.is_dir() {
                self.directories.push(name);
                self.visit(root, &path)?;
            } else if kind.is_symlink() {
                let target = std::fs::read_link(&path)
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_default();
                self.files.insert(name, state(target.as_bytes()));
            } else if !is_sidecar(&name) {
                let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
                let bytes =
                    std::fs::read(&path).map_err(|error| format!("cannot read {name}: {error}"))?;
                if is_sqlite(&bytes) {
                    self.tables(&name, &path)?;
                    continue;
                }
                let mut file = state(&bytes);
                if len > KEPT_BYTES {
                    file.content = None;
                }
                self.files.insert(name, file);
            }
        }
        Ok(())
    }

    fn tables(&mut self, name: &str, path: &Path) -> Result<(), String> {
        use rusqlite::{OpenFlags, types::ValueRef};
        let fail =
            |error: rusqlite::Error| format!("cannot read the SQLite database {name}: {error}");
        let connection = rusqlite::Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(fail)?;
        connection
            .busy_timeout(std::time::Duration::from_secs(5))
            .map_err(fail)?;
        let tables: Vec<String> = connection
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .and_then(|mut statement| statement.query_map([], |row| row.get(0))?.collect())
            .map_err(fail)?;
        for table in tables {
            let quoted = format!("\"{}\"", table.replace('"', "\"\""));
            let mut statement = connection
                .prepare(&format!("SELECT * FROM {quoted}"))
                .map_err(fail)?;
            let columns = statement.column_count();
            let mut rows: Vec<String> = statement
                .query_map([], |row| {
                    let mut cells = Vec::with_capacity(columns);
                    for index in 0..columns {
                        cells.push(match row.get_ref(index)? {
                            ValueRef::Null => serde_json::Value::Null,
                            ValueRef::Integer(n) => n.into(),
                            ValueRef::Real(x) => x.into(),
                            ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
                            ValueRef::Blob(b) => format!("x'{}'", hex(b)).into(),
                        });
                    }
                    Ok(serde_json::Value::Array(cells).to_string())
                })
                .and_then(Iterator::collect)
                .map_err(fail)?;
            rows.sort();
            self.rows.insert(format!("{name}::{table}"), rows);
        }
        Ok(())
    }

    /// What changed from `self` to `after`.
    pub fn change_to(&self, after: &Snapshot) -> Change {
        let mut change = Change::default();
        for (name, before) in &self.files {
            match after.files.get(name) {
                None => change.removed.push(name.clone()),
                Some(now) if now == before => {}
                Some(now) => {
                    let grew = match (&before.records, &now.records, &before.content, &now.content)
                    {
                        (Some(old), Some(new), _, _) => old
                            .iter()
                            .all(|record| new.iter().any(|now| contains(now, record))),
                        (_, _, Some(old), Some(new)) => {
                            new.len() > old.len() && new.starts_with(old)
                        }
                        _ => false,
                    };
                    if grew {
                        change.appended.push(name.clone())
                    } else {
                        change.overwritten.push(name.clone())
                    }
                }
            }
        }
        change.created = after
            .files
            .keys()
            .filter(|name| !self.files.contains_key(*name))
            .cloned()
            .collect();
        change.created.extend(
            after
                .directories
                .iter()
                .filter(|d| !self.directories.contains(d))
                .cloned(),
        );
        change.removed.extend(
            self.directories
                .iter()
                .filter(|d| !after.directories.contains(d))
                .cloned(),
        );
        let empty = Vec::new();
        for table in self
            .rows
            .keys()
            .chain(after.rows.keys())
            .collect::<std::collections::BTreeSet<_>>()
        {
            let before = self.rows.get(table).unwrap_or(&empty);
            let now = after.rows.get(table).unwrap_or(&empty);
            change.rows_removed.extend(
                minus(before, now)
                    .into_iter()
                    .map(|row| format!("{table} {row}")),
            );
            change.rows_added.extend(
                minus(now, before)
                    .into_iter()
                    .map(|row| format!("{table} {row}")),
            );
        }
        change
    }
}

/// The rows of `a` not matched one for one in `b` (both sorted).
fn minus(a: &[String], b: &[String]) -> Vec<String> {
    let mut left = Vec::new();
    let mut j = 0;
    for row in a {
        while j < b.len() && b[j] < *row {
            j += 1;
        }
        if j < b.len() && b[j] == *row {
            j += 1;
        } else {
            left.push(row.clone());
        }
    }
    left
}

fn state(bytes: &[u8]) -> FileState {
    FileState {
        sha256: hex(&Sha256::digest(bytes)),
        len: bytes.len() as u64,
        content: Some(bytes.to_vec()),
        records: records(bytes),
    }
}

/// The records of a JSON or JSON Lines file, if it is one.
fn records(bytes: &[u8]) -> Option<Vec<serde_json::Value>> {
    use serde_json::Value;
    let text = std::str::from_utf8(bytes).ok()?;
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        return match value {
            Value::Array(items) => Some(items),
            Value::Object(entries) => Some(
                entries
                    .into_iter()
                    .map(|(k, v)| serde_json::json!({ k: v }))
                    .collect(),
            ),
            _ => None,
        };
    }
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// Whether `new` keeps everything `old` held: equal scalars, every key of an
/// object contained, every element of an array contained in some element.
fn contains(new: &serde_json::Value, old: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (new, old) {
        (Value::Object(new), Value::Object(old)) => old
            .iter()
            .all(|(key, value)| new.get(key).is_some_and(|now| contains(now, value))),
        (Value::Array(new), Value::Array(old)) => old
            .iter()
            .all(|item| new.iter().any(|now| contains(now, item))),
        _ => new == old,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Copies a fixture directory (or one database file) into the sandbox.
pub fn seed(fixture: &Path, sandbox: &Path) -> std::io::Result<()> {
    if fixture.is_file() {
        let name = fixture
            .file_name()
            .ok_or_else(|| std::io::Error::other("fixture has no file name"))?;
        std::fs::copy(fixture, sandbox.join(name))?;
        return Ok(());
    }
    for entry in std::fs::read_dir(fixture)? {
        let entry = entry?;
        let target = sandbox.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(&target)?;
            seed(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// Empties the sandbox directory (keeping the directory itself: a server's
/// working directory must stay valid across resets).
pub fn wipe(sandbox: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(sandbox)? {
        let path = entry?.path();
        if path.is_dir() && !path.is_symlink() {
            std::fs::remove_dir_all(path)?;
        } else {
            std::fs::remove_file(path)?;
        }
    }
    Ok(())
}

/// The default fixture: two text files and a SQLite database with rows.
pub fn default_fixture(directory: &Path) -> Result<(), String> {
    let fail = |error: std::io::Error| error.to_string();
    std::fs::write(directory.join("notes.txt"), "first line\n").map_err(fail)?;
    std::fs::create_dir_all(directory.join("docs")).map_err(fail)?;
    std::fs::write(directory.join("docs/readme.md"), "# fixture\n").map_err(fail)?;
    let db = rusqlite::Connection::open(directory.join("records.db")).map_err(|e| e.to_string())?;
    db.execute_batch(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
         INSERT INTO items (name) VALUES ('alpha'), ('beta'), ('gamma');",
    )
    .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_append_from_overwrite_and_counts_rows() {
        let dir = tempfile::tempdir().unwrap();
        default_fixture(dir.path()).unwrap();
        let before = Snapshot::take(dir.path()).unwrap();
        assert_eq!(before.rows["records.db::items"].len(), 3);
        std::fs::write(dir.path().join("notes.txt"), "first line\nmore\n").unwrap();
        std::fs::write(dir.path().join("docs/readme.md"), "gone").unwrap();
        let db = rusqlite::Connection::open(dir.path().join("records.db")).unwrap();
        db.execute("DELETE FROM items WHERE name = 'beta'", [])
            .unwrap();
        let change = before.change_to(&Snapshot::take(dir.path()).unwrap());
        assert_eq!(change.appended, ["notes.txt"]);
        assert_eq!(change.overwritten, ["docs/readme.md"]);
        assert_eq!(change.rows_removed, ["records.db::items [2,\"beta\"]"]);
        assert!(change.destroys());
    }

    #[test]
    fn a_json_store_that_only_grows_is_appended_to() {
        let old = state(b"{\"name\":\"a\",\"observations\":[\"x\"]}\n");
        let grown = state(b"{\"name\":\"a\",\"observations\":[\"x\",\"y\"]}\n{\"name\":\"b\"}\n");
        let lost = state(b"{\"name\":\"a\",\"observations\":[\"y\"]}\n");
        let snapshot = |file: &FileState| Snapshot {
            files: [("memory.json".to_owned(), file.clone())].into(),
            ..Snapshot::default()
        };
        assert_eq!(
            snapshot(&old).change_to(&snapshot(&grown)).appended,
            ["memory.json"]
        );
        assert_eq!(
            snapshot(&old).change_to(&snapshot(&lost)).overwritten,
            ["memory.json"]
        );
    }
}
