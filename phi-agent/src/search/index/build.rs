//! Building the index: each document's terms counted per field as it is added, then, once every
//! field's average length is known, each posting's weight folded.

use foldhash::HashMap;

use super::super::links::{Producers, Shape, mentions};
use super::super::tokenize::for_each_term;
use super::parts::{FIELDS, Field, Parts};
use super::postings::{IN_NAME, Posting, TextIndex};

/// Collects documents, then computes the weights once every field's average length is known.
#[derive(Debug, Default)]
pub(crate) struct IndexBuilder {
    parts: Parts,
    terms: HashMap<Box<str>, u32>,
    /// Per document: its terms with their count in each field.
    docs: Vec<Vec<(u32, [u16; FIELDS])>>,
    lengths: Vec<[u32; FIELDS]>,
    /// Per term: in how many documents it occurs.
    document_frequency: Vec<u32>,
    /// With [`Links`] only, per document: what links read of it.
    shapes: Vec<Shape>,
}

impl IndexBuilder {
    /// A builder whose index ranks with `parts`.
    pub(crate) fn with_parts(parts: Parts) -> Self {
        Self {
            parts,
            ..Self::default()
        }
    }

    /// Adds a document made of `texts`, and returns its number (0, 1, ...).
    pub(crate) fn add<'a>(&mut self, texts: impl IntoIterator<Item = (Field, &'a str)>) -> u32 {
        let mut counts: Vec<(u32, [u16; FIELDS])> = Vec::new();
        let mut length = [0u32; FIELDS];
        let mut parameter: Vec<u32> = Vec::new();
        let mut shape = Shape::default();
        let linking = self.parts.links.is_some();
        let mut param_docs: Vec<&str> = Vec::new();
        // Whether the parameter name being read has the word `id` (links read identifiers only).
        let mut identifier = false;
        for (field, text) in texts {
            if field == Field::ParamName {
                parameter.clear();
                identifier = false;
            }
            if linking && field == Field::ParamDoc {
                param_docs.push(text);
            }
            for_each_term(text, self.parts.analysis, |term| {
                identifier |= linking && field == Field::ParamName && term == "id";
                // Looked up before inserting: most terms are known, and a key to insert would
                // cost an allocation per word.
                let id = match self.terms.get(term) {
                    Some(&id) => id,
                    None => {
                        let id = self.terms.len() as u32;
                        self.terms.insert(term.into(), id);
                        self.document_frequency.push(0);
                        id
                    }
                };
                match counts.iter_mut().find(|(t, _)| *t == id) {
                    Some((_, tf)) => tf[field.slot()] = tf[field.slot()].saturating_add(1),
                    None => {
                        let mut tf = [0; FIELDS];
                        tf[field.slot()] = 1;
                        counts.push((id, tf));
                        self.document_frequency[id as usize] += 1;
                    }
                }
                length[field.slot()] += 1;
                if linking && field == Field::Name {
                    shape.name.push(id);
                }
                if field == Field::ParamName {
                    parameter.push(id);
                }
            });
            if linking && identifier && field == Field::ParamName && parameter.len() >= 2 {
                shape.param_names.push(parameter.clone());
            }
        }
        if linking {
            // After the texts, whose words are then all known.
            for doc in param_docs {
                for span in mentions(doc) {
                    let mut words = Vec::new();
                    for_each_term(span, self.parts.analysis, |term| {
                        // `Tripadvisor's` is `tripadvisor`: a letter alone names nothing.
                        if term.len() > 1 {
                            words.extend(self.terms.get(term).copied());
                        }
                    });
                    if words.len() >= 2 {
                        shape.mentions.push(words);
                    }
                }
            }
            shape.finish();
            self.shapes.push(shape);
        }
        self.docs.push(counts);
        self.lengths.push(length);
        (self.docs.len() - 1) as u32
    }

    /// The finished index.
    pub(crate) fn build(self) -> TextIndex {
        let n = self.docs.len().max(1) as f32;
        let mut average = [0f32; FIELDS];
        for length in &self.lengths {
            for (sum, &l) in average.iter_mut().zip(length) {
                *sum += l as f32;
            }
        }
        for sum in &mut average {
            *sum = (*sum / n).max(1.0);
        }
        let term_count = self.terms.len();
        let mut offsets = vec![0u32; term_count + 1];
        for counts in &self.docs {
            for (term, _) in counts {
                offsets[*term as usize + 1] += 1;
            }
        }
        for t in 0..term_count {
            offsets[t + 1] += offsets[t];
        }
        let mut fill = offsets.clone();
        let mut postings = vec![
            Posting {
                doc: 0,
                weight: 0.0
            };
            offsets[term_count] as usize
        ];
        let mut name_terms = Vec::with_capacity(self.docs.len());
        let k1 = self.parts.weights.k1;
        let feedback = self.parts.feedback.is_some();
        let mut forward_offsets = vec![0u32];
        let mut forward = Vec::new();
        for (doc, (counts, length)) in self.docs.iter().zip(&self.lengths).enumerate() {
            let mut in_name = 0u8;
            for (term, tf) in counts {
                let mut folded = 0.0;
                for f in 0..FIELDS {
                    if tf[f] > 0 {
                        let b = self.parts.weights.field_b[f];
                        let norm = 1.0 - b + b * length[f] as f32 / average[f];
                        folded += self.parts.weights.field_weight[f] * tf[f] as f32 / norm;
                    }
                }
                let named = tf[Field::Name.slot()] > 0;
                in_name = in_name.saturating_add(u8::from(named));
                let slot = &mut fill[*term as usize];
                postings[*slot as usize] = Posting {
                    doc: doc as u32 | if named { IN_NAME } else { 0 },
                    weight: folded * (k1 + 1.0) / (folded + k1),
                };
                *slot += 1;
                if feedback {
                    forward.push(*term);
                }
            }
            name_terms.push(in_name);
            if feedback {
                forward_offsets.push(forward.len() as u32);
            }
        }
        let idf = self
            .document_frequency
            .iter()
            .map(|&df| (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln())
            .collect();
        let mut terms = self.terms;
        terms.shrink_to_fit();
        let producers = match self.parts.links {
            Some(links) => Producers::find(&self.shapes, links, terms.get("id").copied()),
            None => Producers::default(),
        };
        TextIndex {
            parts: self.parts,
            terms,
            offsets,
            postings,
            idf,
            name_terms,
            forward_offsets,
            forward,
            producers,
        }
    }
}
