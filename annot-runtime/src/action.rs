//! [`Action`]: one action of a tool and its worst-case annotations.

use crate::Annotations;

/// One action of a tool: a value of its discriminator and the annotations the
/// action can resolve to at worst.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Action {
    /// The discriminator value, as on the wire (`"read"`).
    pub name: &'static str,
    /// The worst case of every resolution of this action, defaults applied.
    pub annotations: Annotations,
}
