//! `tools/list` and `tools/call`: the session's active tools, and a call answered at once, as a
//! task ([`tasks`](super::tasks)), or (protocol 2026-07-28) in rounds of questions
//! ([`rounds`](super::rounds)).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateTaskResult,
    InputRequiredResult, ListToolsResult,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use super::approval;
use super::peer::{ClientPeer, LogFilter};
use super::polling::CallStream;
use super::rounds::{self, CallFuture, Finished, Round, Running, request_name};
use super::settings::McpServer;
use super::tasks::{self, Answer};
use crate::error::AgentError;
use crate::mcp::convert;
use crate::registry::{Ended, ToolCallResult};
use crate::tool::TaskSupport;

impl McpServer {
    /// `tools/list`: the session's active tools, in registration order.
    pub(super) async fn listed_tools(&self) -> ListToolsResult {
        let active = self.active_snapshot().await;
        let tools = (0..self.shared.definitions.len())
            .filter(|&index| active.is_active(index))
            .map(|index| self.shared.definitions[index].clone())
            .collect();
        ListToolsResult::with_all_items(tools)
    }

    /// `tools/call`: see [`ServerHandler::call_tool`](rmcp::ServerHandler::call_tool).
    pub(super) async fn serve_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let responses = rounds::checked_responses(request.input_responses)?;
        // The client answers the questions of a suspended call (2026-07-28): resume it.
        if let Some(state) = &request.request_state {
            let running = self
                .shared
                .rounds
                .resume(state, &rounds::tool_target(&request.name), responses)
                .map_err(|reason| ErrorData::invalid_params(reason, None))?;
            return self.round(running, &context).await;
        }
        let active = self.active_snapshot().await;
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let modern = context.protocol_version().is_some_and(|version| {
            version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
        });
        // On 2026-07-28 a tool's questions are input requests of the call's result, and the
        // call may outlive this request (it resumes with the resent one): its own token, which
        // each round's request cancels if the client cancels it. Before, rmcp cancels
        // `context.ct` when the client sends `notifications/cancelled` for this request; the
        // tool's token is a child of it, so the client's cancellation reaches the tool, while
        // the registry cancelling the tool's token on a timeout stays local.
        let (asker, questions) = if modern {
            // Answers sent with a fresh call answer its questions of the same keys at once.
            let (asker, questions) = rounds::questions(responses);
            (Some(asker), Some(questions))
        } else {
            (None, None)
        };
        let stop = if modern {
            tokio_util::sync::CancellationToken::new()
        } else {
            context.ct.clone()
        };
        // Looked up once: rmcp finds them in the request's `_meta` or the session's handshake.
        let capabilities = context.client_capabilities();
        let declared = capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        let can_elicit = capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.elicitation.is_some());
        // Put in by the HTTP server's sessions (`http::resumable`); absent elsewhere.
        let stream = context.extensions.get::<CallStream>().cloned();
        let peer = ClientPeer {
            peer: context.peer.clone(),
            progress_token: context.meta.get_progress_token(),
            logs: LogFilter::for_request(&self.session.threshold, &context.meta, modern),
            tool: request.name.to_string(),
            capabilities,
            asker,
            stream: stream.clone(),
        };
        let ctx = self
            .shared
            .context
            .for_call_under(&context.id.to_string(), &stop)
            .with_peer(Arc::new(peer));
        let registry = &self.shared.registry;
        // A call that needs approval asks the client's user first (see `approval`), in the
        // call's own future, so that at 2026-07-28 the question is a round like any other.
        let must_approve = registry
            .needs_approval(&active, &request.name, &arguments, &ctx)
            .await;
        let index = registry
            .position(&request.name)
            .filter(|&index| active.is_active(index));
        let support = index.map_or(TaskSupport::Forbidden, |index| {
            self.shared.task_support[index]
        });
        // SEP-2663 with SEP-2322: the call's questions (approval's too) come in rounds first,
        // and a later round answers with the task (`ToolOptions::ask_before_task`).
        let ask_first =
            questions.is_some() && index.is_some_and(|index| self.shared.ask_before_task[index]);
        let mut escalating = false;
        match tasks::answer(support, declared) {
            Answer::Result => {}
            Answer::Task if ask_first => escalating = true,
            Answer::Refuse => {
                return Err(ErrorData::missing_required_client_capability(
                    ClientCapabilities::builder().enable_tasks().build(),
                ));
            }
            // A task has no way to ask before it starts: refused as no one can approve it.
            Answer::Task if must_approve => {
                let refusal = ToolCallResult::error(&AgentError::ApprovalRequired {
                    tool: request.name.to_string(),
                });
                let protocol = context.protocol_version();
                return Ok(convert::call_result(refusal, protocol.as_ref()).into());
            }
            Answer::Task => {
                let task = self.start_task(request.name.to_string(), arguments, active, &context);
                return Ok(CallToolResponse::Task(CreateTaskResult::new(task)));
            }
        }
        if let Some(questions) = questions {
            let server = self.clone();
            let name = request.name.to_string();
            let call: CallFuture = Box::pin(async move {
                if must_approve
                    && let Some(refusal) = approval::ask(&ctx, &name, &arguments, can_elicit).await
                {
                    return Finished::Tool(refusal);
                }
                let registry = &server.shared.registry;
                match registry
                    .dispatch_ended(&active, &name, &arguments, &ctx)
                    .await
                {
                    Ended::Result(result) => Finished::Tool(result),
                    Ended::Panicked(result) => Finished::ToolPanicked(result),
                }
            });
            let target = rounds::tool_target(&request.name);
            let running = Running::new(target, call, questions, stop);
            let running = if escalating {
                running.escalating()
            } else {
                running
            };
            return self.round(running, &context).await;
        }
        let dispatch = async {
            if must_approve
                && let Some(refusal) =
                    approval::ask(&ctx, &request.name, &arguments, can_elicit).await
            {
                return refusal;
            }
            registry
                .dispatch(&active, &request.name, &arguments, &ctx)
                .await
        };
        let result = tokio::select! {
            result = dispatch => result,
            // The client gave up on the call: stop the tool (dropping its future) instead of
            // computing a result no one will read.
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error(
                    AgentError::Cancelled { tool: request.name.to_string() }.to_string(),
                    None,
                ));
            }
        };
        if let Some(stream) = &stream {
            // A tool that closed its stream: the result goes out once the client is back (or
            // has given up on the call).
            tokio::select! {
                () = stream.0.settle() => {}
                () = context.ct.cancelled() => {}
            }
        }
        self.finish(result, &context).await
    }

    /// A finished call's result, after re-evaluating the session's active tools.
    async fn finish(
        &self,
        result: ToolCallResult,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let protocol = context.protocol_version();
        if self.reevaluate().await {
            let modern = protocol.as_ref().is_some_and(|version| {
                version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
            });
            self.notify_tools_changed(&context.peer, modern).await;
        }
        Ok(convert::call_result(result, protocol.as_ref()).into())
    }

    /// Runs a call (2026-07-28) until it finishes, or asks: then `input_required`, with the
    /// question and the handle the client resends it with.
    async fn round(
        &self,
        running: Running,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = request_name(running.target());
        let escalates = running.escalates();
        match self.shared.rounds.drive(running, &context.ct).await {
            // A call to become a task is answered with one, even when it finished here.
            Round::Done(finished @ (Finished::Tool(_) | Finished::ToolPanicked(_)))
                if escalates =>
            {
                let task = self.escalate(Err(finished), &tool, context);
                Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
            }
            Round::Busy(running) => {
                let task = self.escalate(Ok(running), &tool, context);
                Ok(CallToolResponse::Task(CreateTaskResult::new(task)))
            }
            Round::Done(Finished::Tool(result) | Finished::ToolPanicked(result)) => {
                self.finish(result, context).await
            }
            Round::Done(Finished::Prompt(_)) => Err(ErrorData::internal_error(
                "a tool call finished as a prompt",
                None,
            )),
            Round::Ask { requests, state } => Ok(CallToolResponse::InputRequired(
                InputRequiredResult::new(Some(requests), Some(state)),
            )),
            Round::Cancelled => Err(ErrorData::internal_error(
                AgentError::Cancelled { tool }.to_string(),
                None,
            )),
            // SEP-2575: the request needed a capability it did not declare (HTTP 400).
            Round::Lacking(capability) => {
                Err(ErrorData::missing_required_client_capability(capability))
            }
        }
    }
}
