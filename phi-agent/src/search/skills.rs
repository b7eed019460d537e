//! [`SkillIndex`]: the skills an agent offers, ranked for a query as tools are (the same fields
//! for a skill's name and description, the same analysis and weights), so that `search_tools`
//! finds a skill whose description answers the task.

use super::index::{Field, IndexBuilder, Parts, TextIndex};

/// A search index over documents that are a name and a description (an agent's skills), by
/// their position in the order given.
///
/// ```
/// use phi_agent::search::SkillIndex;
///
/// let index = SkillIndex::build([
///     ("pdf-forms", "Fill in PDF forms: read the fields, write the values."),
///     ("csv-cleanup", "Clean CSV files: fix headers, drop empty rows."),
/// ]);
/// assert_eq!(index.search("fill out a pdf form", 1)[0].0, 0);
/// ```
#[derive(Debug, Default)]
pub struct SkillIndex {
    text: TextIndex,
}

impl SkillIndex {
    /// Indexes `(name, description)` pairs, in order.
    pub fn build<'a>(documents: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut builder = IndexBuilder::with_parts(Parts::default());
        for (name, description) in documents {
            builder.add([(Field::Name, name), (Field::Description, description)]);
        }
        Self {
            text: builder.build(),
        }
    }

    /// The `limit` documents that best match `query`, best first: their positions and scores
    /// (comparable only within one search).
    pub fn search(&self, query: &str, limit: usize) -> Vec<(usize, f32)> {
        self.text
            .search(query, limit, false, |_| true)
            .into_iter()
            .map(|(doc, score)| (doc as usize, score))
            .collect()
    }
}
