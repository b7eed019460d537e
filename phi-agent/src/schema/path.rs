//! Where a subschema sits, told in terms of the arguments a model writes.

use std::fmt;

use crate::error::ROOT_PATH;

/// One step from a schema into one of its subschemas, borrowing names from the schema walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    /// A named property of an object.
    Field(&'a str),
    /// Every item of an array.
    Item,
    /// One alternative of `anyOf` / `oneOf` / `allOf`.
    Alternative(&'static str, usize),
    /// A named definition under `$defs`.
    Definition(&'a str),
}

/// The steps from the root schema to a subschema. Walking costs a push and a pop per step; the
/// path is written out only when a problem is reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SchemaPath<'a>(Vec<Step<'a>>);

impl<'a> SchemaPath<'a> {
    pub(crate) fn push(&mut self, step: Step<'a>) {
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
            .filter(|step| matches!(step, Step::Field(_)))
            .count()
    }
}

impl fmt::Display for SchemaPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str(ROOT_PATH);
        }
        for (index, step) in self.0.iter().enumerate() {
            let dot = if index == 0 { "" } else { "." };
            match step {
                Step::Field(name) => write!(f, "{dot}{name}")?,
                Step::Item => f.write_str("[]")?,
                Step::Alternative(keyword, i) => write!(f, "{dot}{keyword}[{i}]")?,
                Step::Definition(name) => write!(f, "{dot}$defs.{name}")?,
            }
        }
        Ok(())
    }
}
