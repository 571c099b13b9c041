//! The member slots of a tool's argument object, shared by the two readers
//! generated over the members the request reader split: the borrowing
//! evaluation (`rules/borrowing_evaluation.rs`) and `from_members` (`from_members.rs`). Slot `i`
//! is the `i`th distinct wire name: the discriminator of shape (a) first,
//! then every field not skipped, in declaration order.

use crate::internals::ast::{Field, Shape, Tool};

/// A tool's member names, at most 64 (one bit of a mask each).
pub struct Slots {
    pub names: Vec<String>,
}

impl Slots {
    /// The slots of `tool`, or `None` when it has more member names than a
    /// mask holds (the owned path then reads its arguments).
    pub fn of(tool: &Tool) -> Option<Slots> {
        let discriminator = &tool.discriminator.0;
        let mut names: Vec<String> = Vec::new();
        let field_lists: Vec<&[Field]> = match &tool.shape {
            Shape::Enum(variants) => {
                names.push(discriminator.clone());
                variants
                    .iter()
                    .map(|variant| variant.fields.as_slice())
                    .collect()
            }
            Shape::Struct(fields) | Shape::Single { fields, .. } => vec![fields.as_slice()],
        };
        for field in field_lists.iter().flat_map(|fields| fields.iter()) {
            if !field.skip && !names.contains(&field.name) {
                names.push(field.name.clone());
            }
        }
        (names.len() <= 64).then_some(Slots { names })
    }

    /// The slot of a member name of the tool.
    pub fn slot(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|known| known == name)
            .expect("every member name has a slot")
    }

    /// The mask of the slots a call may carry: `fields` (but skipped ones)
    /// and the discriminator of shape (a).
    pub fn allowed(&self, fields: &[Field], discriminator: Option<&str>) -> u64 {
        let mut mask = 0;
        for field in fields.iter().filter(|field| !field.skip) {
            mask |= 1 << self.slot(&field.name);
        }
        if let Some(discriminator) = discriminator {
            mask |= 1 << self.slot(discriminator);
        }
        mask
    }
}
