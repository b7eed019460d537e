//! Turning a typed tool's output into content.

use std::any::Any;

use serde::Serialize;
use serde_json::Value;

use crate::content::Content;
use crate::error::{AgentError, AgentResult};

/// Converts a tool's output to content.
///
/// Text-like outputs and content pass through without serialization; the type test is a
/// compile-time constant after monomorphization. Everything else becomes [`Content::Json`].
pub(crate) fn into_contents<O: Serialize + 'static>(output: O) -> AgentResult<Vec<Content>> {
    let mut slot = Some(output);
    let any: &mut dyn Any = &mut slot;
    if let Some(text) = any.downcast_mut::<Option<String>>() {
        return Ok(vec![Content::text(take(text))]);
    }
    if let Some(text) = any.downcast_mut::<Option<&'static str>>() {
        return Ok(vec![Content::text(take(text))]);
    }
    if let Some(content) = any.downcast_mut::<Option<Content>>() {
        return Ok(vec![take(content)]);
    }
    if let Some(contents) = any.downcast_mut::<Option<Vec<Content>>>() {
        return Ok(take(contents));
    }
    if let Some(value) = any.downcast_mut::<Option<Value>>() {
        return Ok(vec![Content::json(take(value))]);
    }
    let value = serde_json::to_value(take(&mut slot)).map_err(AgentError::Output)?;
    Ok(vec![Content::json(value)])
}

fn take<T>(slot: &mut Option<T>) -> T {
    slot.take().expect("output slot is filled exactly once")
}
