//! What a server asks of the client while it serves it: a person's answer (elicitation), a
//! model's reply (sampling) and the client's roots. Each is answered by what the options set,
//! and declared in the client's capabilities only then, so that a server never counts on an
//! answer nobody gives.
//!
//! Questions reach the client two ways: as requests of their own (`elicitation/create`,
//! `sampling/createMessage`, `roots/list`; protocol 2025-11-25), or inside a call's result
//! (`input_required`, 2026-07-28), which the tool answers and sends again. Either way the same
//! functions here answer them.

// rmcp marks sampling and roots deprecated by SEP-2577 (2026-07-28); 2025-11-25 servers use them.
#![allow(deprecated)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, FormElicitationCapability,
    InputRequest, InputRequests, InputResponses, ListRootsResult, Role, Root, RootsCapabilities,
    SamplingCapability, SamplingMessage, SamplingMessageContentBlock,
};
use serde_json::Value;

use super::options::McpClientOptions;
use crate::context::{Elicitation, ElicitationHandler, ElicitationRequest, ToolContext};
use crate::llm::{LlmClient, LlmRequest, StopReason};
use crate::message::Message;

/// The client's answers to a server's questions, from its options.
pub(super) struct Talk {
    elicitation: Option<Arc<dyn ElicitationHandler>>,
    sampler: Option<Arc<dyn LlmClient>>,
    roots: Vec<(String, Option<String>)>,
    /// The tool calls in flight: a question that arrives as a request of its own does not say
    /// which call asked, so it is credited to the call only when that is the one in flight.
    calls: Mutex<Vec<(u64, Asker)>>,
    next_call: AtomicU64,
}

/// Who asks: the call of an agent run whose tool call is served (empty outside a run, or when
/// the question cannot be traced to one call).
#[derive(Debug, Clone, Default)]
pub(super) struct Asker {
    session_id: String,
    turn: usize,
    call_id: String,
}

impl Asker {
    pub(super) fn of(ctx: &ToolContext) -> Self {
        Self {
            session_id: ctx.session_id().to_string(),
            turn: ctx.turn(),
            call_id: ctx.tool_call_id().to_string(),
        }
    }
}

/// Registers a call in flight for as long as it lives.
pub(super) struct InFlight<'a> {
    talk: &'a Talk,
    id: u64,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.talk
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(id, _)| *id != self.id);
    }
}

impl Talk {
    pub(super) fn new(options: &McpClientOptions) -> Self {
        Self {
            elicitation: options.elicitation_handler.clone(),
            sampler: options.sampling_model.clone(),
            roots: options.roots.clone(),
            calls: Mutex::new(Vec::new()),
            next_call: AtomicU64::new(0),
        }
    }

    /// What the client declares: only what it can answer.
    pub(super) fn capabilities(&self) -> ClientCapabilities {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitation.is_some() {
            let mut elicitation = ElicitationCapability::new();
            elicitation.form = Some(FormElicitationCapability::new());
            capabilities.elicitation = Some(elicitation);
        }
        if self.sampler.is_some() {
            capabilities.sampling = Some(SamplingCapability::default());
        }
        if !self.roots.is_empty() {
            capabilities.roots = Some(RootsCapabilities::default());
        }
        capabilities
    }

    /// Marks a call as in flight until the guard drops.
    pub(super) fn enter(&self, asker: Asker) -> InFlight<'_> {
        let id = self.next_call.fetch_add(1, Ordering::Relaxed);
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((id, asker));
        InFlight { talk: self, id }
    }

    /// The call a question of its own is credited to: the only one in flight, if it is.
    pub(super) fn sole_asker(&self) -> Asker {
        let calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        match calls.as_slice() {
            [(_, asker)] => asker.clone(),
            _ => Asker::default(),
        }
    }

    /// Asks the handler; the fields the person left out that have a `default` in the form get
    /// it (SEP-1034: a client applies the defaults of the form).
    pub(super) async fn elicit(
        &self,
        params: ElicitRequestParams,
        asker: &Asker,
    ) -> Result<ElicitResult, ErrorData> {
        let Some(handler) = &self.elicitation else {
            return Err(ErrorData::method_not_found::<
                rmcp::model::ElicitationCreateRequestMethod,
            >());
        };
        let (message, schema) = match params {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => (
                message,
                serde_json::to_value(requested_schema).unwrap_or(Value::Null),
            ),
            // This client declares forms only; a link for the person to open has no handler.
            _ => {
                return Ok(ElicitResult::new(ElicitationAction::Decline));
            }
        };
        let request = ElicitationRequest::new(
            asker.session_id.as_str(),
            asker.turn,
            asker.call_id.as_str(),
            message,
            schema.clone(),
        );
        Ok(match handler.answer(request).await {
            Elicitation::Accept(content) => ElicitResult::new(ElicitationAction::Accept)
                .with_content(with_defaults(content, &schema)),
            Elicitation::Decline => ElicitResult::new(ElicitationAction::Decline),
            Elicitation::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }

    /// Asks the sampling model with the server's messages and system prompt (no tools).
    pub(super) async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ErrorData> {
        let Some(model) = &self.sampler else {
            return Err(ErrorData::method_not_found::<
                rmcp::model::CreateMessageRequestMethod,
            >());
        };
        let messages = params
            .messages
            .into_iter()
            .map(|message| {
                let text = sampling_text(message.content.into_vec());
                match message.role {
                    Role::User => Message::user(text),
                    Role::Assistant => Message::assistant(text),
                }
            })
            .collect();
        let mut request = LlmRequest::new(messages);
        if let Some(system) = params.system_prompt {
            request = request.with_system(system);
        }
        let reply = model.complete(&request).await.map_err(|error| {
            ErrorData::internal_error(format!("the client's model failed: {error}"), None)
        })?;
        let stop = match reply.stop_reason {
            StopReason::EndTurn => CreateMessageResult::STOP_REASON_END_TURN.to_string(),
            StopReason::ToolUse => CreateMessageResult::STOP_REASON_TOOL_USE.to_string(),
            StopReason::MaxTokens => CreateMessageResult::STOP_REASON_END_MAX_TOKEN.to_string(),
            StopReason::Other(other) => other,
        };
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text(reply.text),
            model.model().to_string(),
        )
        .with_stop_reason(stop))
    }

    /// The roots the options name.
    pub(super) fn roots(&self) -> Result<ListRootsResult, ErrorData> {
        if self.roots.is_empty() {
            return Err(ErrorData::method_not_found::<
                rmcp::model::ListRootsRequestMethod,
            >());
        }
        let roots = self
            .roots
            .iter()
            .map(|(uri, name)| {
                let mut root = Root::new(uri.clone());
                root.name = name.clone();
                root
            })
            .collect();
        Ok(ListRootsResult::new(roots))
    }

    /// Answers the questions of an `input_required` result, each by its key, for the retry.
    pub(super) async fn fulfil(
        &self,
        requests: InputRequests,
        asker: &Asker,
    ) -> Result<InputResponses, ErrorData> {
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let answer = match request {
                InputRequest::Elicitation(request) => {
                    to_json(self.elicit(request.params, asker).await?)
                }
                InputRequest::CreateMessage(request) => to_json(self.sample(request.params).await?),
                InputRequest::ListRoots(_) => to_json(self.roots()?),
                _ => {
                    return Err(ErrorData::invalid_params(
                        format!("the input request `{key}` is of a kind this client does not know"),
                        None,
                    ));
                }
            };
            responses.insert(key, answer);
        }
        Ok(responses)
    }
}

fn to_json(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The text of a sampling message; what a text model cannot read is named in its place.
fn sampling_text(blocks: Vec<SamplingMessageContentBlock>) -> String {
    blocks
        .iter()
        .map(|block| match block {
            SamplingMessageContentBlock::Text(text) => text.text.clone(),
            SamplingMessageContentBlock::Image(_) => "[an image]".to_string(),
            SamplingMessageContentBlock::Audio(_) => "[an audio clip]".to_string(),
            _ => "[content the client's model cannot read]".to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `content` with the `default` of every property of `schema` it lacks.
fn with_defaults(content: Value, schema: &Value) -> Value {
    let Value::Object(mut fields) = content else {
        return content;
    };
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, property) in properties {
            if let Some(default) = property.get("default")
                && !fields.contains_key(name)
            {
                fields.insert(name.clone(), default.clone());
            }
        }
    }
    Value::Object(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_only_the_fields_left_out() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "city": {"type": "string"},
        }});
        let filled = with_defaults(json!({"age": 41}), &schema);
        assert_eq!(filled, json!({"name": "John Doe", "age": 41}));
        assert_eq!(with_defaults(json!("odd"), &schema), json!("odd"));
    }
}
