//! Every example tool stays within its static annotations, and its schema is
//! valid JSON Schema 2020-12. Add each new file of `examples/tools/` here.

#[path = "../examples/tools/github_api.rs"]
mod github_api;
#[path = "../examples/tools/http_api.rs"]
mod http_api;
mod macro_support;
#[path = "../examples/tools/manage_files.rs"]
mod manage_files;
#[path = "../examples/tools/sql.rs"]
mod sql;

use annot::{AnnotatedTool, Annotations};
use macro_support::schema_of;

/// The checks every example tool must pass.
fn check<T: AnnotatedTool>() {
    schema_of::<T>();
    let declared = T::STATIC_ANNOTATIONS;
    assert!(!T::ACTIONS.is_empty(), "{} has actions", T::NAME);
    for action in T::ACTIONS {
        if let Err(violation) = action.annotations.check_within(&declared) {
            panic!(
                "{}: {} breaks the static bound: {violation}",
                T::NAME,
                action.name
            );
        }
        // Actions carry effective annotations: every core hint is present.
        let effective = action.annotations.effective();
        assert_eq!(
            action.annotations,
            effective,
            "{}: {}",
            T::NAME,
            action.name
        );
    }
    let all: Vec<Annotations> = T::ACTIONS.iter().map(|action| action.annotations).collect();
    assert_eq!(
        Annotations {
            title: T::TITLE,
            ..Annotations::join_all(&all)
        },
        declared,
        "{}: the static annotations are the join of the actions",
        T::NAME
    );
    let names: Vec<&str> = T::ACTIONS.iter().map(|action| action.name).collect();
    let schema = schema_of::<T>();
    let discriminator = T::DISCRIMINATOR.expect("the example tools have actions");
    let listed = &schema["properties"][discriminator]["enum"];
    assert_eq!(
        *listed,
        serde_json::json!(names),
        "{}: the schema lists the actions",
        T::NAME
    );
}

#[test]
fn every_example_tool_stays_within_its_static_bound() {
    check::<manage_files::ManageFiles>();
    check::<http_api::HttpApi>();
    check::<github_api::GithubApi>();
    check::<sql::Sql>();
}
