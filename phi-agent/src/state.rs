//! Typed shared state that the program provides once and every tool can read.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::error::{AgentError, AgentResult};

/// A map from type to one shared value of that type, cheap to clone (one `Arc`).
///
/// The program fills it once, before the agent runs (`.state(value)` on the agent builder), and
/// tools read it through [`ToolContext::state`](crate::ToolContext::state). Values are immutable
/// once shared; put a `Mutex` or an atomic inside a value that must change.
#[derive(Clone, Default)]
pub struct SharedState {
    values: Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl SharedState {
    /// An empty state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `value`, replacing an earlier value of the same type.
    ///
    /// Intended for setup: it copies the map when the state is already shared.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        Arc::make_mut(&mut self.values).insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, or an error that says how to provide it.
    pub fn get<T: Send + Sync + 'static>(&self) -> AgentResult<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
            .ok_or(AgentError::MissingState {
                type_name: std::any::type_name::<T>(),
            })
    }

    /// Number of values held.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value is held.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl fmt::Debug for SharedState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedState")
            .field("values", &self.values.len())
            .finish()
    }
}
