//! A store that goes away: the gateway fails closed (no call runs whose risk
//! it cannot read, none is answered whose record it cannot commit), and
//! serves again once the store is back, without a restart.

use serde_json::json;

use crate::rules::{SPLIT_NOTES, Setup};
use crate::stores::TestStore;
use crate::support::{exported, text};

#[test]
fn postgres_going_away_refuses_calls_and_coming_back_serves_them() {
    let Some(store) = TestStore::postgres() else {
        return;
    };
    let setup = Setup::on(SPLIT_NOTES, &store);
    let mut host = setup.start(&["--exposure", "resolvable", "--confirm", "host"], &[]);
    host.initialize(json!({}));
    let read = host.call("notes", json!({"action": "read", "name": "todo"}));
    assert_eq!(text(&read), "buy milk\n", "{read}");

    let database = store.database();
    store.admin(&format!(
        "ALTER DATABASE {database} ALLOW_CONNECTIONS false"
    ));
    store.admin(&format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'"
    ));
    let append = json!({"action": "append", "name": "todo", "text": "eggs\n"});
    let refused = host.request("tools/call", json!({"name": "notes", "arguments": append}));
    // Refused, and since the refusal cannot be logged either, answered
    // with the error that says so.
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("decision log failed"), "{refused}");
    assert_eq!(
        std::fs::read_to_string(setup.notes().join("todo")).unwrap(),
        "buy milk\n",
        "a call whose risk is unknown does not run"
    );

    store.admin(&format!("ALTER DATABASE {database} ALLOW_CONNECTIONS true"));
    let appended = host.call("notes", append);
    assert_eq!(text(&appended), "appended", "{appended}");
    host.finish();
    let outcomes: Vec<String> = exported(setup.store())
        .iter()
        .map(|call| call["outcome"].as_str().unwrap().to_owned())
        .collect();
    // The refused call could not be logged, and was not answered as if it
    // had been.
    assert_eq!(outcomes, ["ok", "ok"]);
}

/// A store that cannot be reached at start stops the gateway with the
/// reason, and without the URL's password.
#[test]
fn a_store_out_of_reach_at_start_stops_the_gateway_with_the_reason() {
    let nowhere = tempfile::tempdir().unwrap();
    let url = format!(
        "postgres://annot:secret@localhost/annot?host={}",
        nowhere.path().display()
    );
    let output = std::process::Command::new(crate::support::GATEWAY)
        .args(["--store", &url, "--", "true"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("annot-gateway runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot open the store postgres://annot:***@localhost")
            && stderr.contains("No such file or directory"),
        "{stderr}"
    );
    assert!(!stderr.contains("secret"), "{stderr}");
}
