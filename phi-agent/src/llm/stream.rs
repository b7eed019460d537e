//! A model's reply as it is written: [`StreamDelta`]s, and the pieces a whole reply splits into
//! (what a model that cannot stream sends, in one go).

use futures_util::stream::BoxStream;

use super::{LlmResponse, ToolCall};
use crate::error::AgentResult;

/// The deltas of one streamed reply, ending with [`StreamDelta::Done`].
pub type DeltaStream<'a> = BoxStream<'a, AgentResult<StreamDelta>>;

/// One piece of a model's reply, as [`LlmClient::stream`](super::LlmClient::stream) yields it.
///
/// The text pieces of a reply concatenate to its text; the argument pieces of a call (same
/// `index`) concatenate to JSON text that parses to its arguments (`{}` for a call without
/// arguments; text that is not JSON becomes the arguments as a string, as `complete` reads it).
/// Each call is announced [`ToolCallReady`](StreamDelta::ToolCallReady) once its arguments are
/// complete, as soon as the stream shows it (the HTTP adapters: at the end of the call's block
/// or when the next call begins), and at the latest just before `Done`; the call it carries is
/// the one `Done` holds at its index. The last item of a stream that did not fail is
/// [`Done`](StreamDelta::Done) with the whole reply, assembled from the pieces.
///
/// The variants with named fields are `#[non_exhaustive]`: a stream of your own builds them
/// with [`tool_call_started`](Self::tool_call_started), [`tool_arguments`](Self::tool_arguments)
/// and [`tool_call_ready`](Self::tool_call_ready), and a `match` names the fields it reads
/// followed by `..`, so that a field added later breaks no one.
///
/// ```
/// use phi_agent::llm::StreamDelta;
/// let delta = StreamDelta::tool_arguments(0, r#"{"city":"#);
/// assert!(matches!(delta, StreamDelta::ToolArguments { index: 0, .. }));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamDelta {
    /// More of the reply's text.
    Text(String),
    /// The model begins a tool call. `index` is its place among the reply's calls, from 0.
    #[non_exhaustive]
    ToolCallStarted {
        /// The call's place in the reply.
        index: usize,
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of the arguments (JSON text) of the call at `index`.
    #[non_exhaustive]
    ToolArguments {
        /// The call's place in the reply.
        index: usize,
        /// The next piece of the arguments' JSON text.
        fragment: String,
    },
    /// The arguments of the call at `index` are complete: `call` is the whole call (id, name,
    /// parsed arguments), exactly as [`Done`](StreamDelta::Done) will hold it. No argument
    /// piece of this call follows. A stream may leave this out (a client of its own); the agent
    /// then takes the calls from `Done`.
    #[non_exhaustive]
    ToolCallReady {
        /// The call's place in the reply.
        index: usize,
        /// The call, parsed.
        call: ToolCall,
    },
    /// The reply is complete: text, parsed calls, usage, stop reason.
    Done(LlmResponse),
}

impl StreamDelta {
    /// [`ToolCallStarted`](Self::ToolCallStarted): the call at `index` (from 0) begins, with
    /// its `id` and the tool's `name`.
    pub fn tool_call_started(index: usize, id: impl Into<String>, name: impl Into<String>) -> Self {
        StreamDelta::ToolCallStarted {
            index,
            id: id.into(),
            name: name.into(),
        }
    }

    /// [`ToolArguments`](Self::ToolArguments): the next `fragment` of the arguments' JSON text
    /// of the call at `index`.
    pub fn tool_arguments(index: usize, fragment: impl Into<String>) -> Self {
        StreamDelta::ToolArguments {
            index,
            fragment: fragment.into(),
        }
    }

    /// [`ToolCallReady`](Self::ToolCallReady): the arguments of the call at `index` are
    /// complete, and `call` is the whole call.
    pub fn tool_call_ready(index: usize, call: ToolCall) -> Self {
        StreamDelta::ToolCallReady { index, call }
    }
}

/// The deltas of a whole `response`, its text and each call's arguments cut into pieces of at
/// most `piece` characters (no cut for `usize::MAX`), ending with `Done(response)`.
pub(crate) fn split_response(response: LlmResponse, piece: usize) -> Vec<StreamDelta> {
    let piece = piece.max(1);
    let mut deltas: Vec<StreamDelta> = pieces(&response.text, piece)
        .map(|text| StreamDelta::Text(text.to_string()))
        .collect();
    for (index, call) in response.tool_calls.iter().enumerate() {
        deltas.push(StreamDelta::ToolCallStarted {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
        });
        // `Value`'s own serialisation: it parses back to the same value (order kept).
        let json = call.arguments.to_string();
        deltas.extend(
            pieces(&json, piece).map(|fragment| StreamDelta::ToolArguments {
                index,
                fragment: fragment.to_string(),
            }),
        );
        deltas.push(StreamDelta::ToolCallReady {
            index,
            call: call.clone(),
        });
    }
    deltas.push(StreamDelta::Done(response));
    deltas
}

/// `text` in pieces of at most `piece` characters, cut at character boundaries.
fn pieces(text: &str, piece: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = rest
            .char_indices()
            .nth(piece)
            .map_or(rest.len(), |(at, _)| at);
        let (head, tail) = rest.split_at(cut);
        rest = tail;
        Some(head)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pieces_concatenate_to_the_reply() {
        let call = ToolCall::new("c1", "add", json!({"a": 1, "é": "ü€"}));
        let mut response = LlmResponse::tool_calls(vec![call.clone()]);
        response.text = "héllo wörld".into();
        for piece in [1, 2, 3, 7, usize::MAX] {
            let deltas = split_response(response.clone(), piece);
            let mut text = String::new();
            let mut args = String::new();
            for delta in &deltas {
                match delta {
                    StreamDelta::Text(t) => {
                        assert!(t.chars().count() <= piece);
                        text.push_str(t);
                    }
                    StreamDelta::ToolArguments { index: 0, fragment } => args.push_str(fragment),
                    StreamDelta::ToolCallReady {
                        index: 0,
                        call: ready,
                    } => {
                        assert_eq!(ready, &call);
                        assert_eq!(
                            serde_json::from_str::<serde_json::Value>(&args).unwrap(),
                            call.arguments,
                            "every piece is out before the call is ready"
                        );
                    }
                    _ => {}
                }
            }
            assert_eq!(text, response.text);
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&args).unwrap(),
                call.arguments
            );
            assert_eq!(deltas.last(), Some(&StreamDelta::Done(response.clone())));
        }
    }
}
