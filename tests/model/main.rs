//! The model tests: one test binary, a module per suite.

#![allow(clippy::duplicate_mod)] // Suites include the same example tools.

mod lattice_laws;
mod trust_annotations;
