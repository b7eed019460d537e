//! A `generateContent` request, built from the conversation's types.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::{Map, Value};

use super::content::{
    FunctionCall, FunctionResponse, FunctionResult, Part, STATE_KEY, WireContent, is_made_up,
};
use crate::llm::lenient::Listed;
use crate::llm::tool_cache::SharedJson;
use crate::llm::{Message, ToolCall};

/// A `generateContent` request; the declarations are shared with earlier turns, not copied.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GenerateBody<'a> {
    /// An explicit cache holding the system instruction and the tools, which then stay out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) cached_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) system_instruction: Option<WireContent<'a>>,
    pub(super) contents: Vec<WireContent<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) tools: Option<Vec<FunctionDeclarations>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) generation_config: Option<GenerationConfig>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct FunctionDeclarations {
    pub(super) function_declarations: SharedJson,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GenerationConfig {
    pub(super) max_output_tokens: u32,
}

/// The system instruction (the request's system prompt, then the conversation's system
/// messages) and the contents of `messages`.
pub(super) fn contents<'a>(
    system: Option<&'a str>,
    messages: &'a [Message],
) -> (Option<WireContent<'a>>, Vec<WireContent<'a>>) {
    let mut system: Vec<&str> = system.into_iter().collect();
    let mut contents = Contents::default();
    // The calls of the last assistant turn, to answer its results by name and order.
    let mut open_calls: &[ToolCall] = &[];
    for message in messages {
        match message {
            Message::System { text } => system.push(text),
            Message::User { text } if !text.is_empty() => {
                contents.push("user", Part::text(Cow::Borrowed(text)))
            }
            Message::User { .. } => {}
            // Another provider's server-side search: nothing Gemini could read.
            Message::ToolSearch(_) => {}
            Message::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    contents.push("model", Part::text(Cow::Borrowed(text)));
                }
                for call in tool_calls {
                    contents.push("model", Part::from(call));
                }
                open_calls = tool_calls;
            }
            Message::Tool {
                tool_call_id,
                name,
                content,
                is_error,
            } => {
                // The call it answers gives the name Gemini knows; a result without one
                // (a history edited by hand) keeps its own.
                let call = open_calls.iter().find(|call| &call.id == tool_call_id);
                let name = call.map_or(name.as_str(), |call| call.name.as_str());
                let text = content
                    .iter()
                    .map(crate::Content::to_model_text)
                    .collect::<Vec<_>>()
                    .join("\n");
                let response = FunctionResponse {
                    name,
                    response: match is_error {
                        true => FunctionResult::Error(text),
                        false => FunctionResult::Output(text),
                    },
                    id: (!is_made_up(tool_call_id)).then_some(tool_call_id.as_str()),
                };
                contents.push("user", Part::from(response));
            }
        }
    }
    let system = (!system.is_empty()).then(|| WireContent {
        role: None,
        parts: Listed::Items(vec![Part::text(Cow::Owned(system.join("\n\n")))]),
    });
    (system, contents.0)
}

/// Contents under construction: consecutive parts of one role share a content, so that the
/// results of parallel calls go back in one user turn, as Gemini expects them.
#[derive(Default)]
struct Contents<'a>(Vec<WireContent<'a>>);

impl<'a> Contents<'a> {
    fn push(&mut self, role: &'static str, part: Part<'a>) {
        if let Some(last) = self.0.last_mut()
            && last.role.as_deref() == Some(role)
            && let Listed::Items(parts) = &mut last.parts
        {
            parts.push(part);
            return;
        }
        self.0.push(WireContent {
            role: Some(Cow::Borrowed(role)),
            parts: Listed::Items(vec![part]),
        });
    }
}

/// A call, as the part it came in: the call, then every other field of that part (its
/// `thoughtSignature`) as it came.
impl<'a> From<&'a ToolCall> for Part<'a> {
    fn from(call: &'a ToolCall) -> Self {
        // `args` is a Struct: arguments that were not a JSON object were already answered with
        // an error result, so the call is replayed with none.
        let args = match &call.arguments {
            Value::Object(_) => Cow::Borrowed(&call.arguments),
            _ => Cow::Owned(Value::Object(Map::new())),
        };
        let mut rest = Map::new();
        if let Some(Value::Object(fields)) = call.provider_state.get(STATE_KEY) {
            for (name, value) in fields {
                // The call itself is ours to write; every other field goes back as it came.
                if name != "functionCall" {
                    rest.insert(name.clone(), value.clone());
                }
            }
        }
        Part {
            function_call: Some(FunctionCall {
                name: Some(Cow::Borrowed(&call.name)),
                args: Some(args),
                id: (!is_made_up(&call.id)).then_some(Cow::Borrowed(call.id.as_str())),
            }),
            function_response: None,
            thought: false,
            text: None,
            rest,
        }
    }
}
