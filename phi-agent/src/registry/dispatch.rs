//! One tool call: lookup and exposure check, argument shape, size and depth checks, the call under a timeout and a
//! panic guard, then output truncation. Every failure becomes an error result the model can read.

use std::any::Any;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use serde_json::Value;

use super::activation::ActiveTools;
use super::deadline::with_deadline;
use super::registered::RegisteredTool;
use super::tool_registry::ToolRegistry;
use crate::content::Content;
use crate::context::ToolContext;
use crate::decode;
use crate::error::{AgentError, AgentResult, mistakes};
use crate::tool::FastPath;

/// The outcome of one tool call, ready to be shown to the model.
///
/// `#[non_exhaustive]`: build one with [`success`](Self::success) or [`error`](Self::error).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCallResult {
    /// What the model reads: the tool's output, or the error message.
    pub content: Vec<Content>,
    /// Whether the call failed (unavailable tool, bad arguments, timeout, panic, tool error).
    pub is_error: bool,
}

impl ToolCallResult {
    /// A successful result.
    pub fn success(content: Vec<Content>) -> Self {
        Self {
            content,
            is_error: false,
        }
    }

    /// A failed result whose text is `error`'s message.
    pub fn error(error: &AgentError) -> Self {
        Self {
            content: vec![Content::text(error.to_string())],
            is_error: true,
        }
    }

    /// All content as one text, the way a text-only provider shows it.
    pub fn to_model_text(&self) -> String {
        crate::content::model_text(&self.content)
    }
}

/// How a call ended: with its result (a failed one included), or with the tool's panic, whose
/// result says so.
pub(crate) enum Ended {
    /// The call's result.
    Result(ToolCallResult),
    /// The tool panicked; the panic was contained, and this result says so.
    Panicked(ToolCallResult),
}

impl Ended {
    /// The result either way: what a model reads.
    #[inline]
    pub(crate) fn into_result(self) -> ToolCallResult {
        match self {
            Ended::Result(result) | Ended::Panicked(result) => result,
        }
    }
}

impl ToolRegistry {
    /// Runs the model's call of `name`: the tool must be active in `set`.
    ///
    /// A hidden, inactive or unknown tool gets one and the same "not available" error, so that
    /// nothing about hidden tools leaks. `ctx` is this call's own context: its cancellation token
    /// is cancelled when the call times out, so work the tool spawned can stop too.
    pub async fn dispatch(
        &self,
        set: &ActiveTools,
        name: &str,
        args: &Value,
        ctx: &ToolContext,
    ) -> ToolCallResult {
        self.dispatch_ended(set, name, args, ctx)
            .await
            .into_result()
    }

    /// [`dispatch`](Self::dispatch), telling a tool's panic from its result: an MCP task
    /// reports a panic as the server's failure (`failed`), not as the tool's (`isError`).
    pub(crate) async fn dispatch_ended(
        &self,
        set: &ActiveTools,
        name: &str,
        args: &Value,
        ctx: &ToolContext,
    ) -> Ended {
        match self.index_of(name).filter(|&index| set.is_active(index)) {
            Some(index) => self.run(&self.tools[index], args, ctx).await,
            None => {
                self.dispatch_live(name, args, ctx, || set.names_for_message())
                    .await
            }
        }
    }

    /// A call of a name the registry's own active tools do not have: a live tool's
    /// ([`ToolSource`](super::ToolSource)), or "not available" (a live tool the source removed
    /// included) listing `available` and the live tools.
    #[cold]
    async fn dispatch_live(
        &self,
        name: &str,
        args: &Value,
        ctx: &ToolContext,
        available: impl FnOnce() -> String,
    ) -> Ended {
        let live = self.live_set();
        if let Some(tool) = live.as_deref().and_then(|live| live.get(name)) {
            return self.run(tool, args, ctx).await;
        }
        let mut available = available();
        for tool in live.iter().flat_map(|live| live.tools()) {
            if available == "(none)" {
                available.clear();
            } else if !available.is_empty() {
                available.push_str(", ");
            }
            available.push_str(tool.name);
        }
        Ended::Result(ToolCallResult::error(&AgentError::ToolNotAvailable {
            name: name.to_string(),
            available,
        }))
    }

    /// Whether `args` would pass every check a call of the tool `name` gets before the tool
    /// runs (shape, size and depth, the schema of a hand-written tool, a typed tool's decode),
    /// without running it: for arguments a person edits ([`Approval::ApproveWith`]), so that
    /// they can be refused while the person is still there, rather than reach the model as an
    /// argument error. Any registered tool, hidden and inactive ones included; `Ok` for a name
    /// the registry does not hold (a live tool's server checks its own).
    ///
    /// [`Approval::ApproveWith`]: crate::Approval::ApproveWith
    ///
    /// ```
    /// use phi_agent::registry::ToolRegistry;
    /// use phi_agent::{ToolConfig, phi_tool, tools};
    ///
    /// /// Pay an amount, in cents.
    /// #[phi_tool]
    /// async fn pay(amount: u64) -> String {
    ///     format!("paid {amount}")
    /// }
    ///
    /// let mut registry = ToolRegistry::new(ToolConfig::default());
    /// registry.register_all(tools![pay]).unwrap();
    /// assert!(registry.check_arguments("pay", &serde_json::json!({"amount": 10})).is_ok());
    /// let refused = registry.check_arguments("pay", &serde_json::json!({"amount": "ten"}));
    /// assert!(refused.unwrap_err().to_string().contains("`amount`"));
    /// ```
    pub fn check_arguments(&self, name: &str, args: &Value) -> AgentResult<()> {
        let Some(tool) = self.get(name) else {
            return Ok(());
        };
        if let Some(error) = self.precheck(tool, args) {
            return Err(error);
        }
        match tool.target.__fast_path() {
            FastPath::Typed(typed) => typed.check_arguments(args),
            _ => Ok(()),
        }
    }

    /// Runs any registered tool, hidden and inactive ones included: for the program itself,
    /// never for calls that come from a model.
    pub async fn call_internal(
        &self,
        name: &str,
        args: &Value,
        ctx: &ToolContext,
    ) -> ToolCallResult {
        let ended = match self.get(name) {
            Some(tool) => self.run(tool, args, ctx).await,
            None => {
                let own = || {
                    self.tools
                        .iter()
                        .map(|t| t.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                self.dispatch_live(name, args, ctx, own).await
            }
        };
        ended.into_result()
    }

    /// Whether the model's call of `name` with `args` must wait for a person
    /// ([`ToolOptions::approval`](crate::ToolOptions::approval)).
    ///
    /// `false` whenever [`dispatch`](Self::dispatch) would refuse the call before running it
    /// (unavailable tool, arguments of the wrong shape, too large or too deep): the call then
    /// fails with that error, and no one is asked to approve a call that cannot run. A
    /// predicate that panics counts as `true`, so that a broken check never lets a call through
    /// unseen.
    pub async fn needs_approval(
        &self,
        set: &ActiveTools,
        name: &str,
        args: &Value,
        ctx: &ToolContext,
    ) -> bool {
        let live;
        let tool = match self.index_of(name).filter(|&index| set.is_active(index)) {
            Some(index) => &self.tools[index],
            None => {
                live = self.live_set();
                match live.as_deref().and_then(|live| live.get(name)) {
                    Some(tool) => tool,
                    None => return false,
                }
            }
        };
        // Most tools never ask: no need to check arguments no one will be asked about.
        if tool.approval.is_never() || self.precheck(tool, args).is_some() {
            return false;
        }
        AssertUnwindSafe(tool.approval.is_needed(args, ctx))
            .catch_unwind()
            .await
            .unwrap_or(true)
    }

    /// The error of a call refused before the tool sees it: arguments of the wrong shape, too
    /// large, nested too deep, or (a hand-written tool's) refused by its schema.
    fn precheck(&self, tool: &RegisteredTool, args: &Value) -> Option<AgentError> {
        if let Some(error) = shape_error(tool.name, args) {
            return Some(error);
        }
        if let Some(error) = decode::past_limits(tool.name, args, self.config.max_argument_bytes) {
            return Some(error);
        }
        // What a hand-written tool's schema refuses never reaches its `call`.
        #[cfg(feature = "schema-validation")]
        if tool.checks_arguments {
            return tool.schema.refuse(tool.name, args);
        }
        None
    }

    async fn run(&self, tool: &RegisteredTool, args: &Value, ctx: &ToolContext) -> Ended {
        // A tool that measures its arguments as it decodes them (a typed tool: its decoder
        // visits every part anyway) is spared the walk; it refuses what the walk would, with
        // the same errors, before any other mistake.
        let refused = if tool.typed {
            shape_error(tool.name, args)
        } else {
            self.precheck(tool, args)
        };
        if let Some(error) = refused {
            return Ended::Result(ToolCallResult::error(&error));
        }
        // Admitted after the checks, so that a call refused for its arguments counts against
        // no rate; held until the call is done, so that it counts against the bound until then.
        let _admitted = match &tool.limiter {
            None => None,
            Some(limiter) => match limiter.admit(tool.name, ctx.session_id()).await {
                Ok(admitted) => Some(admitted),
                Err(error) => return Ended::Result(ToolCallResult::error(&error)),
            },
        };
        let limit = self.config.max_argument_bytes;
        // The timeout sits inside the panic guard so that a panic while the timed-out future is
        // dropped is caught as well; so does the call itself, where a typed tool decodes.
        let guarded = async {
            let call = match tool.target.__fast_path() {
                FastPath::Typed(typed) => typed.call_within(args, ctx, limit),
                _ => tool.target.call(args, ctx),
            };
            with_deadline(tool.timeout, call).await
        };
        let result = match AssertUnwindSafe(guarded).catch_unwind().await {
            Ok(Ok(Ok(content))) => {
                ToolCallResult::success(crate::budget::fit(content, tool.result_limit))
            }
            Ok(Ok(Err(error))) => ToolCallResult::error(&error),
            Ok(Err(_elapsed)) => {
                ctx.cancellation().cancel();
                ToolCallResult::error(&AgentError::Timeout {
                    tool: tool.name.to_string(),
                    timeout_ms: tool.timeout.as_millis() as u64,
                })
            }
            Err(payload) => {
                return Ended::Panicked(ToolCallResult::error(&AgentError::ToolPanicked {
                    tool: tool.name.to_string(),
                    message: panic_message(payload.as_ref()),
                }));
            }
        };
        Ended::Result(result)
    }
}

/// Arguments must be one JSON object (or `null`, which tools read as no arguments). Adapters keep
/// arguments that were not JSON as a string, so the model hears what it sent and what to fix.
#[inline]
fn shape_error(tool: &str, args: &Value) -> Option<AgentError> {
    match args {
        Value::Object(_) | Value::Null => None,
        other => Some(not_an_object(tool, other)),
    }
}

/// The error of arguments that are neither an object nor `null`.
#[cold]
fn not_an_object(tool: &str, args: &Value) -> AgentError {
    let message = match args {
        Value::String(raw) => mistakes::arguments_are_text(raw),
        Value::Array(_) => mistakes::arguments_are_an_array(),
        scalar => mistakes::arguments_are_a_scalar(scalar),
    };
    AgentError::InvalidArguments {
        tool: tool.to_string(),
        path: crate::error::ROOT_PATH.into(),
        message,
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(message) = payload.downcast_ref::<&str>() {
        message.to_string()
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message.clone()
    } else {
        "a non-string panic payload".to_string()
    }
}
