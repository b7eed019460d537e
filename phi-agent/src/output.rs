//! Turning a typed tool's output into content.

use std::any::{Any, TypeId};

use serde::Serialize;
use serde_json::Value;

use crate::content::Content;
use crate::error::{AgentError, AgentResult};

/// Declares the unstructured outputs (sent as they are, never serialized) once, with how each
/// becomes content. Both questions asked of them come from this one list: [`into_contents`]
/// converts by it, and [`is_unstructured`] tells the output-schema probe which types have no
/// structure worth publishing. A type added here is therefore skipped by both.
macro_rules! unstructured_outputs {
    ($($ty:ty => |$value:ident| $contents:expr),* $(,)?) => {
        /// The content of `slot`'s value when its type is unstructured; `None` (and `slot` left
        /// as it was) otherwise. The type tests are constants after monomorphization.
        fn unstructured_contents<O: 'static>(slot: &mut Option<O>) -> Option<Vec<Content>> {
            let any: &mut dyn Any = slot;
            $(
                if let Some(slot) = any.downcast_mut::<Option<$ty>>() {
                    let $value: $ty = take(slot);
                    return Some($contents);
                }
            )*
            None
        }

        /// Whether outputs of type `O` are sent as they are rather than as JSON.
        pub(crate) fn is_unstructured<O: 'static>() -> bool {
            let id = TypeId::of::<O>();
            false $(|| id == TypeId::of::<$ty>())*
        }
    };
}

unstructured_outputs! {
    String => |text| vec![Content::text(text)],
    &'static str => |text| vec![Content::text(text)],
    Content => |content| vec![content],
    Vec<Content> => |contents| contents,
    Value => |value| vec![Content::json(value)],
}

/// Converts a tool's output to content.
///
/// Text-like outputs and content pass through without serialization. Everything else becomes
/// [`Content::Json`].
pub(crate) fn into_contents<O: Serialize + 'static>(output: O) -> AgentResult<Vec<Content>> {
    let mut slot = Some(output);
    if let Some(contents) = unstructured_contents(&mut slot) {
        return Ok(contents);
    }
    let value = serde_json::to_value(take(&mut slot)).map_err(AgentError::Output)?;
    Ok(vec![Content::json(value)])
}

fn take<T>(slot: &mut Option<T>) -> T {
    slot.take().expect("output slot is filled exactly once")
}
