//! The request reader against literal expectations.

use super::*;

fn read(text: &str) -> Option<Envelope<'_>> {
    let mut read = Envelope::default();
    envelope(text, &mut read, Some(&mut MetaMemo::default())).map(|()| read)
}

#[test]
fn reads_the_common_shape() {
    let text = r#" {"jsonrpc":"2.0","id":7,"method":"tools/resolve","params":{"name":"t","arguments":{"a":[1,-2.5e3,true,null,{"b":"x\"\n"}]},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{}},"other":[]}},"extra":{}} "#;
    let envelope = read(text).unwrap();
    assert_eq!(envelope.id.unwrap().get(), "7");
    let ParamsSlot::Object(fields) = envelope.params else {
        panic!("{envelope:?}")
    };
    assert_eq!(
        fields.arguments.unwrap().get(),
        r#"{"a":[1,-2.5e3,true,null,{"b":"x\"\n"}]}"#
    );
    let Some(MetaSlot::Object(meta)) = fields.meta else {
        panic!()
    };
    assert_eq!(
        meta.client_capabilities.unwrap().get(),
        r#"{"extensions":{}}"#
    );
    assert_eq!(meta.preread, Some(Extensions::default()));
    let null = read(r#"{"id":"a","method":"m","params":null}"#).unwrap();
    assert_eq!(null.params, ParamsSlot::Absent);
}

#[test]
fn reads_the_capabilities_extensions_in_the_same_pass() {
    let meta = |capabilities: &str| {
        let text = format!(
            r#"{{"id":1,"params":{{"_meta":{{"io.modelcontextprotocol/clientCapabilities":{capabilities},"x":1}}}}}}"#
        );
        let text: &'static str = Box::leak(text.into_boxed_str());
        read(text).map(|envelope| match envelope.params {
            ParamsSlot::Object(Fields {
                meta: Some(MetaSlot::Object(meta)),
                ..
            }) => (
                meta.client_capabilities.unwrap().get().to_owned(),
                meta.preread,
            ),
            other => panic!("{other:?}"),
        })
    };
    let (text, preread) = meta(
        r#"{"roots":{},"extensions":{"dev.annot/resolution":{"a":[1]},"io.modelcontextprotocol/tool-resolution":{}}}"#,
    )
    .unwrap();
    assert!(text.ends_with(r#"{}}}"#), "{text}");
    let preread = preread.unwrap();
    assert_eq!(preread.tool_resolution.unwrap().get(), "{}");
    assert_eq!(preread.annot_resolution.unwrap().get(), r#"{"a":[1]}"#);
    assert_eq!(preread.annot_authorization, None);
    for nothing in [
        "7",
        "[{}]",
        r#"{"extensions":null}"#,
        r#"{"extensions":[{"a":1}]}"#,
        r#"{"extensions":{"x":1,"x":2}}"#,
    ] {
        assert_eq!(
            meta(nothing),
            Some((nothing.to_owned(), Some(Extensions::default())))
        );
    }
    // Not the shape read here: the value is read whole, its extensions
    // left to serde_json.
    for other in [
        r#"{"extensions":{},"extensions":{}}"#,
        r#"{"extensions":{"dev.annot\/resolution":{},"dev.annot/resolution":{}}}"#,
        r#"{"extensions":{"dev.annot/resolution":{},"dev.annot/resolution":{}}}"#,
    ] {
        assert_eq!(meta(other), Some((other.to_owned(), None)), "{other}");
    }
    assert_eq!(meta(r#"{"extensions":{"a":}}"#), None);
    assert_eq!(meta(r#"{"extensions":{},}"#), None);
}

#[test]
fn finds_the_end_of_plain_text() {
    for (text, end) in [
        ("abcdefghij\"", 10),
        ("abc\"defghijklmnop", 3),
        ("abcdefgh\\ijk", 8),
        ("\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\"", 10),
        ("abcdefg\u{1}xyz", 7),
        ("a\"b\"cdefghijk", 1),
        ("abcdefghijklmnop", 16),
        ("", 0),
    ] {
        assert_eq!(plain_end(text.as_bytes(), 0), end, "{text:?}");
    }
    assert_eq!(plain_end(b"\"xxxxxxxx\"", 1), 9);
    // Every length up to three chunks, every special byte at every place
    // (and high bytes before it), from every start: the first special
    // byte, as a byte-by-byte search finds it.
    for length in 0..72 {
        for place in 0..=length {
            for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                let mut text = vec![b'a'; length];
                if place < length {
                    text[place] = special;
                }
                if place > 2 {
                    text[place - 1] = 0xa9;
                    text[place - 2] = 0xc3;
                }
                for start in 0..=place.min(3) {
                    assert_eq!(plain_end(&text, start), place, "{text:?} from {start}");
                    assert_eq!(
                        bytewise_plain_end(&text, start),
                        place,
                        "{text:?} from {start}"
                    );
                }
            }
        }
    }
}

#[test]
fn reads_extensions() {
    let caps = Json::checked(
        r#"{"roots":{},"extensions":{"x/y":[1],"io.modelcontextprotocol/tool-resolution":{ },"dev.annot/authorization":{"a":1}}}"#,
    );
    let read = extensions(caps).unwrap();
    assert_eq!(read.tool_resolution.unwrap().get(), "{ }");
    assert_eq!(read.annot_authorization.unwrap().get(), r#"{"a":1}"#);
    assert_eq!(read.annot_resolution, None);
    for nothing in ["7", "{}", r#"{"extensions":[]}"#, r#"{"extensions":null}"#] {
        assert_eq!(
            extensions(Json::checked(nothing)),
            Some(Extensions::default())
        );
    }
}

#[test]
fn gives_up_on_anything_else() {
    for text in [
        r#"{"id":1,"id":2}"#,
        r#"{"params":{},"params":null}"#,
        r#"{"params":{"_meta":{},"_meta":{}}}"#,
        r#"{"params":[1]}"#,
        r#"{"params":{"_meta":null}}"#,
        r#"{"m\u0065thod":"x"}"#,
        r#"{"params":{"_meta":{"io.modelcontextprotocol\/clientInfo":{}}}}"#,
        r#"{"params":{"_meta":{"io.modelcontextprotocol/clientInfo\n":{}}}}"#,
        r#"{"id":"\ud800"}"#,
        "{\"id\":\"a\tb\"}",
        r#"{"id":01}"#,
        r#"{"id":1.}"#,
        r#"{"id":-}"#,
        r#"{"id":1e}"#,
        r#"{"a":[1,]}"#,
        r#"{"a":{"b":1,}}"#,
        r#"{"a":tru}"#,
        r#"{"a":1,}"#,
        r#"{"a":1} x"#,
        r#"{"a" 1}"#,
        r#"{"a":[}"#,
        r#"{"a":{]}"#,
        r#"{"a":"#,
        r#"{"a":"\x"}"#,
        "",
    ] {
        assert!(read(text).is_none(), "{text}");
    }
    let repeated = Json::checked(r#"{"extensions":{},"extensions":{}}"#);
    assert!(extensions(repeated).is_none());
    let escaped = Json::checked(r#"{"extensions":{"dev.annot\/resolution":{}}}"#);
    assert!(extensions(escaped).is_none());
    let deep = format!("{{\"a\":{}{}}}", "[".repeat(129), "]".repeat(129));
    assert!(read(&deep).is_none());
    let deep_enough = format!("{{\"a\":{}{}}}", "[".repeat(128), "]".repeat(128));
    assert!(read(&deep_enough).is_some());
}

/// The text of a read member, or `None`.
fn text<'a>(json: Option<Json<'a>>) -> Option<&'a str> {
    json.map(Json::get)
}

#[test]
fn reads_every_member_it_knows_by_name() {
    let request = r#"{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"name":"t","cursor":"c","protocolVersion":"2025-11-25","capabilities":{"a":false},"clientInfo":{"name":"n"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"v":1},"dev.annot/resolution":{}}}}"#;
    let envelope = read(request).unwrap();
    assert_eq!(text(envelope.jsonrpc), Some(r#""2.0""#));
    assert_eq!(text(envelope.id), Some(r#""x""#));
    assert_eq!(text(envelope.method), Some(r#""initialize""#));
    let ParamsSlot::Object(fields) = envelope.params else {
        panic!("{envelope:?}")
    };
    assert_eq!(text(fields.name), Some(r#""t""#));
    assert_eq!(text(fields.cursor), Some(r#""c""#));
    assert_eq!(text(fields.protocol_version), Some(r#""2025-11-25""#));
    assert_eq!(text(fields.capabilities), Some(r#"{"a":false}"#));
    assert_eq!(text(fields.client_info), Some(r#"{"name":"n"}"#));
    let Some(MetaSlot::Object(meta)) = fields.meta else {
        panic!()
    };
    assert_eq!(text(meta.protocol_version), Some(r#""2026-07-28""#));
    assert_eq!(text(meta.client_info), Some(r#"{"v":1}"#));
    assert_eq!(text(meta.annot), Some("{}"));
    assert_eq!(meta.client_capabilities, None);

    let response = read(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1},"result":[]}"#).unwrap();
    assert_eq!(text(response.error), Some(r#"{"code":-1}"#));
    assert_eq!(text(response.result), Some("[]"));

    // Each of these, once more, is a repeated member: the reader gives up.
    let twice = r#"{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientCapabilities":{}}"#;
    assert!(read(&format!(r#"{{"id":1,"params":{{"_meta":{twice}}}}}"#)).is_none());
}

#[test]
fn passes_over_values_of_every_kind() {
    // Skipped members of every JSON type, nested both ways.
    let skipped =
        r#"[false,true,null,0,-1.5e-3,"s\"",{},[],{"a":[{"b":[false]},{}],"c":{}},[[{"d":null}]]]"#;
    let text = format!(r#"{{"id":1,"x":{skipped},"method":"m"}}"#);
    let envelope = read(&text).expect("every kind of value is passed over");
    assert_eq!(envelope.method.map(Json::get), Some(r#""m""#));
    for broken in [
        r#"{"x":[1}"#,
        r#"{"x":{"a":1]}"#,
        r#"{"x":{"a"}}"#,
        r#"{"x":{"a":1,}}"#,
        r#"{"x":[1,]}"#,
        r#"{"x":fals}"#,
        // A container closed by the other kind's bracket, then more members.
        r#"{"x":[1},"id":1}"#,
        r#"{"x":{"a":1],"id":1}"#,
    ] {
        assert!(read(broken).is_none(), "{broken}");
    }
}

#[test]
fn reads_argument_members_by_the_tool_s_names() {
    let names = ["action", "path", "content"];
    let read = members(
        r#" {"path":"/a b","action":"read","content":{"x":[false]}} "#,
        &names,
    );
    assert_eq!(
        read,
        Some(Some([
            Some(r#""read""#),
            Some(r#""/a b""#),
            Some(r#"{"x":[false]}"#)
        ]))
    );
    assert_eq!(members(r#"{}"#, &names), Some(Some([None, None, None])));
    // A space in the last bytes of the text is text too.
    assert_eq!(
        members(r#"{"path":"x y"}"#, &names),
        Some(Some([None, Some(r#""x y""#), None]))
    );
    // Refused as soon as seen: a member not named, or named twice.
    assert_eq!(members(r#"{"other":1}"#, &names), Some(None));
    assert_eq!(members(r#"{"path":"a","path":"a"}"#, &names), Some(None));
    // Not the shape read here: serde_json decides.
    for other in [
        r#"{"p\u0061th":"a"}"#,
        r#"{"path":"\u0061"}"#,
        "[]",
        r#"{"path":"a"} x"#,
    ] {
        assert_eq!(members(other, &names), None, "{other}");
    }
}

#[test]
fn splits_the_arguments_in_the_same_pass() {
    // The arguments' text, and the members split from it, or `None` where
    // the tool reads the text again.
    type Split = Option<&'static [(&'static str, &'static str)]>;
    let cases: &[(&str, Split)] = &[
        ("{}", Some(&[])),
        (
            r#"{ "action" : "read", "path":"/etc/x" }"#,
            Some(&[("action", r#""read""#), ("path", r#""/etc/x""#)]),
        ),
        (
            r#"{"n":-1.5e3,"list":[1,{"a":null}],"b":true,"o":{"x":"\n"}}"#,
            Some(&[
                ("n", "-1.5e3"),
                ("list", r#"[1,{"a":null}]"#),
                ("b", "true"),
                ("o", r#"{"x":"\n"}"#),
            ]),
        ),
        // Repeated names are split as written: the tool's reader refuses them.
        (r#"{"a":1,"a":2}"#, Some(&[("a", "1"), ("a", "2")])),
        (
            r#"{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8}"#,
            Some(&[
                ("1", "1"),
                ("2", "2"),
                ("3", "3"),
                ("4", "4"),
                ("5", "5"),
                ("6", "6"),
                ("7", "7"),
                ("8", "8"),
            ]),
        ),
        // One member too many, an escaped name, not an object.
        (
            r#"{"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9}"#,
            None,
        ),
        (r#"{"a\"b":1}"#, None),
        (r#"{"\u0061":1}"#, None),
        ("[1,2]", None),
        ("\"text\"", None),
        ("null", None),
    ];
    for (arguments, expected) in cases {
        let text =
            format!(r#"{{"id":1,"method":"m","params":{{"name":"t","arguments":{arguments}}}}}"#);
        let text: &'static str = Box::leak(text.into_boxed_str());
        let Some(Envelope {
            params: ParamsSlot::Object(fields),
            ..
        }) = read(text)
        else {
            // Read by serde_json instead: never split.
            assert_eq!(*expected, None, "{arguments}");
            assert!(arguments.contains("\\u"), "{arguments}");
            continue;
        };
        assert_eq!(fields.arguments.unwrap().get(), *arguments);
        let split = fields.split_arguments.map(|split| {
            split
                .members()
                .iter()
                .map(|(name, value)| (core::str::from_utf8(name).unwrap(), *value))
                .collect::<Vec<_>>()
        });
        assert_eq!(split.as_deref(), *expected, "{arguments}");
    }
    // A repeated `arguments` member is left to serde_json.
    assert!(read(r#"{"id":1,"params":{"arguments":{},"arguments":{}}}"#).is_none());
}

#[test]
fn ids_are_read_as_json_numbers() {
    for id in [
        "0",
        "7",
        "-1",
        "12.5",
        "1e3",
        "-0.5E-2",
        "123456789012345678901234",
    ] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let envelope = read(&text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(envelope.id.unwrap().get(), id);
    }
    // Not JSON numbers: refused here, as serde_json refuses them.
    for id in [
        "01", "-", "1.", ".5", "1e", "+1", "1e+", "--1", "0x10", "1_000",
    ] {
        let text = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        assert!(read(&text).is_none(), "{text}");
        assert!(
            serde_json::from_str::<serde_json::Value>(&text).is_err(),
            "{text}"
        );
    }
}

/// The params' `_meta` of an envelope read with `memo`.
fn meta_read_with<'a>(text: &'a str, memo: &mut MetaMemo) -> Meta<'a> {
    let mut read = Envelope::default();
    envelope(text, &mut read, Some(memo)).expect("the common shape");
    let ParamsSlot::Object(Fields {
        meta: Some(MetaSlot::Object(meta)),
        ..
    }) = read.params
    else {
        panic!("{read:?}")
    };
    meta
}

#[test]
fn a_repeated_meta_is_compared_and_read_from_its_own_text() {
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tool-resolution":{}}},"dev.annot/resolution":{"explain":true}}"#;
    let first = format!(r#"{{"id":1,"method":"m","params":{{"_meta":{meta}}}}}"#);
    let mut memo = MetaMemo::default();
    let read = meta_read_with(&first, &mut memo);
    let recalled = memo.recall(meta).expect("remembered");
    assert_eq!(recalled, (meta.len(), read));
    // Later in another message, the same text is recalled, borrowed from it.
    let second = format!(r#"{{"params":{{"name":"t","_meta":{meta}  }},"id":2,"method":"m"}}"#);
    let again = meta_read_with(&second, &mut memo);
    assert_eq!(again, read);
    let version = again.protocol_version.unwrap().get();
    let at = version.as_ptr() as usize - second.as_ptr() as usize;
    assert_eq!(&second[at..at + version.len()], r#""2026-07-28""#);
    assert_eq!(again.preread.unwrap().tool_resolution.unwrap().get(), "{}");
    assert_eq!(again.annot.unwrap().get(), r#"{"explain":true}"#);
    // Not recalled: a text that differs anywhere, or stops short.
    assert!(memo.recall(&meta.replace("07-28", "07-29")).is_none());
    assert!(memo.recall(&meta.replace("{}", "[]")).is_none());
    assert!(memo.recall(&meta[..meta.len() - 1]).is_none());
    assert!(MetaMemo::default().recall(meta).is_none());
}

#[test]
fn a_new_meta_replaces_the_remembered_one_unless_it_is_long() {
    let mut memo = MetaMemo::default();
    let short = r#"{"id":1,"method":"m","params":{"_meta":{"a":1}}}"#;
    meta_read_with(short, &mut memo);
    assert!(memo.recall(r#"{"a":1}"#).is_some());
    let other = r#"{"id":1,"method":"m","params":{"_meta":{"b":[]}}}"#;
    meta_read_with(other, &mut memo);
    assert!(memo.recall(r#"{"a":1}"#).is_none());
    assert!(memo.recall(r#"{"b":[]}"#).is_some());
    // Up to 1 KiB is remembered.
    let longest = format!(r#"{{"trace":"{}"}}"#, "x".repeat(1024 - 12));
    assert_eq!(longest.len(), 1024);
    let message = format!(r#"{{"id":1,"method":"m","params":{{"_meta":{longest}}}}}"#);
    meta_read_with(&message, &mut memo);
    assert!(memo.recall(&longest).is_some());
    meta_read_with(other, &mut memo);
    // A longer one is read each time, and leaves the memory as it was.
    let long = format!(r#"{{"trace":"{}"}}"#, "x".repeat(1024 - 11));
    let message = format!(r#"{{"id":1,"method":"m","params":{{"_meta":{long}}}}}"#);
    assert_eq!(meta_read_with(&message, &mut memo), Meta::default());
    assert!(memo.recall(&long).is_none());
    assert!(memo.recall(r#"{"b":[]}"#).is_some());
}
