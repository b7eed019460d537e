//! `prompts/get` served: a prompt's messages at once, or (protocol 2026-07-28, a prompt made
//! with [`Prompt::asking`](super::Prompt::asking)) after rounds of questions
//! ([`rounds`](super::rounds)), as a tool call's.

use std::sync::Arc;

use rmcp::model::{GetPromptRequestParams, GetPromptResponse, InputRequiredResult};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use super::peer::{ClientPeer, LogFilter};
use super::prompts::{arguments_of, result_of};
use super::rounds::{self, CallFuture, Finished, Round, Running};
use super::settings::McpServer;

impl McpServer {
    /// `prompts/get`: the messages of the prompt `request` names, made from its arguments; a
    /// prompt that asks the client first (2026-07-28) is answered `input_required`, and the
    /// resent request resumes it ([`rounds`](super::rounds)).
    pub(super) async fn serve_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let responses = rounds::checked_responses(request.input_responses.take())?;
        let target = rounds::prompt_target(&request.name);
        if let Some(state) = &request.request_state {
            let running = self
                .shared
                .rounds
                .resume(state, &target, responses)
                .map_err(|reason| ErrorData::invalid_params(reason, None))?;
            return self.prompt_round(running, &context).await;
        }
        let (prompt, arguments) = arguments_of(&self.shared.prompts, &request)?;
        let modern = context.protocol_version().is_some_and(|version| {
            version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
        });
        let (asker, questions) = if modern {
            let (asker, questions) = rounds::questions(responses);
            (Some(asker), Some(questions))
        } else {
            (None, None)
        };
        // As for a tool call (see `serve_call`): on 2026-07-28 the prompt may outlive this
        // request, so it gets a token of its own.
        let stop = if modern {
            tokio_util::sync::CancellationToken::new()
        } else {
            context.ct.clone()
        };
        let peer = ClientPeer {
            peer: context.peer.clone(),
            progress_token: context.meta.get_progress_token(),
            logs: LogFilter::for_request(&self.session.threshold, &context.meta, modern),
            tool: format!("prompt {}", prompt.name),
            capabilities: context.client_capabilities(),
            asker,
            stream: None,
        };
        let ctx = self
            .shared
            .context
            .for_call_under(&context.id.to_string(), &stop)
            .with_peer(Arc::new(peer));
        let messages = (prompt.get)(arguments, ctx);
        let description = prompt.description.clone();
        let Some(questions) = questions else {
            return result_of(description, messages.await).map(Into::into);
        };
        let call: CallFuture =
            Box::pin(async move { Finished::Prompt(result_of(description, messages.await)) });
        let running = Running::new(target, call, questions, stop);
        self.prompt_round(running, &context).await
    }

    /// Runs a prompt's round (2026-07-28): its messages, or `input_required`.
    async fn prompt_round(
        &self,
        running: Running,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        match self.shared.rounds.drive(running, &context.ct).await {
            Round::Done(Finished::Prompt(result)) => result.map(Into::into),
            Round::Done(Finished::Tool(_) | Finished::ToolPanicked(_)) => Err(
                ErrorData::internal_error("a prompt finished as a tool call", None),
            ),
            // A prompt is never made escalating.
            Round::Busy(_) => Err(ErrorData::internal_error(
                "a prompt was to become a task",
                None,
            )),
            Round::Ask { requests, state } => Ok(GetPromptResponse::InputRequired(
                InputRequiredResult::new(Some(requests), Some(state)),
            )),
            Round::Cancelled => Err(ErrorData::internal_error(
                "the client cancelled the prompts/get request",
                None,
            )),
            Round::Lacking(capability) => {
                Err(ErrorData::missing_required_client_capability(capability))
            }
        }
    }
}
