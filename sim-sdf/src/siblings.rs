//! The names already used among the siblings of one kind (links of a model, models of a
//! world...), which must differ.

use std::collections::HashMap;

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, tag};

/// The names already used by siblings of one kind (links of a model, models of a world...),
/// with the line each was defined on.
#[derive(Default)]
pub(crate) struct Siblings(HashMap<String, u32>);

impl Siblings {
    /// Records `name` for `node`; fails if a sibling of the same kind already has it.
    pub(crate) fn insert(
        &mut self,
        r: &Reader,
        node: Node,
        name: &str,
        scope: &str,
    ) -> Result<(), SdfError> {
        self.insert_as(r, node, tag(node), name, scope)
    }

    /// Records `name` for a `<kind>` brought in by `node` (the element itself, or the
    /// `<include>` that brought it); fails if a sibling of the same kind already has it.
    pub(crate) fn insert_as(
        &mut self,
        r: &Reader,
        node: Node,
        kind: &str,
        name: &str,
        scope: &str,
    ) -> Result<(), SdfError> {
        let line = r.span(node).line;
        if let Some(first) = self.0.get(name) {
            return Err(r.attr_error(
                node,
                "name",
                ErrorKind::Duplicate,
                format!(
                    "a <{kind}> named \"{name}\" already exists in this {scope} (line {first})"
                ),
                format!("give each <{kind}> in the same {scope} a different name"),
            ));
        }
        self.0.insert(name.to_string(), line);
        Ok(())
    }
}
