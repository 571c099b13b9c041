//! The text front-end on its own: what it lowers, and where it places errors.

use super::*;
use crate::kind::Kind;

fn kind(base: Base, optional: bool) -> (Kind, bool) {
    let text = format!("{base:?}");
    (
        Kind {
            optional,
            base,
            text,
        },
        false,
    )
}

fn fields() -> FieldKinds {
    [
        ("op".to_owned(), kind(Base::Action, false)),
        ("path".to_owned(), kind(Base::Str, false)),
        (
            "count".to_owned(),
            kind(Base::Int { min: 0, max: 255 }, true),
        ),
    ]
    .into_iter()
    .collect()
}

fn actions() -> Vec<ActionBase> {
    ["get", "put"]
        .into_iter()
        .map(|name| ActionBase {
            name: name.to_owned(),
            described: format!("action `{name}`"),
            base: Annotations::new().read_only(name == "get"),
        })
        .collect()
}

fn compile_tool(text: &str) -> Result<Program, RuleErrors> {
    let fields = fields();
    let actions = actions();
    let tool = ToolFields {
        fields: &fields,
        discriminator: Some("op"),
        actions: &actions,
        sql: false,
    };
    let source = RuleSource {
        owner: Owner::Tool,
        origin: "tool".to_owned(),
        text,
    };
    compile(&tool, &[source])
}

#[test]
fn the_discriminator_decides_where_a_rule_fires() {
    let program = compile_tool(
        r#"when(op == "put") => (read_only = false, destructive),
           when(all(op != "put", count > 3)) => (slow_execution),
           when(any(op in ["get"], path matches "x")) => (sensitive_data)"#,
    )
    .unwrap();
    let fires: Vec<&[Option<bool>]> = program.rules.iter().map(|r| r.fires.as_slice()).collect();
    assert_eq!(
        fires,
        [
            &[Some(false), Some(true)][..],
            &[None, Some(false)][..],
            &[Some(true), None][..],
        ]
    );
    assert_eq!(program.patterns.len(), 1);
    assert_eq!(
        program.rules[1].condition,
        Condition::All(vec![
            Condition::Equals {
                field: "op".to_owned(),
                values: vec![Operand::Str("put".to_owned())],
                negated: true,
            },
            Condition::Compare {
                field: "count".to_owned(),
                comparison: crate::Comparison::Greater,
                value: Operand::Int(3),
            },
        ])
    );
    assert_eq!(
        program.rules[0].source,
        r#"when(op == "put") => (read_only = false, destructive)"#
    );
}

#[test]
fn errors_carry_their_origin_line_and_snippet() {
    let errors = compile_tool("when(count > 300) => (slow_execution)\n\nwhen(is_sql(path)) => (x)")
        .unwrap_err();
    let placed: Vec<(usize, usize, &str)> = errors
        .errors()
        .iter()
        .map(|error| {
            let at = error.location.as_ref().expect("placed");
            (at.line, at.column, at.snippet.as_str())
        })
        .collect();
    assert_eq!(placed, [(1, 14, "300"), (3, 12, "("), (3, 24, "x")]);
    assert!(
        errors.errors()[0]
            .message
            .starts_with("`300` does not fit `count`")
    );
    assert!(errors.errors().iter().all(|error| error.origin == "tool"));
}

#[test]
fn sql_without_its_feature_is_refused_on_sql() {
    let errors = compile_tool("when(path is sql(postgres, read)) => (sensitive_data)").unwrap_err();
    let error = &errors.errors()[0];
    assert!(error.message.contains("needs annot's `sql` feature"));
    assert_eq!(error.location.as_ref().unwrap().snippet, "sql");
}
