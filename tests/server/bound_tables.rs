//! A resolution read from a rule table skips the check against the tool's
//! static bound only when that very table was found to give nothing outside
//! it: a table that lies in what it stores, or a second table, is checked
//! on every resolution, and its lie is an internal error.

use crate::server_support;
use annot::__private::{self as private, ActionRow, Generated, Outcome, RuleTable};
use annot::protocol::error_code;
use annot::server::{Server, ToolOutput};
use annot::{Action, AnnotatedTool, Annotations, ArgumentError};
use serde_json::{Value, json};
use server_support::Client;

/// A hand-written tool whose resolutions come from one of two tables, as its
/// `table` argument says: `honest`, the one its `rule_table` names, whose every
/// resolution is within the static annotations, and `lying`, which stores a
/// write as the resolution of `speak` where its base says read-only.
#[derive(Debug)]
struct TwoTables {
    action: usize,
    lying: bool,
}

const READ_ONLY: Annotations = Annotations::new().read_only(true);
const CLOSED: Annotations = Annotations::new().read_only(true).open_world(false);
const ACTIONS: &[Action] = &[
    Action {
        name: "speak",
        annotations: READ_ONLY,
    },
    Action {
        name: "whisper",
        annotations: CLOSED,
    },
];

const fn row(action: &Action) -> ActionRow {
    ActionRow::new(
        action.name,
        action.annotations,
        None,
        Annotations::new(),
        None,
        &[],
    )
}

const HONEST_ROWS: [ActionRow; 2] = [row(&ACTIONS[0]), row(&ACTIONS[1])];
static HONEST: RuleTable = RuleTable::new(&[], Annotations::new(), None, &HONEST_ROWS);
const LYING_ROWS: [ActionRow; 2] = [
    ActionRow {
        resolved: Annotations::new().read_only(false).effective(),
        ..row(&ACTIONS[0])
    },
    row(&ACTIONS[1]),
];
static LYING: RuleTable = RuleTable::new(&[], Annotations::new(), None, &LYING_ROWS);

impl AnnotatedTool for TwoTables {
    const NAME: &'static str = "two_tables";
    const TITLE: Option<&'static str> = None;
    const DESCRIPTION: Option<&'static str> = None;
    const DISCRIMINATOR: Option<&'static str> = Some("action");
    const ACTIONS: &'static [Action] = ACTIONS;
    const STATIC_ANNOTATIONS: Annotations = READ_ONLY;
    const GENERATED: Generated<Self> = Generated {
        rule_table: Some(&HONEST),
        evaluate: two_tables,
        ..Generated::hand_written()
    };

    fn input_schema() -> &'static str {
        r#"{"type":"object","properties":{"action":{"enum":["speak","whisper"]},"lying":{"type":"boolean"}}}"#
    }

    fn resolve(&self) -> Annotations {
        two_tables(self).annotations()
    }

    fn from_arguments(arguments: &Value) -> Result<Self, ArgumentError> {
        let object = private::object(arguments)?;
        private::deny_unknown_fields(object, &["action", "lying"])?;
        let action = private::discriminator(object, "action", &["speak", "whisper"])?;
        Ok(TwoTables {
            action: usize::from(action == "whisper"),
            lying: private::optional(object, "lying")?.unwrap_or(false),
        })
    }
}

fn two_tables(tool: &TwoTables) -> Outcome {
    let table = if tool.lying { &LYING } else { &HONEST };
    Outcome::compiled(table, tool.action, 0, 0)
}

fn server() -> Server {
    Server::builder("s", "1")
        .tool(|_: TwoTables| Ok(ToolOutput::text("")))
        .build()
        .expect("builds")
}

/// The `readOnlyHint` a `tools/annotations` of `arguments` resolves to, or
/// the error code it gets.
fn read_only(client: &mut Client, arguments: Value) -> Result<bool, i64> {
    let response = client.request(
        "tools/annotations",
        json!({"name": "two_tables", "arguments": arguments}),
    );
    match response.get("error") {
        Some(error) => Err(error["code"].as_i64().expect("a code")),
        None => Ok(response["result"]["annotations"]["readOnlyHint"]
            .as_bool()
            .expect("a hint")),
    }
}

#[test]
fn a_second_table_is_checked_after_the_first_was_found_honest() {
    let server = server();
    let mut client = Client::initialized(&server, json!({}));
    let honest = json!({"action": "speak"});
    let lying = json!({"action": "speak", "lying": true});
    for _ in 0..2 {
        assert_eq!(read_only(&mut client, honest.clone()), Ok(true));
        assert_eq!(
            read_only(&mut client, lying.clone()),
            Err(error_code::INTERNAL_ERROR)
        );
    }
    let whisper = json!({"action": "whisper"});
    assert_eq!(read_only(&mut client, whisper), Ok(true));
}

#[test]
fn a_table_that_stores_a_lie_is_checked_on_every_resolution() {
    // The lying table first: what it stores is not within the bound, though
    // what its rows start from is.
    let server = server();
    let mut client = Client::initialized(&server, json!({}));
    let lying = json!({"action": "speak", "lying": true});
    for _ in 0..2 {
        assert_eq!(
            read_only(&mut client, lying.clone()),
            Err(error_code::INTERNAL_ERROR)
        );
    }
    let honest_from_lying = json!({"action": "whisper", "lying": true});
    assert_eq!(read_only(&mut client, honest_from_lying), Ok(true));
    assert_eq!(read_only(&mut client, json!({"action": "speak"})), Ok(true));
}
