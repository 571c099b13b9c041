//! The request reader against literal expectations.

use super::*;

fn read(text: &str) -> Option<Envelope<'_>> {
    let mut read = Envelope::default();
    envelope(text, &mut read).map(|()| read)
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
    for length in 0..56 {
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
                    assert_eq!(wide_plain_end(&text, start), place, "{text:?} from {start}");
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
