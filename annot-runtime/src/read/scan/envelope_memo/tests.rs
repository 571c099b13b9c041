//! The envelope memo against the scanner's own reading of the same text, and
//! against hand-written expectations.

use super::*;
use crate::read::scan::{MetaMemo, envelope};

/// `text` as the scanner reads it without a memo.
fn scanned(text: &str) -> Option<Envelope<'_>> {
    let mut read = Envelope::default();
    envelope(text, &mut read, Some(&mut MetaMemo::default())).map(|()| read)
}

/// What `memo` makes of `text`: read by the memo, or else by the scanner
/// and remembered.
fn read_with<'a>(memo: &mut EnvelopeMemo, text: &'a str) -> (Recalled, Option<Envelope<'a>>) {
    let mut read = Envelope::default();
    let recalled = memo.recall(text, &mut read);
    if recalled == Recalled::Read {
        return (recalled, Some(read));
    }
    let read = scanned(text);
    if let Some(read) = &read {
        memo.remember(text, read, recalled);
    }
    (recalled, read)
}

/// A memo that has read `text` twice running.
fn remembering(text: &str) -> EnvelopeMemo {
    let mut memo = EnvelopeMemo::default();
    assert_eq!(read_with(&mut memo, text).0, Recalled::New);
    assert!(matches!(
        read_with(&mut memo, text).0,
        Recalled::Repeated(_)
    ));
    memo
}

/// `text` as `memo` reads it, `None` unless it reads it.
fn recalled<'a>(memo: &mut EnvelopeMemo, text: &'a str) -> Option<Envelope<'a>> {
    let mut read = Envelope::default();
    (memo.recall(text, &mut read) == Recalled::Read).then_some(read)
}

/// Ids and arguments of every kind the scanner reads, each put in place of
/// the remembered ones.
const IDS: [&str; 8] = [
    "7",
    "12345678901234567890",
    "-0",
    "1.5e3",
    r#""a""#,
    r#""é\n\"""#,
    "{}",
    r#"[{"a":[]}]"#,
];
const ARGUMENTS: [&str; 8] = [
    r#"{"action":"read","path":"notes/a.txt"}"#,
    r#"{"action":"append","content":"One more line.\n","path":"é/ü"}"#,
    "{ }",
    r#"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}"#,
    r#"{"a":{"b":[1,2,{"c":null}]},"d":true}"#,
    "[]",
    "null",
    r#""text""#,
];

/// Envelopes as clients write them: members in either order, `_meta` or
/// none, whitespace, a method and a name with escapes (read, but not as plain
/// strings). `{id}` and `{arguments}` mark the values.
const TEMPLATES: [&str; 6] = [
    r#"{"jsonrpc":"2.0","id":{id},"method":"tools/resolve","params":{"name":"manage_files","arguments":{arguments}}}"#,
    r#"{"method":"tools/call","params":{"name":"t","arguments":{arguments}},"jsonrpc":"2.0","id":{id}}"#,
    r#" { "id" : {id} , "jsonrpc" : "2.0" , "method" : "tools/call" , "params" : { "arguments" : {arguments} , "name" : "t" , "cursor" : null } } "#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"tools/resolve","params":{"name":"t","arguments":{arguments},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tool-resolution":{}}},"dev.annot/resolution":{"explain":true}}}}"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"tools/resolve","params":{"_meta":{},"protocolVersion":"x","capabilities":{},"clientInfo":{},"arguments":{arguments},"name":"t"},"extra":{"id":0}}"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"tools\/call","params":{"name":"a\/b","arguments":{arguments}}}"#,
];

fn message(template: &str, id: &str, arguments: &str) -> String {
    template
        .replace("{id}", id)
        .replace("{arguments}", arguments)
}

#[test]
fn other_values_in_the_remembered_envelope_are_read_as_the_scanner_reads_them() {
    for template in TEMPLATES {
        let mut memo = remembering(&message(template, "1", ARGUMENTS[0]));
        for id in IDS {
            for arguments in ARGUMENTS {
                let text = message(template, id, arguments);
                assert_eq!(recalled(&mut memo, &text), scanned(&text), "{text}");
                assert!(recalled(&mut memo, &text).is_some(), "{text}");
            }
        }
    }
}

#[test]
fn a_recalled_envelope_holds_the_message_own_values() {
    let template = TEMPLATES[0];
    let mut memo = remembering(&message(template, "1", ARGUMENTS[0]));
    let text = message(template, r#""req-2""#, ARGUMENTS[1]);
    let read = recalled(&mut memo, &text).expect("the same envelope");
    assert_eq!(read.id.map(Json::get), Some(r#""req-2""#));
    assert_eq!(read.jsonrpc.map(Json::get), Some(r#""2.0""#));
    assert_eq!(read.plain_method, Some("tools/resolve"));
    let ParamsSlot::Object(fields) = read.params else {
        panic!("{read:?}")
    };
    assert_eq!(fields.plain_name, Some("manage_files"));
    assert_eq!(fields.arguments.map(Json::get), Some(ARGUMENTS[1]));
    let members = fields.split_arguments.expect("split").members().to_vec();
    assert_eq!(
        members,
        [
            (&b"action"[..], r#""append""#),
            (&b"content"[..], r#""One more line.\n""#),
            (&b"path"[..], r#""é/ü""#),
        ]
    );
    // Every text is a slice of the message at hand, not of the one
    // remembered.
    let within = |part: &str| text.as_bytes().as_ptr_range().contains(&part.as_ptr());
    assert!(within(read.id.unwrap().get()) && within(read.method.unwrap().get()));
    assert!(within(fields.name.unwrap().get()) && within(fields.arguments.unwrap().get()));
    assert!(within(read.plain_method.unwrap()) && within(fields.plain_name.unwrap()));
}

#[test]
fn a_byte_changed_around_the_values_is_not_recalled() {
    let template = TEMPLATES[0];
    let mut memo = remembering(&message(template, "1", ARGUMENTS[0]));
    let changed = [
        template.replace("tools/resolve", "tools/resolvf"),
        template.replace("manage_files", "manage_filet"),
        template.replace("\"2.0\"", "\"2.1\""),
        template.replace(",\"method\"", " ,\"method\""),
        template.replace("}}", "},\"cursor\":null}"),
        format!("{template} "),
        format!("{template}{{}}"),
        template[..template.len() - 1].to_owned(),
        format!(" {template}"),
    ];
    for template in changed {
        let text = message(&template, "2", ARGUMENTS[1]);
        assert_eq!(recalled(&mut memo, &text), None, "{text}");
    }
    // Whitespace before a value is the envelope's, not the value's.
    for (id, arguments) in [(" 2", ARGUMENTS[0]), ("2", " {}"), ("\n2", "\t{}")] {
        let text = message(template, id, arguments);
        assert_eq!(recalled(&mut memo, &text), None, "{text}");
    }
    // A value reaching into what follows it ends where its own bytes say:
    // the rest then differs.
    let text = message(template, r#"2,"method":"ping""#, ARGUMENTS[0]);
    assert_eq!(recalled(&mut memo, &text), None, "{text}");
}

#[test]
fn a_value_that_is_not_json_is_not_recalled() {
    let template = TEMPLATES[0];
    let mut memo = remembering(&message(template, "1", ARGUMENTS[0]));
    for (id, arguments) in [
        ("01", ARGUMENTS[0]),
        ("tru", ARGUMENTS[0]),
        ("", ARGUMENTS[0]),
        ("\"\u{1}\"", ARGUMENTS[0]),
        ("1", r#"{"a":}"#),
        ("1", r#"{"a":1,}"#),
        ("1", "{"),
        ("1", ""),
    ] {
        let text = message(template, id, arguments);
        assert_eq!(recalled(&mut memo, &text), None, "{text}");
    }
}

#[test]
fn only_a_request_with_arguments_is_remembered() {
    let remembered = message(TEMPLATES[0], "1", ARGUMENTS[0]);
    let others = [
        // A notification, a response, a request without arguments.
        r#"{"jsonrpc":"2.0","method":"tools/resolve","params":{"name":"t","arguments":{}}}"#
            .to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"result":{"arguments":{}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}"#.to_owned(),
        // An envelope too long to keep.
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"arguments":{{}},"_meta":{{"trace":"{}"}}}}}}"#,
            "x".repeat(1100)
        ),
    ];
    for other in &others {
        let mut memo = remembering(&remembered);
        for _ in 0..3 {
            assert_eq!(read_with(&mut memo, other).0, Recalled::New, "{other}");
        }
        // Nor is what was remembered before forgotten.
        assert!(recalled(&mut memo, &remembered).is_some(), "{other}");
    }
    assert_eq!(recalled(&mut EnvelopeMemo::default(), &remembered), None);
}

/// What the memo made of each of `texts` in turn, each read as the scanner
/// reads it.
fn recalls(texts: &[String]) -> Vec<Recalled> {
    let mut memo = EnvelopeMemo::default();
    texts
        .iter()
        .map(|text| {
            let (recalled, read) = read_with(&mut memo, text);
            assert_eq!(read, scanned(text), "{text}");
            recalled
        })
        .collect()
}

#[test]
fn an_envelope_is_read_by_the_memo_from_its_third_time_and_kept_beside_one_other() {
    let message = |id: &str, arguments: &str| message(TEMPLATES[0], id, arguments);
    let other = |id: &str| message(id, ARGUMENTS[0]).replace("manage_files", "other");
    let third = |id: &str| message(id, ARGUMENTS[0]).replace("manage_files", "third");
    let texts = [
        message("1", ARGUMENTS[0]),
        message("2", ARGUMENTS[1]),
        message("3", ARGUMENTS[2]),
        other("4"),
        other("5"),
        message("6", ARGUMENTS[4]),
        other("7"),
        third("8"),
        third("9"),
        third("10"),
        // The first, used longest ago, gave its place to the third; coming
        // back, it takes the place of the other.
        message("11", ARGUMENTS[5]),
        other("12"),
    ];
    use Recalled::{New, Read, Repeated};
    assert_eq!(
        recalls(&texts),
        [
            New,
            Repeated(1),
            Read,
            New,
            Repeated(0),
            Read,
            Read,
            New,
            Repeated(1),
            Read,
            New,
            New
        ]
    );
}

#[test]
fn a_resolution_before_each_call_is_read_by_the_memo() {
    let resolve = |id: &str| message(TEMPLATES[0], id, ARGUMENTS[0]);
    let call = |id: &str| resolve(id).replace("tools/resolve", "tools/call");
    let texts: Vec<String> = (1..6)
        .flat_map(|turn| [resolve(&format!("{turn}0")), call(&format!("{turn}1"))])
        .collect();
    let found = recalls(&texts);
    assert!(
        found[..4]
            .iter()
            .all(|recalled| *recalled != Recalled::Read),
        "{found:?}"
    );
    assert!(
        found[4..]
            .iter()
            .all(|recalled| *recalled == Recalled::Read),
        "{found:?}"
    );
}

#[test]
fn after_new_envelopes_running_the_memo_compares_one_request_in_sixteen() {
    // Each with a progress token of its own, then the same envelope again.
    let with_token = |token: usize| {
        message(TEMPLATES[0], &token.to_string(), ARGUMENTS[0]).replace(
            "\"arguments\"",
            &format!("\"_meta\":{{\"progressToken\":{token}}},\"arguments\""),
        )
    };
    let texts: Vec<String> = (1..=40)
        .map(with_token)
        .chain((41..=120).map(|id| message(TEMPLATES[0], &id.to_string(), ARGUMENTS[1])))
        .collect();
    let found = recalls(&texts);
    use Recalled::{New, Read, Repeated, Skipped};
    // Four tried, then one in sixteen.
    assert_eq!(found[..5], [New, New, New, New, Skipped]);
    let tried: Vec<usize> = (0..40).filter(|at| found[*at] != Skipped).collect();
    assert_eq!(tried, [0, 1, 2, 3, 16, 32]);
    // Back in one envelope, it is compared again at its next turn, and read
    // from the turn after its repeat.
    let back = found[40..]
        .iter()
        .position(|recalled| *recalled != Skipped)
        .unwrap()
        + 40;
    assert_eq!(back, 48);
    assert_eq!(found[back], New);
    assert!(
        found[back + 1..back + 16]
            .iter()
            .all(|recalled| *recalled == Skipped)
    );
    assert!(matches!(found[back + 16], Repeated(_)));
    assert!(found[back + 17..].iter().all(|recalled| *recalled == Read));
}

#[test]
fn an_envelope_of_up_to_one_kib_without_its_values_is_kept() {
    // The envelope's bytes around an id `1` and arguments `{}`, padded in
    // `_meta` to `length` bytes.
    let padded = |length: usize| {
        let template = r#"{"jsonrpc":"2.0","id":{id},"method":"m","params":{"arguments":{arguments},"_meta":{"pad":"PAD"}}}"#;
        let bare = message(template, "", "").replace("PAD", "").len();
        message(template, "{id}", "{arguments}").replace("PAD", &"x".repeat(length - bare))
    };
    for (length, third) in [
        (MAX_REMEMBERED, Recalled::Read),
        (MAX_REMEMBERED + 1, Recalled::New),
    ] {
        let template = padded(length);
        let texts = [1, 2, 3].map(|id| message(&template, &id.to_string(), ARGUMENTS[0]));
        assert_eq!(recalls(&texts)[2], third, "{length}");
    }
}

#[test]
fn an_envelope_too_long_to_keep_leaves_the_kept_ones_whole() {
    let kept = |id: &str| message(TEMPLATES[0], id, ARGUMENTS[0]);
    let other = message(TEMPLATES[1], "1", ARGUMENTS[0]);
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{{"arguments":{{}},"_meta":{{"trace":"{}"}}}}}}"#,
        "x".repeat(MAX_REMEMBERED)
    );
    // The long one comes when the first kept envelope is the one used
    // longest ago, in the place it would take.
    let texts = [kept("1"), kept("2"), other, long, kept("3")];
    use Recalled::{New, Read, Repeated};
    assert_eq!(recalls(&texts), [New, Repeated(1), New, New, Read]);
}
