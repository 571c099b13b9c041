//! `const fn` helpers: the annotations of a tool and the concatenation of its
//! schema text, both computed at compile time.

use crate::{Action, Annotations};

/// `annotations` with every hint it leaves unset taken from `defaults`, then
/// [`effective`](Annotations::effective). The title stays `annotations`'.
pub const fn with_defaults(annotations: Annotations, defaults: Annotations) -> Annotations {
    annot_model::action_base(annotations, defaults).effective()
}

/// The actions of an `AnnotatedActions` type with a tool's defaults applied.
/// `N` must be `actions.len()`.
pub const fn actions_with_defaults<const N: usize>(
    actions: &[Action],
    defaults: Annotations,
) -> [Action; N] {
    assert!(actions.len() == N, "N must be the number of actions");
    let mut filled = [Action {
        name: "",
        annotations: Annotations::new(),
    }; N];
    let mut index = 0;
    while index < N {
        filled[index] = Action {
            name: actions[index].name,
            annotations: with_defaults(actions[index].annotations, defaults),
        };
        index += 1;
    }
    filled
}

/// The static annotations of a tool: [`Annotations::join_all`] over its
/// actions, titled with the tool's title.
pub const fn static_annotations<const N: usize>(
    actions: &[Action; N],
    title: Option<&'static str>,
) -> Annotations {
    let mut all = [Annotations::new(); N];
    let mut index = 0;
    while index < N {
        all[index] = actions[index].annotations;
        index += 1;
    }
    let mut joined = Annotations::join_all(&all);
    joined.title = title;
    joined
}

/// The total length of `parts`.
pub const fn concat_len(parts: &[&str]) -> usize {
    let mut length = 0;
    let mut index = 0;
    while index < parts.len() {
        length += parts[index].len();
        index += 1;
    }
    length
}

/// `parts` one after the other. `N` must be [`concat_len`]`(parts)`.
pub const fn concat_bytes<const N: usize>(parts: &[&str]) -> [u8; N] {
    let mut bytes = [0u8; N];
    let mut at = 0;
    let mut index = 0;
    while index < parts.len() {
        let part = parts[index].as_bytes();
        let mut byte = 0;
        while byte < part.len() {
            bytes[at] = part[byte];
            at += 1;
            byte += 1;
        }
        index += 1;
    }
    assert!(at == N, "N must be the total length of the parts");
    bytes
}

/// The bytes of [`concat_bytes`] as text; they are whole strings end to end.
pub const fn utf8(bytes: &'static [u8]) -> &'static str {
    match core::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(_) => panic!("concatenated strings are UTF-8"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARTS: &[&str] = &["{\"enum\":", "[\"é\"]", "}"];
    const LEN: usize = concat_len(PARTS);
    const BYTES: [u8; LEN] = concat_bytes::<LEN>(PARTS);
    const TEXT: &str = utf8(&BYTES);

    #[test]
    fn strings_concatenate_at_compile_time() {
        assert_eq!(TEXT, "{\"enum\":[\"é\"]}");
    }

    const READ: Annotations = Annotations::new().read_only(true);
    const WRITE: Annotations = Annotations::new().destructive(false).title("Write");
    const DEFAULTS: Annotations = Annotations::new().open_world(false).destructive(true);
    const ACTIONS: [Action; 2] = actions_with_defaults::<2>(
        &[
            Action {
                name: "read",
                annotations: READ,
            },
            Action {
                name: "write",
                annotations: WRITE,
            },
        ],
        DEFAULTS,
    );

    #[test]
    fn defaults_fill_only_unset_hints() {
        let write = ACTIONS[1].annotations;
        assert_eq!(write.destructive, Some(false));
        assert_eq!(write.open_world, Some(false));
        assert_eq!(write.title, Some("Write"));
        let read = ACTIONS[0].annotations;
        // Read-only: the destructive default means nothing and is normalised away.
        assert_eq!(
            (read.read_only, read.destructive),
            (Some(true), Some(false))
        );
        assert_eq!(read.open_world, Some(false));
    }

    #[test]
    fn static_annotations_join_and_take_the_tool_title() {
        let joined = static_annotations(&ACTIONS, Some("Files"));
        assert_eq!(joined.title, Some("Files"));
        assert_eq!(joined.read_only, Some(false));
        assert_eq!(joined.destructive, Some(false));
        assert_eq!(joined.open_world, Some(false));
        for action in ACTIONS {
            assert!(action.annotations.is_within(&joined));
        }
        assert_eq!(
            static_annotations(&[], None),
            Annotations::new().effective()
        );
    }
}
