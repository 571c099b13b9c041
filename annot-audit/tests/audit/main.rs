//! The auditor's tests: one test binary, a module per suite, each running the
//! real `annot-audit` binary (`support`).

mod support;

mod examples_pass;
mod launchers;
mod lying_fixtures;
mod records;
