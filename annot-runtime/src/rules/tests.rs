use super::explain::{Evaluated, explain};
use super::*;

const TABLE: &[&str] = &["repo", "delete_repo"];
const REPO: Authorization = Authorization::OAuth2(Scopes::new(TABLE, 0b01));
const DELETE_REPO: Authorization = Authorization::OAuth2(Scopes::new(TABLE, 0b10));

const RULES: &[Rule] = &[
    Rule {
        index: 0,
        source: "when(path matches \"^/etc\") => (privileged_access, sensitive_data)",
        hints: Annotations::new()
            .privileged_access(true)
            .sensitive_data(true),
        authorization: None,
    },
    Rule {
        index: 1,
        source: "when(path matches \"^/tmp\") => (destructive = false)",
        hints: Annotations::new().destructive(false),
        authorization: Some(Authorization::NoAuth),
    },
    Rule {
        index: 2,
        source: "when(path matches \"^/var\") => (destructive)",
        hints: Annotations::new().destructive(true),
        authorization: Some(DELETE_REPO),
    },
];

const DELETE: Annotations = Annotations::new().destructive(true).idempotent(true);

#[test]
fn firing_rules_join_and_order_does_not_matter() {
    let mut forward = Resolver::new(DELETE, Some(REPO));
    forward.fire(&RULES[1]);
    forward.fire(&RULES[2]);
    let mut backward = Resolver::new(DELETE, Some(REPO));
    backward.fire(&RULES[2]);
    backward.fire(&RULES[1]);
    assert_eq!(forward.annotations(), backward.annotations());
    assert_eq!(forward.annotations().destructive, Some(true));
    assert_eq!(forward.authorization(), Some(DELETE_REPO));
    assert_eq!(forward.authorization(), backward.authorization());
}

#[test]
fn a_firing_rule_replaces_the_actions_value() {
    let mut resolver = Resolver::new(DELETE, Some(REPO));
    assert_eq!(resolver.annotations(), DELETE.effective());
    assert_eq!(resolver.authorization(), Some(REPO));
    resolver.fire(&RULES[1]);
    assert_eq!(resolver.annotations().destructive, Some(false));
    assert_eq!(resolver.annotations().idempotent, Some(true));
    assert_eq!(resolver.authorization(), Some(Authorization::NoAuth));
}

#[test]
fn bound_joins_every_rule_that_may_fire() {
    let maybe = [Tri::Maybe; 3];
    let bound = bound_annotations(DELETE, RULES, &maybe);
    assert_eq!(bound.destructive, Some(true));
    assert_eq!(bound.privileged_access, Some(true));
    assert_eq!(
        bound_authorization(Some(REPO), RULES, &maybe),
        Some(Authorization::OAuth2(Scopes::new(TABLE, 0b11)))
    );
    let never = [Tri::Never; 3];
    assert_eq!(bound_annotations(DELETE, RULES, &never), DELETE.effective());
    assert_eq!(bound_authorization(Some(REPO), RULES, &never), Some(REPO));
}

#[test]
fn a_rule_that_always_fires_replaces_the_base_in_the_bound() {
    let fires = [Tri::Never, Tri::Always, Tri::Never];
    let bound = bound_annotations(DELETE, RULES, &fires);
    assert_eq!(bound.destructive, Some(false));
    assert_eq!(
        bound_authorization(Some(REPO), RULES, &fires),
        Some(Authorization::NoAuth)
    );
}

/// Every subset of firing rules resolves within the bound, for every
/// combination of what the discriminator says.
#[test]
fn every_resolution_is_within_its_bound() {
    let tris = [Tri::Never, Tri::Maybe, Tri::Always];
    let bases = [
        DELETE,
        Annotations::new().read_only(true),
        Annotations::new(),
        Annotations::new().destructive(false).reversible(true),
    ];
    for base in bases {
        for a in tris {
            for b in tris {
                for c in tris {
                    let fires = [a, b, c];
                    let bound = bound_annotations(base, RULES, &fires);
                    let bound_auth = bound_authorization(Some(REPO), RULES, &fires).unwrap();
                    for subset in 0..8u8 {
                        let fired = |k: usize| subset & (1 << k) != 0;
                        let possible = (0..3).all(|k| match fires[k] {
                            Tri::Never => !fired(k),
                            Tri::Always => fired(k),
                            Tri::Maybe => true,
                        });
                        if !possible {
                            continue;
                        }
                        let mut resolver = Resolver::new(base, Some(REPO));
                        for (k, rule) in RULES.iter().enumerate() {
                            if fired(k) {
                                resolver.fire(rule);
                            }
                        }
                        let resolved = resolver.annotations();
                        assert!(resolved.is_within(&bound), "{resolved} outside {bound}");
                        assert!(resolver.authorization().unwrap().is_within(&bound_auth));
                    }
                }
            }
        }
    }
}

#[test]
fn three_valued_logic() {
    use Tri::*;
    assert_eq!(Tri::all(&[Always, Maybe]), Maybe);
    assert_eq!(Tri::all(&[Always, Never, Maybe]), Never);
    assert_eq!(Tri::all(&[]), Always);
    assert_eq!(Tri::any(&[Never, Maybe]), Maybe);
    assert_eq!(Tri::any(&[Never, Always]), Always);
    assert_eq!(Tri::any(&[]), Never);
    assert_eq!(Maybe.not(), Maybe);
    assert_eq!(Tri::action_in("DELETE", &["GET", "DELETE"]), Always);
    assert_eq!(Tri::action_in("DELET", &["GET", "DELETE"]), Never);
}

#[test]
fn explanations_name_what_decided_each_hint() {
    let declared = Annotations::new().destructive(true).idempotent(true);
    let defaults = Annotations::new().open_world(false).destructive(false);
    let mut resolver = Resolver::new(fill_defaults(declared, defaults), Some(REPO));
    resolver.fire(&RULES[0]);
    resolver.fire(&RULES[2]);
    let evaluated = Evaluated {
        action: "delete",
        declared,
        defaults,
        declared_authorization: None,
        default_authorization: Some(REPO),
        resolver,
    };
    let explanation = explain(evaluated, vec![&RULES[0], &RULES[2]]);
    assert_eq!(explanation.annotations, resolver.annotations());
    assert_eq!(explanation.source(Hint::Idempotent), &Source::Action);
    assert_eq!(explanation.source(Hint::OpenWorld), &Source::ToolDefault);
    assert_eq!(
        explanation.source(Hint::ReadOnly),
        &Source::SpecificationDefault
    );
    assert_eq!(
        explanation.source(Hint::Destructive),
        &Source::Rules(vec![&RULES[2]])
    );
    assert_eq!(
        explanation.source(Hint::SensitiveData),
        &Source::Rules(vec![&RULES[0]])
    );
    assert_eq!(
        explanation.authorization,
        Some((DELETE_REPO, Source::Rules(vec![&RULES[2]])))
    );
    let json = serde_json::to_value(&explanation).unwrap();
    assert_eq!(json["action"], "delete");
    assert_eq!(
        json["hints"]["destructiveHint"],
        serde_json::json!({"value": true, "source": "rules", "rules": [2]})
    );
    assert_eq!(
        json["hints"]["aiProcessingHint"],
        serde_json::json!({"value": null, "source": "specificationDefault"})
    );
    assert_eq!(
        json["authorization"]["securitySchemes"],
        serde_json::json!([{"type": "oauth2", "scopes": ["delete_repo"]}])
    );
    assert_eq!(json["rules"][1]["index"], 2);
    assert_eq!(json["rules"][1]["rule"], RULES[2].source);
}

#[test]
fn read_only_implies_the_write_hints() {
    let declared = Annotations::new().read_only(true);
    let resolver = Resolver::new(declared, None);
    let evaluated = Evaluated {
        action: "read",
        declared,
        defaults: Annotations::new(),
        declared_authorization: None,
        default_authorization: None,
        resolver,
    };
    let explanation = explain(evaluated, Vec::new());
    assert_eq!(explanation.source(Hint::Destructive), &Source::ReadOnly);
    assert_eq!(explanation.hint(Hint::Idempotent).value, Some(true));
    assert_eq!(explanation.authorization, None);
    let opaque = Explanation::opaque(declared, None);
    assert_eq!(opaque.source(Hint::ReadOnly), &Source::Resolver);
    assert_eq!(opaque.annotations, declared.effective());
}
