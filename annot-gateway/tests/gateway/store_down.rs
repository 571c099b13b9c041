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
