//! Tools calls answered with a task (the `io.modelcontextprotocol/tasks` extension, SEP-2663):
//! which calls get one, the tool running on in the background, and what it says meanwhile.
//!
//! rmcp's [`TaskManager`] keeps the tasks (their status, the questions they wait on, their
//! results until their time to live runs out) and answers `tasks/get`, `tasks/update` and
//! `tasks/cancel`; this module decides per call and runs the call as the task's operation.
//! One manager serves every session of a server: a client may poll from another session, or
//! (stateless HTTP, 2026-07-28) from no session at all.

#![allow(deprecated)] // rmcp marks sampling as deprecated by SEP-2577 (2026-07-28); task input still carries it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult,
    InputRequest,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskContext, TaskExit, TaskOptions};
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use super::peer::{
    ClientPeer, LogFilter, elicit_params, elicitation_of, failed, sampled_of, sampling_params,
    status_of, unsupported,
};
use super::rounds::{CallFuture, Finished, Running};
use super::settings::McpServer;
use crate::context::{Elicitation, LogLevel, Progress, SampleRequest, Sampled, ToolPeer};
use crate::error::{AgentError, AgentResult};
use crate::mcp::convert;
use crate::registry::{ActiveTools, Ended};
use crate::tool::TaskSupport;

/// How a `tools/call` is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// With the call's result, as always.
    Result,
    /// With a task.
    Task,
    /// With "Missing required client capability": the tool only runs as a task, and the
    /// client did not declare the extension.
    Refuse,
}

/// How a call of a tool with `support` is answered, for a client that declared the tasks
/// extension on the request (`declared`) or not.
pub(crate) fn answer(support: TaskSupport, declared: bool) -> Answer {
    match (support, declared) {
        (TaskSupport::Optional | TaskSupport::Required, true) => Answer::Task,
        (TaskSupport::Required, false) => Answer::Refuse,
        _ => Answer::Result,
    }
}

impl McpServer {
    /// Starts the call of `name` as a task and returns the task's first state, once
    /// `tasks/get` can find it. The call runs as any other does (the same dispatch, decoding,
    /// timeout and activation), with a peer that talks through the task; `tasks/cancel` stops
    /// it as a client's cancellation stops a call.
    pub(super) fn start_task(
        &self,
        name: String,
        arguments: Value,
        active: Arc<ActiveTools>,
        context: &RequestContext<RoleServer>,
    ) -> rmcp::model::Task {
        let options = self.task_options(&name);
        let server = self.clone();
        let peer = context.peer.clone();
        let capabilities = context.client_capabilities();
        let protocol = context.protocol_version();
        let modern = protocol.as_ref().is_some_and(|version| {
            version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
        });
        let logs = LogFilter::for_request(&self.session.threshold, &context.meta, modern);
        let call_id = context.id.to_string();
        self.shared.tasks.spawn(options, move |task| {
            // The call's own token: the request that made the task is over, and its token
            // with it; `tasks/cancel` cancels this one.
            let stop = tokio_util::sync::CancellationToken::new();
            let talk = TaskPeer {
                task: task.clone(),
                capabilities: capabilities.clone(),
                client: ClientPeer {
                    peer: peer.clone(),
                    progress_token: None,
                    logs,
                    tool: name.clone(),
                    capabilities,
                    asker: None,
                    // A task's result is fetched with `tasks/result`: no stream to close.
                    stream: None,
                },
                asked: AtomicUsize::new(0),
            };
            let ctx = server
                .shared
                .context
                .for_call_under(&call_id, &stop)
                .with_peer(Arc::new(talk));
            Box::pin(async move {
                let registry = server.shared.registry.clone();
                let dispatch = registry.dispatch_ended(&active, &name, &arguments, &ctx);
                let result = tokio::select! {
                    ended = dispatch => match ended {
                        Ended::Result(result) => result,
                        // The server's failure, not the tool's answer: SEP-2663 keeps
                        // `completed` with `isError` for what the tool reported, and `failed`
                        // (with a JSON-RPC error) for a call the server could not finish.
                        Ended::Panicked(result) => {
                            let message = result.to_model_text();
                            return Err(TaskExit::Error(ErrorData::internal_error(message, None)));
                        }
                    },
                    () = task.cancelled() => {
                        stop.cancel();
                        return Err(TaskExit::Cancelled);
                    }
                };
                if server.reevaluate().await {
                    let modern = protocol.as_ref().is_some_and(|version| {
                        version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
                    });
                    server.notify_tools_changed(&peer, modern).await;
                }
                Ok(convert::call_result(result, protocol.as_ref()))
            })
        })
    }
}

impl McpServer {
    /// The options of a task that runs the tool `name`.
    fn task_options(&self, name: &str) -> TaskOptions {
        let mut options = TaskOptions::new()
            .with_ttl_ms(self.shared.task_ttl.map(millis))
            .with_poll_interval_ms(millis(self.shared.task_poll_interval));
        options.status_message = Some(format!("tool `{name}` is running"));
        options
    }

    /// Makes `running`, a call [made to escalate](Running::escalating) whose round found it
    /// busy, a task (SEP-2663's composition with SEP-2322's rounds, see
    /// [`ToolOptions::ask_before_task`](crate::ToolOptions::ask_before_task)), or, when
    /// `running` is `Err`, a task of how the call finished in its round (failed if it panicked). Returns
    /// the task's first state, for the round's `tools/call` to answer with.
    pub(super) fn escalate(
        &self,
        running: Result<Running, Finished>,
        tool: &str,
        context: &RequestContext<RoleServer>,
    ) -> rmcp::model::Task {
        let options = self.task_options(tool);
        let server = self.clone();
        let peer = context.peer.clone();
        let protocol = context.protocol_version();
        self.shared.tasks.spawn(options, move |task| {
            let (call, stop) = match running {
                Ok(running) => {
                    let asking = task.clone();
                    running.into_task(task.clone(), move |key, request| {
                        let task = asking.clone();
                        Box::pin(async move { task.request_input(key, request).await.ok() })
                    })
                }
                Err(finished) => {
                    let done: CallFuture = Box::pin(std::future::ready(finished));
                    (done, tokio_util::sync::CancellationToken::new())
                }
            };
            Box::pin(async move {
                let finished = tokio::select! {
                    finished = call => finished,
                    () = task.cancelled() => {
                        stop.cancel();
                        return Err(TaskExit::Cancelled);
                    }
                };
                let result = match finished {
                    Finished::Tool(result) => result,
                    // As for a task started at once: the server's failure, not the tool's answer.
                    Finished::ToolPanicked(result) => {
                        let message = result.to_model_text();
                        return Err(TaskExit::Error(ErrorData::internal_error(message, None)));
                    }
                    Finished::Prompt(_) => {
                        return Err(TaskExit::Error(ErrorData::internal_error(
                            "a tool call finished as a prompt",
                            None,
                        )));
                    }
                };
                if server.reevaluate().await {
                    let modern = protocol.as_ref().is_some_and(|version| {
                        version.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
                    });
                    server.notify_tools_changed(&peer, modern).await;
                }
                Ok(convert::call_result(result, protocol.as_ref()))
            })
        })
    }
}

/// Whole milliseconds, as MCP counts task times (saturating: a duration beyond `u64`
/// milliseconds is not one anyone waits for).
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The peer of a call that runs as a task. The `tools/call` was answered long ago, so nothing
/// can ride on its response: progress becomes the task's status message (what `tasks/get`
/// shows), questions become the task's `inputRequests` (answered with `tasks/update`), and log
/// messages go to the client as notifications, as for any call.
pub(crate) struct TaskPeer {
    pub(crate) task: TaskContext,
    /// What the client declared on the request that made the task.
    pub(crate) capabilities: Option<ClientCapabilities>,
    /// For log messages; it has no progress token.
    pub(crate) client: ClientPeer,
    /// Numbers the task's questions: a key names one request over the task's whole life.
    pub(crate) asked: AtomicUsize,
}

impl std::fmt::Debug for TaskPeer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskPeer")
            .field("task", &self.task.task_id())
            .field("tool", &self.client.tool)
            .finish_non_exhaustive()
    }
}

impl TaskPeer {
    /// Puts `request` to the client as the task's next input request and waits for the
    /// answer, decoded as `T`.
    async fn ask<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        request: InputRequest,
    ) -> AgentResult<T> {
        let number = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
        let key = format!("{what}-{number}");
        let answer = self
            .task
            .request_input(key, request)
            .await
            .map_err(|exit| match exit {
                TaskExit::Cancelled => AgentError::Cancelled {
                    tool: self.client.tool.clone(),
                },
                TaskExit::Error(error) => {
                    failed(&self.client.tool, what, error.message.to_string())
                }
            })?;
        serde_json::from_value(answer).map_err(|error| {
            failed(
                &self.client.tool,
                what,
                format!("the answer in tasks/update is not a {what} result: {error}"),
            )
        })
    }
}

#[async_trait]
impl ToolPeer for TaskPeer {
    async fn progress(&self, progress: Progress) {
        self.task.set_status_message(status_of(progress));
    }

    async fn log(&self, level: LogLevel, data: Value) {
        self.client.log(level, data).await;
    }

    async fn elicit(&self, message: &str, schema: Value) -> AgentResult<Elicitation<Value>> {
        let supported = self
            .capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.elicitation.is_some());
        if !supported {
            return Err(unsupported(
                &self.client.tool,
                "ask the user a question (elicitation)",
            ));
        }
        let request = ElicitRequest::new(elicit_params(message, schema)?);
        let answer: ElicitResult = self
            .ask("elicitation", InputRequest::Elicitation(request))
            .await?;
        Ok(elicitation_of(answer))
    }

    async fn sample(&self, request: SampleRequest) -> AgentResult<Sampled> {
        let supported = self
            .capabilities
            .as_ref()
            .is_some_and(|capabilities| capabilities.sampling.is_some());
        if !supported {
            return Err(unsupported(
                &self.client.tool,
                "ask the client's model (sampling)",
            ));
        }
        let request = CreateMessageRequest::new(sampling_params(request));
        let answer: CreateMessageResult = self
            .ask("sampling", InputRequest::CreateMessage(request))
            .await?;
        Ok(sampled_of(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_declaring_client_gets_a_task_and_required_refuses_the_others() {
        use Answer::*;
        use TaskSupport::*;
        let cases = [
            (Forbidden, false, Result),
            (Forbidden, true, Result),
            (Optional, false, Result),
            (Optional, true, Task),
            (Required, false, Refuse),
            (Required, true, Task),
        ];
        for (support, declared, expected) in cases {
            assert_eq!(
                answer(support, declared),
                expected,
                "{support:?} {declared}"
            );
        }
    }
}
