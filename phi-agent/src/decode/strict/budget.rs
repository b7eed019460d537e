//! The bytes a value may still take, shared by all its parts.

use std::cell::Cell;

use super::error::Error;

/// How many bytes a value may still take, counted as [`limits::measure`](crate::limits::measure) counts them: a value
/// decodes only if the walk would find it within the same limit. A container counts its
/// brackets and separators when it is entered and each key as it is read; every value counts
/// itself where it is decoded, a string before it is copied. A scalar decoded for a known type
/// counts the constant of its kind, so no value is matched twice.
pub(super) struct Budget {
    pub(super) left: Cell<usize>,
}

impl Budget {
    #[inline]
    pub(super) fn spend(&self, bytes: usize) -> Result<(), Error> {
        match self.left.get().checked_sub(bytes) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(Error::past_limit()),
        }
    }
}
