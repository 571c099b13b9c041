//! The file guard on a real directory: the three holes of cap-std it
//! closes (no read-only `Dir`, a `rename` that replaces, a `set_len` on a
//! file opened for appending), symbolic links inside and outside the root,
//! and the `manage_files` example server refusing, byte for byte, what a
//! call's resolution does not claim.

use crate::guard_support;
use std::io::Write;

use annot::Annotations;
use annot::guard::fs::Root;
use annot::guard::{Claims, Error};
use guard_support::{TempDir, snapshot};

const READ: Annotations = Annotations::new().read_only(true);
const APPEND: Annotations = Annotations::new().read_only(false).destructive(false);
const WRITE: Annotations = Annotations::new().read_only(false).destructive(true);

fn sandbox() -> TempDir {
    let dir = TempDir::new("fs");
    std::fs::write(dir.path.join("notes.txt"), "keep me").unwrap();
    std::fs::write(dir.path.join("other.txt"), "other").unwrap();
    dir
}

fn hint(result: Result<impl std::fmt::Debug, Error>) -> String {
    match result {
        Err(Error::Refused(refusal)) => refusal.hint.wire_name().to_owned(),
        other => format!("not refused: {other:?}"),
    }
}

#[test]
fn a_read_only_call_changes_nothing() {
    let dir = sandbox();
    let before = snapshot(&dir.path);
    let files = Root::open_ambient(&dir.path)
        .unwrap()
        .guarded(Claims::of("t", &READ))
        .unwrap();
    assert_eq!(files.read_to_string("notes.txt").unwrap(), "keep me");
    assert_eq!(files.entries(".").unwrap(), ["notes.txt", "other.txt"]);
    for refused in [
        hint(files.write("notes.txt", "x")),
        hint(files.write("new.txt", "x")),
        hint(files.create_new("new.txt")),
        hint(files.append("notes.txt")),
        hint(files.remove_file("notes.txt")),
        hint(files.rename("notes.txt", "moved.txt")),
        hint(files.create_dir("d")),
        hint(files.open_for_overwrite("notes.txt")),
    ] {
        assert_eq!(refused, "readOnlyHint");
    }
    // A file opened for reading writes nothing and resizes nothing.
    let mut file = files.open("notes.txt").unwrap();
    assert!(file.write_all(b"x").is_err());
    assert_eq!(hint(file.set_len(0)), "readOnlyHint");
    assert_eq!(snapshot(&dir.path), before);
}

#[test]
fn an_additive_call_creates_and_appends_but_never_destroys() {
    let dir = sandbox();
    let files = Root::open_ambient(&dir.path)
        .unwrap()
        .guarded(Claims::of("t", &APPEND))
        .unwrap();
    let before = snapshot(&dir.path);
    for refused in [
        hint(files.write("notes.txt", "x")),
        hint(files.remove_file("notes.txt")),
        // cap-std's rename replaces its target: the guard's does not.
        hint(files.rename("notes.txt", "other.txt")),
        hint(files.open_for_overwrite("notes.txt")),
    ] {
        assert_eq!(refused, "destructiveHint");
    }
    // A file opened for appending cannot be truncated by `set_len`.
    let file = files.append("notes.txt").unwrap();
    assert_eq!(hint(file.set_len(0)), "destructiveHint");
    assert_eq!(snapshot(&dir.path), before);
    // What it may do.
    let mut file = files.append("notes.txt").unwrap();
    file.write_all(b", and this").unwrap();
    file.set_len(30).unwrap();
    files.write("new.txt", "fresh").unwrap();
    files.rename("new.txt", "renamed.txt").unwrap();
    files.create_dir("d").unwrap();
    assert_eq!(std::fs::read(dir.path.join("notes.txt")).unwrap().len(), 30);
    assert!(
        std::fs::read_to_string(dir.path.join("notes.txt"))
            .unwrap()
            .starts_with("keep me, and this")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path.join("renamed.txt")).unwrap(),
        "fresh"
    );
    assert!(!dir.path.join("new.txt").exists());
}

#[test]
fn a_destructive_call_may_do_everything_inside_the_root() {
    let dir = sandbox();
    let files = Root::open_ambient(&dir.path)
        .unwrap()
        .guarded(Claims::of("t", &WRITE))
        .unwrap();
    files.write("notes.txt", "replaced").unwrap();
    files.rename("notes.txt", "other.txt").unwrap();
    files.append("other.txt").unwrap().set_len(3).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path.join("other.txt")).unwrap(),
        "rep"
    );
    files.remove_file("other.txt").unwrap();
    assert!(snapshot(&dir.path).is_empty());
}

#[cfg(unix)]
#[test]
fn symbolic_links_inside_are_followed_and_outside_refused() {
    use std::os::unix::fs::symlink;
    let outside = TempDir::new("outside");
    std::fs::write(outside.path.join("secret.txt"), "secret").unwrap();
    let dir = sandbox();
    symlink("notes.txt", dir.path.join("inside")).unwrap();
    symlink(outside.path.join("secret.txt"), dir.path.join("escape")).unwrap();
    symlink("../", dir.path.join("up")).unwrap();
    let root = Root::open_ambient(&dir.path).unwrap();
    let append = root.guarded(Claims::of("t", &APPEND)).unwrap();
    // Inside: the guard judges the file the link reaches.
    assert_eq!(append.read_to_string("inside").unwrap(), "keep me");
    assert_eq!(hint(append.write("inside", "x")), "destructiveHint");
    // Outside, or through `..`: the capability refuses, whatever the claim.
    let write = root.guarded(Claims::of("t", &WRITE)).unwrap();
    for path in ["escape", "up/x", "../x", "/etc/passwd"] {
        assert!(write.read(path).is_err(), "{path}");
        assert!(
            matches!(write.write(path, "x"), Err(Error::Io(_))),
            "{path}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(outside.path.join("secret.txt")).unwrap(),
        "secret"
    );
    // Removing a link removes the link, not what it points to.
    write.remove_file("inside").unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path.join("notes.txt")).unwrap(),
        "keep me"
    );
}

#[test]
fn a_refusal_names_the_effect_the_hint_and_the_call() {
    let dir = sandbox();
    let files = Root::open_ambient(&dir.path)
        .unwrap()
        .guarded(Claims::of("manage_files", &APPEND))
        .unwrap();
    let error = files.remove_file("notes.txt").unwrap_err();
    assert_eq!(
        error.to_string(),
        "refused: delete `notes.txt` needs destructiveHint: true, and this call of \
         `manage_files` resolved destructiveHint: false"
    );
}

#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;

/// The case: a handler whose `read` writes. Through the guard the
/// write is refused with an `isError` result naming the hint, the file keeps
/// its bytes, and the server goes on serving.
#[test]
fn a_read_handler_that_writes_is_refused_and_the_server_keeps_serving() {
    use annot::server::{Call, Server, ToolOutput};
    use manage_files::ManageFiles;
    use serde_json::{Value, json};

    let dir = sandbox();
    let before = snapshot(&dir.path);
    let root = Root::open_ambient(&dir.path).unwrap();
    let server = Server::builder("buggy", "0")
        .tool_with_call(move |arguments: ManageFiles, call: &Call| {
            let files = root.for_call(call)?;
            match arguments {
                // The bug: a read that also "touches" the file.
                ManageFiles::Read { path } => {
                    files.write(&path, "touched")?;
                    Ok(ToolOutput::text(files.read_to_string(&path)?))
                }
                ManageFiles::Append { path, content } => {
                    files.append(&path)?.write_all(content.as_bytes())?;
                    Ok(ToolOutput::text("appended"))
                }
                _ => Ok(ToolOutput::text("not in this test")),
            }
        })
        .build()
        .unwrap();
    let mut connection = server.connect();
    let mut call = |arguments: Value| {
        let message = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "manage_files", "arguments": arguments}
        });
        let response = connection.handle(message.to_string().as_bytes()).unwrap();
        let response: Value = serde_json::from_slice(&response).unwrap();
        response["result"].clone()
    };
    let read = call(json!({"action": "read", "path": "notes.txt"}));
    assert_eq!(read["isError"], true, "{read}");
    assert_eq!(
        read["content"][0]["text"],
        "refused: write `notes.txt` needs readOnlyHint: false, and this call of \
         `manage_files` resolved readOnlyHint: true"
    );
    assert_eq!(snapshot(&dir.path), before);
    let append = call(json!({"action": "append", "path": "notes.txt", "content": "!"}));
    assert_eq!(append["content"][0]["text"], "appended", "{append}");
    assert_eq!(
        std::fs::read_to_string(dir.path.join("notes.txt")).unwrap(),
        "keep me!"
    );
}
