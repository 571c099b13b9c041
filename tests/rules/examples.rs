//! The example tools with rules, resolved value by value: `github_api`
//! (methods, path templates, public and private repositories, scopes) and
//! `sql` (statements classified by regex).

#[path = "../../examples/tools/github_api.rs"]
mod github_api;
use crate::macro_support;
use crate::sql_support;
use annot::rules::Source;
use annot::{AnnotatedTool, Annotations, Authorization, Hint};
use github_api::GithubApi;
use macro_support::{assert_schema_and_parser_agree, assert_within_static_bound};
use serde_json::{Value, json};
use sql_support::sql::Sql;
use sql_support::{check_rows, resolve};

/// `(readOnly, destructive, idempotent)` after defaults.
fn core(annotations: Annotations) -> (bool, bool, bool) {
    let a = annotations.effective();
    (
        a.read_only == Some(true),
        a.destructive == Some(true),
        a.idempotent == Some(true),
    )
}

fn github(method: &str, path: &str, public: bool) -> GithubApi {
    GithubApi::from_arguments(&json!({"method": method, "path": path, "public": public}))
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

fn scopes(authorization: Option<Authorization>) -> Vec<&'static str> {
    match authorization.expect("github_api declares authorization") {
        Authorization::NoAuth => vec!["<noauth>"],
        Authorization::OAuth2(scopes) => scopes.iter().collect(),
    }
}

#[test]
fn github_methods_follow_seed_002() {
    let table = [
        ("GET", (true, false, true)),
        ("HEAD", (true, false, true)),
        ("OPTIONS", (true, false, true)),
        ("POST", (false, false, false)),
        ("PUT", (false, false, true)),
        ("PATCH", (false, false, false)),
        ("DELETE", (false, true, true)),
    ];
    // A path no template names: the method alone decides.
    for (method, expected) in table {
        let call = github(method, "/repos/octo/hello/pulls", false);
        assert_eq!(core(call.resolve()), expected, "{method}");
        assert_eq!(call.resolve().open_world, Some(true), "{method}");
    }
}

#[test]
fn github_public_and_private_repositories() {
    let public = github("GET", "/repos/octo/hello", true);
    assert_eq!(public.resolve().sensitive_data, Some(false));
    assert_eq!(scopes(public.resolve_authorization()), ["<noauth>"]);
    assert_eq!(
        public.resolve_authorization().unwrap().security_schemes(),
        json!([{"type": "noauth"}])
    );

    let private = github("GET", "/repos/octo/secret", false);
    assert_eq!(private.resolve().sensitive_data, Some(true));
    assert_eq!(scopes(private.resolve_authorization()), ["repo"]);
    assert_eq!(
        private.resolve_authorization().unwrap().security_schemes(),
        json!([{"type": "oauth2", "scopes": ["repo"]}])
    );

    let write_public = github("POST", "/repos/octo/hello/issues", true);
    assert_eq!(core(write_public.resolve()), (false, false, false));
    assert_eq!(write_public.resolve().sensitive_data, Some(false));
    assert_eq!(
        scopes(write_public.resolve_authorization()),
        ["public_repo"]
    );
}

#[test]
fn github_paths_refine_the_method() {
    let delete_repo = github("DELETE", "/repos/octo/hello", false);
    assert_eq!(core(delete_repo.resolve()), (false, true, true));
    assert_eq!(delete_repo.resolve().reversible, Some(false));
    assert_eq!(scopes(delete_repo.resolve_authorization()), ["delete_repo"]);
    // A public repository: both rules fire and their scopes join.
    let delete_public = github("DELETE", "/repos/octo/hello/", true);
    assert_eq!(
        scopes(delete_public.resolve_authorization()),
        ["public_repo", "delete_repo"]
    );

    let unlabel = github("DELETE", "/repos/octo/hello/issues/7/labels/bug", false);
    assert_eq!(core(unlabel.resolve()), (false, false, true));
    assert_eq!(unlabel.resolve().reversible, Some(true));
    assert_eq!(scopes(unlabel.resolve_authorization()), ["repo"]);

    let edit = github("PATCH", "/repos/octo/hello/issues/7?notify=false", false);
    assert_eq!(core(edit.resolve()), (false, true, false));
    assert_eq!(edit.resolve().reversible, Some(true));
    // PATCH of something else is the table's: not destructive.
    let other = github("PATCH", "/repos/octo/hello/milestones/1", false);
    assert_eq!(core(other.resolve()), (false, false, false));

    let org = github("GET", "/orgs/octo/members", false);
    assert!(org.resolve().is_read_only());
    assert_eq!(org.resolve().privileged_access, Some(true));
    assert_eq!(scopes(org.resolve_authorization()), ["admin:org"]);
    let org_public = github("GET", "/orgs/octo/members", true);
    assert_eq!(
        scopes(org_public.resolve_authorization()),
        ["admin:org"],
        "no_auth joined with admin:org needs admin:org"
    );
}

#[test]
fn github_static_declaration_is_the_worst_case() {
    let declared = GithubApi::STATIC_ANNOTATIONS;
    assert_eq!(core(declared), (false, true, false));
    assert_eq!(declared.open_world, Some(true));
    assert_eq!(declared.sensitive_data, Some(true));
    assert_eq!(declared.privileged_access, Some(true));
    assert_eq!(declared.reversible, Some(false));
    assert_eq!(
        scopes(GithubApi::STATIC_AUTHORIZATION),
        ["repo", "public_repo", "delete_repo", "admin:org"]
    );
    let get = GithubApi::ACTIONS.iter().find(|a| a.name == "GET").unwrap();
    assert!(get.annotations.is_read_only(), "no rule makes a GET write");
    let delete = GithubApi::ACTIONS
        .iter()
        .find(|a| a.name == "DELETE")
        .unwrap();
    assert_eq!(delete.annotations.reversible, Some(false));

    let mut cases = Vec::new();
    for method in ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] {
        for path in [
            "/repos/a/b",
            "/repos/a/b/issues/1",
            "/repos/a/b/issues/1/labels/x",
            "/orgs/a/hooks",
            "/user",
        ] {
            for public in [false, true] {
                cases.push(json!({"method": method, "path": path, "public": public}));
                let call = github(method, path, public);
                let needed = call.resolve_authorization().unwrap();
                assert!(needed.is_within(&GithubApi::STATIC_AUTHORIZATION.unwrap()));
            }
        }
    }
    assert_within_static_bound::<GithubApi>(&cases);
}

#[test]
fn github_explains_its_scopes() {
    let explanation = github("DELETE", "/repos/octo/hello", false).explain();
    let (authorization, source) = explanation.authorization.clone().unwrap();
    assert_eq!(scopes(Some(authorization)), ["delete_repo"]);
    let Source::Rules(rules) = source else {
        panic!("the delete rule decided the scopes")
    };
    assert_eq!(rules.len(), 1);
    assert!(
        rules[0]
            .source
            .contains("matches_template \"/repos/:owner/:repo\"")
    );
    assert_eq!(explanation.source(Hint::Destructive), &Source::Action);
    assert_eq!(explanation.source(Hint::OpenWorld), &Source::ToolDefault);

    let private = github("GET", "/repos/octo/secret", false).explain();
    assert_eq!(private.authorization.unwrap().1, Source::ToolDefault);
}

#[test]
fn github_schema_and_parser_agree() {
    assert_schema_and_parser_agree::<GithubApi>(
        &[
            json!({"method": "GET", "path": "/repos/a/b"}),
            json!({"method": "POST", "path": "/repos/a/b/issues", "public": true, "body": {"title": "x"}}),
        ],
        &[
            json!({"method": "get", "path": "/"}),
            json!({"method": "GET"}),
            json!({"method": "GET", "path": "/", "public": "yes"}),
        ],
    );
}

/// `(readOnlyHint, destructiveHint, idempotentHint)` of one statement.
type CoreHints = (bool, bool, bool);

/// The class of each statement is the parser's (see tests/rules/sql_redteam.rs
/// for the classifier itself); here, the hints each class resolves to.
#[test]
fn sql_statements_value_by_value() {
    let read = (true, false, true);
    let additive = (false, false, false);
    let destructive = (false, true, false);
    // (statement, core hints, reversibleHint, privilegedAccessHint)
    let table: &[(&str, CoreHints, Option<bool>, bool)] = &[
        ("SELECT * FROM users", read, None, false),
        ("select 1", read, None, false),
        ("  \n\tSeLeCt name FROM t", read, None, false),
        ("-- who is there?\nSELECT * FROM users", read, None, false),
        (
            "/* report\n for today */ SELECT count(*) FROM orders",
            read,
            None,
            false,
        ),
        ("/* DROP */ SELECT 1", read, None, false),
        ("SELECT 'x' -- DROP TABLE users", read, None, false),
        ("SELECT dropped FROM t", read, None, false),
        ("SELECT upper(name) FROM t; SELECT 2", read, None, false),
        (
            "INSERT INTO users (name) VALUES ('ann')",
            additive,
            Some(false),
            false,
        ),
        (
            "insert into t select * from u",
            additive,
            Some(false),
            false,
        ),
        (
            "UPDATE users SET name = 'bob'",
            destructive,
            Some(false),
            false,
        ),
        (
            "DELETE FROM users WHERE id = 1",
            destructive,
            Some(false),
            false,
        ),
        (
            "INSERT OR REPLACE INTO t VALUES (1)",
            destructive,
            Some(false),
            false,
        ),
        (
            "INSERT INTO log VALUES (1);\n -- then\n DELETE FROM log",
            destructive,
            Some(false),
            false,
        ),
        // The riskiest class: the action's own hints.
        (
            "SELECT * INTO archive FROM orders",
            destructive,
            Some(false),
            true,
        ),
        (
            "ALTER TABLE users ADD COLUMN age int",
            destructive,
            Some(false),
            true,
        ),
        ("DROP TABLE users", destructive, Some(false), true),
        ("SELECT 1; DROP TABLE users", destructive, Some(false), true),
        ("CREATE TABLE t (id int)", destructive, Some(false), true),
        (
            "ATTACH DATABASE 'x.db' AS x",
            destructive,
            Some(false),
            true,
        ),
        ("SELECT load_extension('x')", destructive, Some(false), true),
        (
            "SELECT 1 /*! DROP TABLE t */",
            destructive,
            Some(false),
            true,
        ),
        ("not sql at all", destructive, Some(false), true),
        ("", destructive, Some(false), true),
    ];
    check_rows(table, |&(statement, expected, reversible, privileged)| {
        let resolved = resolve("run", statement);
        let found = (
            core(resolved),
            resolved.reversible,
            resolved.privileged_access,
            resolved.open_world,
            resolved.sensitive_data,
        );
        let wanted = (
            expected,
            reversible,
            Some(privileged),
            Some(false),
            Some(true),
        );
        if found != wanted {
            return Err(format!("{statement:?}: {found:?}, expected {wanted:?}"));
        }
        // `explain` plans, whatever the text; the guard holds it to that.
        let explain = core(resolve("explain", statement));
        if explain != read {
            return Err(format!("{statement:?} explained: {explain:?}"));
        }
        Ok(())
    });
}

#[test]
fn sql_static_bound_and_explanations() {
    assert_eq!(core(Sql::STATIC_ANNOTATIONS), (false, true, false));
    assert_eq!(Sql::STATIC_ANNOTATIONS.reversible, Some(false));
    assert_eq!(Sql::STATIC_ANNOTATIONS.privileged_access, Some(true));
    let statements: Vec<Value> = [
        "SELECT 1",
        "INSERT INTO t VALUES (1)",
        "DELETE FROM t",
        "DROP TABLE t",
        "VACUUM",
    ]
    .iter()
    .map(|statement| json!({"action": "run", "statement": statement}))
    .collect();
    assert_within_static_bound::<Sql>(&statements);

    let read = Sql::from_arguments(&json!({"action": "run", "statement": "SELECT 1"}))
        .unwrap()
        .explain();
    let Source::Rules(rules) = read.source(Hint::ReadOnly) else {
        panic!("read-only decided by the rules")
    };
    assert_eq!(rules.iter().map(|r| r.index).collect::<Vec<_>>(), [0]);
    assert_eq!(
        rules[0].source,
        "when(statement is sql(sqlite, read)) => (read_only, privileged_access = false)"
    );

    // The batch is of the riskiest class: no class rule can be said to
    // fire or not, so all three are undecided and only add risk.
    let batch =
        Sql::from_arguments(&json!({"action": "run", "statement": "SELECT 1; DROP TABLE t"}))
            .unwrap()
            .explain();
    let indices = |rules: &[&annot::Rule]| rules.iter().map(|r| r.index).collect::<Vec<_>>();
    assert_eq!(indices(&batch.undecided), [0, 1, 2]);
    assert_eq!(indices(&batch.fired), [0, 1, 2]);
    assert_eq!(batch.annotations.read_only, Some(false));
    assert_eq!(batch.annotations, Sql::ACTIONS[0].annotations);
}
