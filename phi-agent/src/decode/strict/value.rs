//! One value under decoding: the borrowed JSON, the budget its whole shares, how deep it may
//! still nest; and [`decode`], which starts a value's decoding with the whole budget.

use std::cell::Cell;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::budget::Budget;
use super::error::Error;
use crate::limits::{self, MAX_ARGUMENT_DEPTH, Measure};

/// The deserializer of one value; see the [module documentation](super).
#[derive(Clone, Copy)]
pub(crate) struct Strict<'de> {
    pub(super) value: &'de Value,
    /// What the whole value may still take, shared by all its parts.
    pub(super) budget: &'de Budget,
    /// How many more containers may nest here (a container is one level).
    pub(super) depth_left: usize,
}

/// Decodes `value` as a `T`, refusing it once it counts more than `max_bytes` or nests deeper
/// than [`MAX_ARGUMENT_DEPTH`]: see the [module documentation](super).
pub(crate) fn decode<T: DeserializeOwned>(value: &Value, max_bytes: usize) -> Result<T, Error> {
    let budget = Budget {
        left: Cell::new(max_bytes),
    };
    T::deserialize(Strict {
        value,
        budget: &budget,
        depth_left: MAX_ARGUMENT_DEPTH,
    })
}

impl<'de> Strict<'de> {
    /// How many more containers may nest inside this value, a container: `Err` when it may
    /// not nest here.
    #[inline]
    pub(super) fn inner_depth(&self) -> Result<usize, Error> {
        match self.depth_left.checked_sub(1) {
            Some(inner) => Ok(inner),
            None => Err(Error::past_limit()),
        }
    }

    /// Counts this value whole where the decoder skips it or hands it to serde_json whole.
    #[cold]
    pub(super) fn spend_whole(&self) -> Result<(), Error> {
        if let Some(len) = limits::scalar_len(self.value) {
            return self.budget.spend(len);
        }
        match limits::measure(self.value, self.budget.left.get(), self.depth_left) {
            Measure::Fits(len) => self.budget.spend(len),
            Measure::TooLarge | Measure::TooDeep => Err(Error::past_limit()),
        }
    }
}

impl Strict<'_> {
    /// What serde_json's own deserializer makes of this value, where this one has nothing to
    /// add (mostly a type mismatch, which serde_json words): the value counted whole first, so
    /// that nothing is accepted uncounted.
    #[inline]
    pub(super) fn forward<T>(
        self,
        read: impl FnOnce() -> Result<T, serde_json::Error>,
    ) -> Result<T, Error> {
        self.spend_whole()?;
        Ok(read()?)
    }
}
