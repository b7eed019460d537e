//! Where a subschema sits, told in terms of the arguments a model writes.

use std::fmt;

/// One step from a schema into one of its subschemas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A named property of an object.
    Field(String),
    /// The values of a map (`additionalProperties`).
    MapValue,
    /// Every item of an array.
    Item,
    /// One position of a tuple.
    Position(usize),
    /// One alternative of `anyOf` / `oneOf` / `allOf`.
    Alternative(&'static str, usize),
    /// A named definition under `$defs`.
    Definition(String),
    /// Any other keyword holding a subschema (`not`, `if`, ...).
    Keyword(String),
}

/// A JSON path such as `filters.extra` or `items[].name`; `(root)` when empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SchemaPath(Vec<Step>);

impl SchemaPath {
    pub(crate) fn push(&mut self, step: Step) {
        self.0.push(step);
    }

    pub(crate) fn pop(&mut self) {
        self.0.pop();
    }

    pub(crate) fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// How many objects enclose this point (the root object counts as level one).
    pub(crate) fn object_depth(&self) -> usize {
        1 + self
            .0
            .iter()
            .filter(|step| matches!(step, Step::Field(_) | Step::MapValue))
            .count()
    }
}

impl fmt::Display for SchemaPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(root)");
        }
        for (index, step) in self.0.iter().enumerate() {
            let dot = if index == 0 { "" } else { "." };
            match step {
                Step::Field(name) => write!(f, "{dot}{name}")?,
                Step::MapValue => write!(f, "{dot}<value>")?,
                Step::Item => f.write_str("[]")?,
                Step::Position(i) => write!(f, "[{i}]")?,
                Step::Alternative(keyword, i) => write!(f, "{dot}{keyword}[{i}]")?,
                Step::Definition(name) => write!(f, "{dot}$defs.{name}")?,
                Step::Keyword(keyword) => write!(f, "{dot}{keyword}")?,
            }
        }
        Ok(())
    }
}
