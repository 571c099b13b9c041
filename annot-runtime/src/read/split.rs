//! [`SplitArguments`]: an argument object as the scanner split it in the
//! request's one pass.

/// The most members [`SplitArguments`] holds: an argument object with more
/// is read again by the tool's reader.
pub const MAX_SPLIT: usize = 8;

/// An argument object as the server's request reader split it in the
/// request's one pass: each member's name (without escapes) and its value's
/// checked JSON text, in order. The tool's reader then matches names instead
/// of reading the object again.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SplitArguments<'a> {
    members: [(&'a [u8], &'a str); MAX_SPLIT],
    len: u8,
    /// Bit `i` is set when the value of member `i` is a string without
    /// escapes.
    pub(super) plain: u8,
}

impl<'a> SplitArguments<'a> {
    /// Adds a member whose name has no escape and whose value is checked
    /// JSON, `plain` when it is a string without escapes; `None` when
    /// [`MAX_SPLIT`] are held already.
    pub(crate) fn push(&mut self, name: &'a [u8], value: &'a str, plain: bool) -> Option<()> {
        let slot = self.members.get_mut(usize::from(self.len))?;
        *slot = (name, value);
        self.plain |= u8::from(plain) << self.len;
        self.len += 1;
        Some(())
    }

    // Inlined into the tool's generated reader, another crate.
    #[inline]
    pub(crate) fn members(&self) -> &[(&'a [u8], &'a str)] {
        &self.members[..usize::from(self.len)]
    }
}
