//! The README and the chapters of `docs/` as doctests: `cargo test` compiles
//! and runs every Rust code block they hold, so the docs cannot drift from
//! the code.
//!
//! This is the one list of tested pages. A new chapter gets one line in
//! `pages!` below, named for its file. Blocks that are not Rust say what they
//! are (`sh`, `json`, `text`); a Rust block that cannot run on its own is
//! `no_run`, with `#` lines for what it needs but does not show.

/// One hidden item per page, carrying the page as its documentation.
macro_rules! pages {
    ($($name:ident => $path:literal,)*) => {
        $(
            #[doc = include_str!($path)]
            pub struct $name;
        )*
    };
}

pages! {
    Readme => "../README.md",
    Declaring => "../docs/declaring.md",
    Rules => "../docs/rules.md",
    Serving => "../docs/serving.md",
    Profiles => "../docs/profiles.md",
    Exposure => "../docs/exposure.md",
    Client => "../docs/client.md",
    Rmcp => "../docs/rmcp.md",
    Guards => "../docs/guards.md",
    Sql => "../docs/sql.md",
    Auditing => "../docs/auditing.md",
    Gateway => "../docs/gateway.md",
    Scaling => "../docs/scaling.md",
    Extensions => "../docs/extensions.md",
    Protocol => "../docs/PROTOCOL.md",
    Performance => "../docs/reference/performance.md",
    Fuzzing => "../docs/reference/fuzzing.md",
    MutationTesting => "../docs/reference/mutation-testing.md",
    Testing => "../docs/reference/testing.md",
}
