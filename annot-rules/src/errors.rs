//! Error collection: every problem of one macro call is reported, not only the first.

use core::fmt::Display;
use std::cell::RefCell;

use quote::ToTokens;

/// Collects errors while the input is parsed and checked, then hands them all
/// back as one `syn::Error` (serde_derive's `Ctxt`).
#[derive(Default)]
pub struct Errors {
    errors: RefCell<Option<syn::Error>>,
}

impl Errors {
    pub fn new() -> Self {
        Errors::default()
    }

    /// Records an error.
    pub fn push(&self, error: syn::Error) {
        let mut errors = self.errors.borrow_mut();
        match errors.as_mut() {
            Some(existing) => existing.combine(error),
            None => *errors = Some(error),
        }
    }

    /// Records an error spanned on `tokens`.
    pub fn spanned(&self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error at `span`.
    pub fn at(&self, span: proc_macro2::Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// Records the error of a result, keeping its value otherwise.
    pub fn ok<T>(&self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|error| self.push(error)).ok()
    }

    /// Every error recorded, combined, or `Ok` when there was none.
    pub fn finish(self) -> syn::Result<()> {
        match self.errors.into_inner() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}
