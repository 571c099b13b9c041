//! Confirmations through the host, bound to the exact call: an accept
//! answers one question about one call, once.

use serde_json::{Value, json};

use crate::rules::{SPLIT_NOTES, Setup};
use crate::support::{Host, exported, snapshot, text};

const ELICITING: &str = r#"{"elicitation": {}}"#;

fn started(setup: &Setup) -> Host {
    let mut host = setup.start(&["--exposure", "resolvable"], &[]);
    host.initialize(serde_json::from_str(ELICITING).unwrap());
    host.tools();
    host
}

fn answer(host: &mut Host, question: &Value, result: Value) {
    host.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": result}));
}

fn digest_of(question: &Value) -> String {
    question["params"]["_meta"]["dev.annot/gateway"]["callDigest"]
        .as_str()
        .expect("the question carries the call's digest")
        .to_owned()
}

#[test]
fn an_accepted_confirmation_runs_the_call_it_was_asked_for() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = started(&setup);
    let id = host.send_request(
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "append", "name": "todo", "text": "eggs\n"}}),
    );
    let question = host.host_request("elicitation/create");
    let message = question["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("\"eggs\\n\""),
        "the question shows the arguments: {message}"
    );
    let digest = digest_of(&question);
    assert!(message.contains(&digest), "{message}");
    answer(
        &mut host,
        &question,
        json!({"action": "accept", "content": {"approve": true}}),
    );
    let response = host.response(&id);
    assert_eq!(text(&response["result"]), "appended", "{response}");
    assert_eq!(
        std::fs::read_to_string(setup.notes().join("todo")).unwrap(),
        "buy milk\neggs\n"
    );
    host.finish();
    let calls = exported(setup.log());
    assert_eq!(
        calls[0]["confirmation"],
        json!(format!("accepted for {digest}"))
    );
}

#[test]
fn a_replayed_accept_approves_nothing() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = started(&setup);
    let arguments = json!({"action": "append", "name": "todo", "text": "eggs\n"});
    let first = host.send_request(
        "tools/call",
        json!({"name": "notes", "arguments": arguments}),
    );
    let question = host.host_request("elicitation/create");
    answer(
        &mut host,
        &question,
        json!({"action": "accept", "content": {"approve": true}}),
    );
    host.response(&first);
    let after_first = snapshot(&setup.notes());

    // The same call again: a new question, the same digest. The old accept,
    // sent again, answers nothing; the person declines the new question.
    let second = host.send_request(
        "tools/call",
        json!({"name": "notes", "arguments": arguments}),
    );
    let again = host.host_request("elicitation/create");
    assert_ne!(
        again["id"], question["id"],
        "a question is never asked under a spent id"
    );
    assert_eq!(digest_of(&again), digest_of(&question));
    answer(
        &mut host,
        &question,
        json!({"action": "accept", "content": {"approve": true}}),
    );
    assert_eq!(host.request("ping", json!({}))["result"], json!({}));
    answer(&mut host, &again, json!({"action": "decline"}));
    let refused = host.response(&second);
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");
    assert!(text(&refused["result"]).contains("declined"), "{refused}");
    assert_eq!(snapshot(&setup.notes()), after_first);
}

#[test]
fn an_accept_for_another_question_does_not_approve_this_call() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = started(&setup);
    let before = snapshot(&setup.notes());
    let delete = host.send_request(
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "delete", "name": "todo"}}),
    );
    let question = host.host_request("elicitation/create");
    // An accept under an id the gateway never asked with.
    host.send(&json!({"jsonrpc": "2.0", "id": "annot-gateway-confirm-999",
                      "result": {"action": "accept", "content": {"approve": true}}}));
    // An accept without the approval the question asked for.
    answer(
        &mut host,
        &question,
        json!({"action": "accept", "content": {}}),
    );
    let refused = host.response(&delete);
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");
    assert_eq!(snapshot(&setup.notes()), before);
}

#[test]
fn a_host_that_cannot_be_asked_gets_a_refusal() {
    let setup = Setup::new(SPLIT_NOTES);
    let mut host = setup.start(&["--exposure", "resolvable"], &[]);
    host.initialize(json!({}));
    let before = snapshot(&setup.notes());
    let append = host.call(
        "notes",
        json!({"action": "append", "name": "todo", "text": "x"}),
    );
    assert_eq!(append["isError"], json!(true));
    assert!(text(&append).contains("fails closed"), "{append}");
    assert_eq!(snapshot(&setup.notes()), before);
}

#[test]
fn the_question_shows_the_configured_preview_where_the_upstream_has_none() {
    let config = SPLIT_NOTES.replace(
        "override = true\n",
        "override = true\npreview = \"{action} the note {name}\"\n",
    );
    let setup = Setup::new(&config);
    let mut host = setup.start(&["--exposure", "resolvable"], &[]);
    host.initialize(serde_json::from_str(ELICITING).unwrap());
    let listed = host.request("tools/list", json!({}));
    let template =
        &listed["result"]["tools"][0]["_meta"]["io.modelcontextprotocol/display-templates"];
    assert_eq!(
        template["template"],
        json!("{action} the note {name}"),
        "{listed}"
    );
    let id = host.send_request(
        "tools/call",
        json!({"name": "notes", "arguments": {"action": "delete", "name": "todo"}}),
    );
    let question = host.host_request("elicitation/create");
    let message = question["params"]["message"].as_str().unwrap();
    assert!(message.contains("delete the note todo"), "{message}");
    answer(&mut host, &question, json!({"action": "cancel"}));
    let refused = host.response(&id);
    assert!(text(&refused["result"]).contains("dismissed"), "{refused}");
    assert!(setup.notes().join("todo").exists());
}
