//! Every example tool has the static annotations and action bounds its doc
//! comment says, written out here by hand, and a valid JSON Schema 2020-12.
//! Add each new file of `examples/tools/` here.

use crate::examples_support;
#[path = "../../examples/tools/github_api.rs"]
mod github_api;
#[path = "../../examples/tools/http_api.rs"]
mod http_api;
use crate::macro_support;
#[path = "../../examples/tools/manage_files.rs"]
mod manage_files;
#[allow(dead_code)] // The resolvers are for the fuzz targets and tests/robust/.
#[path = "../../fuzz/src/reference.rs"]
mod reference;
#[path = "../../examples/tools/sql.rs"]
mod sql;

use annot::{AnnotatedTool, Annotations};
use examples_support::example_tool_files;
use macro_support::schema_of;
use reference::hints;

/// The checks every example tool must pass, with its static annotations and
/// the bound of each action written out by hand (`fuzz/src/reference.rs` and
/// the tables below, from the doc comment of each tool).
fn check<T: AnnotatedTool>(declared: Annotations, actions: &[(&str, Annotations)]) {
    schema_of::<T>();
    assert_eq!(
        T::STATIC_ANNOTATIONS,
        declared,
        "{}: static annotations",
        T::NAME
    );
    let names: Vec<&str> = T::ACTIONS.iter().map(|action| action.name).collect();
    let expected_names: Vec<&str> = actions.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, expected_names, "{}: the actions, in order", T::NAME);
    for (action, (name, bound)) in T::ACTIONS.iter().zip(actions) {
        assert_eq!(action.annotations, *bound, "{}: action {name}", T::NAME);
        if let Err(violation) = action.annotations.check_within(&declared) {
            panic!("{}: {name} breaks the static bound: {violation}", T::NAME);
        }
    }
    let schema = schema_of::<T>();
    let discriminator = T::DISCRIMINATOR.expect("the example tools have actions");
    let listed = &schema["properties"][discriminator]["enum"];
    assert_eq!(
        *listed,
        serde_json::json!(expected_names),
        "{}: the schema lists the actions",
        T::NAME
    );
}

const T: Option<bool> = Some(true);
const F: Option<bool> = Some(false);
const N: Option<bool> = None;

#[test]
fn manage_files_static_annotations_and_actions() {
    // Every action may hit the system-path rule: privileged, sensitive.
    check::<manage_files::ManageFiles>(
        reference::MANAGE_FILES_STATIC,
        &[
            (
                "read",
                hints(Some("Read a file"), [T, F, T, F, N, N, N, T, T, N]),
            ),
            (
                "append",
                hints(Some("Append to a file"), [F, F, F, F, N, N, N, T, T, N]),
            ),
            (
                "replace",
                hints(Some("Replace a file"), [F, T, T, F, N, N, N, T, T, N]),
            ),
            (
                "delete",
                hints(Some("Delete a file"), [F, T, T, F, N, N, N, T, T, N]),
            ),
        ],
    );
}

#[test]
fn http_api_static_annotations_and_actions() {
    let read = hints(None, [T, F, T, T, N, N, N, N, N, N]);
    check::<http_api::HttpApi>(
        reference::HTTP_API_STATIC,
        &[
            ("GET", read),
            ("HEAD", read),
            ("OPTIONS", read),
            ("POST", hints(None, [F, F, F, T, N, N, N, N, N, N])),
            ("PUT", hints(None, [F, T, T, T, N, N, N, N, N, N])),
            ("PATCH", hints(None, [F, T, F, T, N, N, N, N, N, N])),
            ("DELETE", hints(None, [F, T, T, T, N, N, N, N, N, F])),
        ],
    );
}

#[test]
fn github_api_static_annotations_and_actions() {
    // Any method may be a private repository (sensitive) or an organisation
    // (privileged); a PATCH of an issue is destructive, a DELETE of a
    // repository irreversible; annot::HttpMethod makes PUT not destructive.
    let read = hints(None, [T, F, T, T, N, N, N, T, T, N]);
    check::<github_api::GithubApi>(
        reference::GITHUB_API_STATIC,
        &[
            ("GET", read),
            ("HEAD", read),
            ("OPTIONS", read),
            ("POST", hints(None, [F, F, F, T, N, N, N, T, T, N])),
            ("PUT", hints(None, [F, F, T, T, N, N, N, T, T, N])),
            ("PATCH", hints(None, [F, T, F, T, N, N, N, T, T, N])),
            ("DELETE", hints(None, [F, T, T, T, N, N, N, T, T, F])),
        ],
    );
}

#[test]
fn sql_static_annotations_and_actions() {
    // A text of the riskiest class (DDL, an unknown function, text that
    // does not parse) keeps `run`'s own hints: irreversible and privileged.
    // `explain` only plans.
    check::<sql::Sql>(
        reference::SQL_STATIC,
        &[
            (
                "run",
                hints(Some("Run SQL"), [F, T, F, F, N, N, N, T, T, F]),
            ),
            (
                "explain",
                hints(Some("Explain SQL"), [T, F, T, F, N, N, N, T, N, N]),
            ),
        ],
    );
}

/// A new file in `examples/tools/` gets its test here.
#[test]
fn every_example_tool_is_pinned() {
    assert_eq!(
        example_tool_files(),
        ["github_api.rs", "http_api.rs", "manage_files.rs", "sql.rs"]
    );
}
