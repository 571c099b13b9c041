//! The trust-annotations extension held to the interest group's worked cases
//! (`tests/fixtures/trust-annotations/examples.json`, see `SOURCE.md` there):
//! every `evidenceRef` digest re-derived byte for byte under its declared
//! canonicalization, the per-resource classification, union semantics over
//! content blocks, and the client session consuming the claims.

use annot::client::{ProposedCall, Session, SessionConfig, Trust};
use annot::trust::{Canonicalization, EvidenceError, EvidenceRef, TrustClaims};
use annot::{Annotations, protocol::TRUST_ANNOTATIONS_EXTENSION};
use serde_json::{Map, Value, json};

fn worked_cases() -> Value {
    let text = include_str!("../fixtures/trust-annotations/examples.json");
    serde_json::from_str(text).expect("the worked cases are JSON")
}

fn cases() -> Vec<Value> {
    worked_cases()["cases"].as_array().expect("cases").clone()
}

/// Every `(evidenceRef, record)` pair of the file, wherever the case puts it.
fn evidence_refs() -> Vec<(String, EvidenceRef, Value)> {
    let mut found = Vec::new();
    for case in cases() {
        let id = case["id"].as_str().expect("id").to_owned();
        for wire in ["wire", "wire_cbor", "wire_jcs"] {
            for holder in ["_meta", "result_meta", "content_block_meta"] {
                let evidence = &case[wire][holder][TRUST_ANNOTATIONS_EXTENSION]["evidenceRef"];
                if evidence.is_null() {
                    continue;
                }
                let evidence = serde_json::from_value(evidence.clone()).expect("an evidenceRef");
                found.push((
                    format!("{id} {wire}.{holder}"),
                    evidence,
                    case["record"].clone(),
                ));
            }
        }
    }
    found
}

#[test]
fn every_evidence_digest_of_the_worked_cases_is_rederived_byte_for_byte() {
    let found = evidence_refs();
    // A1-A5 one each, B1 and B2 one each, B3 two: nine references in all.
    assert_eq!(found.len(), 9, "the file's references were all read");
    let mut schemes_seen = Vec::new();
    for (place, evidence, record) in &found {
        assert_eq!(evidence.verify(record), Ok(()), "{place}");
        let scheme = Canonicalization::named(&evidence.canonicalization).expect("a known scheme");
        let derived = EvidenceRef::derive(evidence.kind.clone(), record, scheme).expect(place);
        assert_eq!(derived.digest, evidence.digest, "{place}");
        schemes_seen.push(scheme);
    }
    for scheme in Canonicalization::ALL {
        assert!(
            schemes_seen.contains(&scheme),
            "{} is exercised",
            scheme.name()
        );
    }
}

#[test]
fn a_changed_record_no_longer_matches_its_digest() {
    for (place, evidence, record) in evidence_refs() {
        let mut changed = record.clone();
        changed["class"] = json!("public-after-all");
        let refused = evidence.verify(&changed);
        assert!(
            matches!(refused, Err(EvidenceError::Mismatch { .. })),
            "{place}: {refused:?}"
        );
    }
}

#[test]
fn the_same_record_under_two_envelopes_has_two_digests() {
    let case = cases()
        .into_iter()
        .find(|case| case["id"] == "B3_same_record_two_envelopes")
        .expect("case B3");
    let digest = |wire: &str| {
        case[wire]["_meta"][TRUST_ANNOTATIONS_EXTENSION]["evidenceRef"]["digest"]
            .as_str()
            .expect("a digest")
            .to_owned()
    };
    let record = &case["record"];
    assert_eq!(
        Canonicalization::Cbor.digest(record).unwrap(),
        digest("wire_cbor")
    );
    assert_eq!(
        Canonicalization::Jcs.digest(record).unwrap(),
        digest("wire_jcs")
    );
    assert_ne!(digest("wire_cbor"), digest("wire_jcs"));
}

/// RFC 8949 Appendix A's examples within the evidence profile, and RFC 8785's
/// key order, written out by hand from the RFCs.
#[test]
fn the_encoders_meet_the_rfcs_published_vectors() {
    let cbor = |value: Value| hex(&Canonicalization::Cbor.bytes(&value).unwrap());
    let vectors = [
        (json!(0), "00"),
        (json!(23), "17"),
        (json!(24), "1818"),
        (json!(100), "1864"),
        (json!(1000), "1903e8"),
        (json!(1000000), "1a000f4240"),
        (json!(-1), "20"),
        (json!(-1000), "3903e7"),
        (json!(false), "f4"),
        (json!(true), "f5"),
        (json!(null), "f6"),
        (json!(""), "60"),
        (json!("IETF"), "6449455446"),
        (json!("\u{00fc}"), "62c3bc"),
        (json!([1, [2, 3], [4, 5]]), "8301820203820405"),
        (json!({"a": 1, "b": [2, 3]}), "a26161016162820203"),
        (json!({"b": 1, "a": 2, "aa": 3}), "a361610261620162616103"),
    ];
    for (value, expected) in vectors {
        assert_eq!(cbor(value.clone()), expected, "{value}");
    }
    // RFC 8785 section 3.2.2's number serialisation, from its JSON text.
    let record: Value = serde_json::from_str(
        r#"{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3], "\u20ac": "c", "\r": 1}"#,
    )
    .unwrap();
    let jcs = Canonicalization::Jcs.bytes(&record).unwrap();
    assert_eq!(
        String::from_utf8(jcs).unwrap(),
        "{\"\\r\":1,\"numbers\":[333333333.3333333,1e+30,4.5,0.002],\"\u{20ac}\":\"c\"}"
    );
    assert_eq!(
        Canonicalization::Cbor.bytes(&json!({"ratio": 0.5})),
        Err(EvidenceError::NotAnInteger("0.5".to_owned()))
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[test]
fn a_private_or_unknown_resource_is_claimed_sensitive_and_a_public_one_claims_nothing() {
    let classified: Vec<_> = cases()
        .into_iter()
        .filter(|case| {
            case["family"] == "emitter_classification" && case["wire"]["_meta"].is_object()
        })
        .collect();
    assert_eq!(classified.len(), 4, "A1 to A4");
    for case in classified {
        let meta = case["wire"]["_meta"].as_object().unwrap();
        let claims = TrustClaims::from_meta(meta).expect("the extension's key is present");
        let raw = &meta[TRUST_ANNOTATIONS_EXTENSION];
        match case["resource_visibility"].as_str().unwrap() {
            "private" | "unknown" => assert!(claims.sensitive, "{}", case["id"]),
            "public" => {
                assert!(!claims.sensitive, "{}", case["id"]);
                // Absence is "no claim", never an asserted false.
                assert!(raw.get("sensitive").is_none(), "{}", case["id"]);
            }
            other => panic!("unexpected visibility {other}"),
        }
    }
}

#[test]
fn a_content_block_raises_its_results_claim_and_never_lowers_it() {
    let case = cases()
        .into_iter()
        .find(|case| case["id"] == "A5_content_block_union_no_weaken")
        .expect("case A5");
    let result = json!({
        "content": [
            {"type": "text", "text": "an ordinary search hit"},
            {"type": "text", "text": "the draft advisory", "_meta": case["wire"]["content_block_meta"]},
        ],
        "_meta": case["wire"]["result_meta"],
    });
    let effective = TrustClaims::of_result(&result);
    assert_eq!(
        effective.sensitive,
        case["effective_sensitive"].as_bool().unwrap()
    );
    assert!(!effective.untrusted);

    // The other way round: a block asserting `false` cannot weaken the result.
    let result = json!({
        "content": [{"type": "text", "text": "x",
            "_meta": {TRUST_ANNOTATIONS_EXTENSION: {"sensitive": false, "untrusted": false}}}],
        "_meta": {TRUST_ANNOTATIONS_EXTENSION: {"sensitive": true, "untrusted": true}},
    });
    let effective = TrustClaims::of_result(&result);
    assert!(effective.sensitive && effective.untrusted);
}

#[test]
fn malformed_claims_are_no_claims_and_writing_never_weakens() {
    let mut meta = Map::new();
    meta.insert(
        TRUST_ANNOTATIONS_EXTENSION.to_owned(),
        json!({"sensitive": "true", "untrusted": 1}),
    );
    assert_eq!(TrustClaims::from_meta(&meta), Some(TrustClaims::NONE));

    let mut meta = Map::new();
    TrustClaims::NONE.sensitive().write_meta(&mut meta);
    TrustClaims::NONE.untrusted().write_meta(&mut meta);
    TrustClaims::NONE.write_meta(&mut meta);
    assert_eq!(
        Value::Object(meta),
        json!({TRUST_ANNOTATIONS_EXTENSION: {"sensitive": true, "untrusted": true}})
    );
    let mut empty = Map::new();
    TrustClaims::NONE.write_meta(&mut empty);
    assert!(empty.is_empty(), "no claim writes no key");
}

#[test]
fn the_server_floor_follows_the_resolved_hints() {
    // (sensitiveDataHint, openWorldHint) -> (sensitive, untrusted), by hand.
    let table = [
        (None, None, false, true),
        (Some(true), Some(false), true, false),
        (Some(false), Some(true), false, true),
        (None, Some(false), false, false),
    ];
    for (sensitive_data, open_world, sensitive, untrusted) in table {
        let mut resolved = Annotations::new().read_only(true);
        resolved.sensitive_data = sensitive_data;
        resolved.open_world = open_world;
        let claims = TrustClaims::derived(&resolved);
        assert_eq!(
            (claims.sensitive, claims.untrusted),
            (sensitive, untrusted),
            "{resolved:?}"
        );
    }
}

#[test]
fn claims_on_results_complete_the_trifecta_that_annotations_alone_would_not() {
    let arguments = Map::new();
    let closed_read = Annotations::new().read_only(true).open_world(false);
    let read_ticket = ProposedCall::new("read_ticket", &arguments, closed_read, Trust::Trusted);
    let read_mail = ProposedCall::new("read_mail", &arguments, closed_read, Trust::Trusted);
    let send = Annotations::new()
        .read_only(false)
        .destructive(false)
        .open_world(true);
    let post = ProposedCall::new("post", &arguments, send, Trust::Trusted);

    // By annotations alone the two closed-world reads bring in nothing risky.
    let mut by_annotations = Session::new(SessionConfig::default());
    by_annotations.record(&read_ticket);
    by_annotations.record(&read_mail);
    assert_eq!(by_annotations.trifecta(&post), None);

    // Their results say otherwise: a ticket an outsider wrote, and private mail.
    let mut by_claims = Session::new(SessionConfig::default());
    by_claims.record(&read_ticket);
    by_claims.record_result(&read_ticket, &TrustClaims::NONE.untrusted());
    by_claims.record(&read_mail);
    by_claims.record_result(&read_mail, &TrustClaims::NONE.sensitive());
    let trifecta = by_claims.trifecta(&post).expect("the claims complete it");
    assert_eq!(trifecta.untrusted_content_from, "read_ticket");
    assert_eq!(trifecta.private_data_from, "read_mail");

    // A result that claims nothing leaves what the annotations recorded.
    let mut silent = Session::new(SessionConfig::default());
    let open_read = Annotations::new().read_only(true).open_world(true);
    let fetch = ProposedCall::new("fetch", &arguments, open_read, Trust::Trusted);
    silent.record(&fetch);
    silent.record_result(&fetch, &TrustClaims::NONE);
    assert_eq!(silent.untrusted_content_from(), Some("fetch"));
}
