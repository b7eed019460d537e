//! The index as stored: per term, its postings by document, each with the document's whole
//! BM25F weight for the term folded in; and what the index tells about itself.

use std::mem::size_of;

use foldhash::HashMap;

use super::super::links::{Links, Producers};
use super::parts::Parts;

/// Marks a posting whose term occurs in the document's name.
pub(super) const IN_NAME: u32 = 1 << 31;

#[derive(Debug, Clone, Copy)]
pub(super) struct Posting {
    /// Document number, with [`IN_NAME`] set when the term is one of its name's.
    pub(super) doc: u32,
    pub(super) weight: f32,
}

/// An immutable index; build it with [`IndexBuilder`].
#[derive(Debug, Default)]
pub(crate) struct TextIndex {
    pub(super) parts: Parts,
    pub(super) terms: HashMap<Box<str>, u32>,
    /// Postings of term `t`: `postings[offsets[t]..offsets[t + 1]]`, by document.
    pub(super) offsets: Vec<u32>,
    pub(super) postings: Vec<Posting>,
    pub(super) idf: Vec<f32>,
    /// Distinct terms of each document's name.
    pub(super) name_terms: Vec<u8>,
    /// With [`Feedback`] only: the terms of document `d`,
    /// `forward[forward_offsets[d]..forward_offsets[d + 1]]` (their weights are the postings').
    pub(super) forward_offsets: Vec<u32>,
    pub(super) forward: Vec<u32>,
    /// With [`Links`] only: the tools each document's parameters come from.
    pub(super) producers: Producers,
}

impl TextIndex {
    /// Number of documents.
    pub(crate) fn len(&self) -> usize {
        self.name_terms.len()
    }

    /// Whether a request that keeps its result in a text file gets a file's writing searched for
    /// (`Parts::written_step`).
    pub(crate) fn written_step(&self) -> bool {
        self.parts.written_step
    }

    /// The links this index was built with, if any.
    pub(crate) fn links(&self) -> Option<Links> {
        self.parts.links
    }

    /// The tools the results `best` link to, lifted to `share` of their scores
    /// ([`Producers::lifted`]).
    pub(crate) fn lifted(
        &self,
        best: impl IntoIterator<Item = (u32, f32)>,
        share: f32,
        accept: impl Fn(u32) -> bool,
    ) -> Vec<(u32, f32)> {
        self.producers.lifted(best, share, accept)
    }

    /// Bytes the index holds on the heap: the term dictionary (keys, values and the table's
    /// control bytes, at its capacity), the postings and the per-term and per-document arrays.
    pub(crate) fn heap_bytes(&self) -> usize {
        let table = self.terms.capacity() * (size_of::<(Box<str>, u32)>() + 1);
        let keys: usize = self.terms.keys().map(|key| key.len()).sum();
        table
            + keys
            + self.offsets.capacity() * size_of::<u32>()
            + self.postings.capacity() * size_of::<Posting>()
            + self.idf.capacity() * size_of::<f32>()
            + self.name_terms.capacity()
            + self.forward_offsets.capacity() * size_of::<u32>()
            + self.forward.capacity() * size_of::<u32>()
            + self.producers.heap_bytes()
    }
}
