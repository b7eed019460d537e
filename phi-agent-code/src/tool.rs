//! The `run_code` tool: the model's program in the sandbox, its tool calls made through the run
//! ([`ToolContext::call_tool`]), its value and printed output as the result.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use phi_agent::{AgentError, AgentResult, Content, Tool, ToolContext, ToolExposure, static_text};
use serde_json::{Value, json};

use crate::limits::CodeLimits;
use crate::sandbox::{self, Finished, Program, Request};
use crate::stubs;

/// Which of the given tools a program may call.
type Callable = Arc<dyn Fn(&dyn Tool) -> bool + Send + Sync>;

/// The `run_code` tool over a set of tools: the model writes one small
/// [Rhai](https://rhai.rs) program that calls them, and reads back only the program's value and
/// what it printed. Register it beside the tools (they stay callable directly too, unless a
/// marker or exposure says otherwise).
///
/// Each tool the program calls is a call of the run's own
/// ([`ToolContext::call_tool`]): checked, timed, approved and journaled exactly like the model's
/// calls, under the step key `turn/<n>/tool/<run_code's call id>/call/<k>`. The tools the
/// program may call appear in `run_code`'s description as typed stubs made from their schemas
/// and descriptions; Direct tools have a stub each, and every callable tool (a Deferred one once
/// tool search found it) is reachable with `call_tool("name", #{..})`. The description is made
/// once, so it is byte-identical on every turn.
///
/// A tool marked for code only ([`ToolCallers::Code`](phi_agent::ToolCallers::Code)) is left out
/// of the tools the model is sent, so the model reaches it through `run_code` alone; one marked
/// for direct calls only gets no stub and is refused to programs. A call that needs approval
/// pauses the run (each time: a program with two such calls pauses twice), and the program runs
/// again on resume with its finished calls answered from the paused state.
///
/// Not supported: nested calls under `phi-agent-restate` (a Restate journal entry cannot hold
/// the entries of the calls made inside it; such a call is refused with a terminal error), and
/// restoring a paused program's state (it is replayed instead). The crate's README lists the rest,
/// with the reasons.
///
/// ```
/// use std::sync::Arc;
/// use phi_agent::{phi_tool, tools, Tool};
/// use phi_agent_code::RunCode;
///
/// /// The price of an item, in cents.
/// #[phi_tool]
/// async fn price(sku: String) -> u64 {
///     sku.len() as u64 * 100
/// }
///
/// let tools = tools![price];
/// let run_code = RunCode::new(&tools);
/// assert!(run_code.description().contains("price(#{\n    sku: string,\n})"));
/// ```
#[derive(Clone)]
pub struct RunCode {
    tools: Vec<Arc<dyn Tool>>,
    /// Whether code may call each of `tools` by its own options
    /// ([`ToolOptions::callers`](phi_agent::ToolOptions::callers)), read once here.
    code_callers: Vec<bool>,
    limits: CodeLimits,
    callable: Option<Callable>,
    /// Made on first use from the fields above; a `with_*` setter starts it anew.
    description: OnceLock<&'static str>,
}

impl fmt::Debug for RunCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.callable_tools().map(|tool| tool.name()).collect();
        f.debug_struct("RunCode")
            .field("tools", &names)
            .field("limits", &self.limits)
            .finish()
    }
}

impl RunCode {
    /// The tool's name.
    pub const NAME: &'static str = "run_code";

    /// `run_code` over `tools`, with the default [`CodeLimits`].
    pub fn new(tools: &[Arc<dyn Tool>]) -> Self {
        let tools: Vec<Arc<dyn Tool>> = tools
            .iter()
            .filter(|tool| tool.name() != Self::NAME)
            .cloned()
            .collect();
        Self {
            code_callers: tools
                .iter()
                .map(|tool| tool.options().callers.allows_code())
                .collect(),
            tools,
            limits: CodeLimits::default(),
            callable: None,
            description: OnceLock::new(),
        }
    }

    /// With `limits` for every program.
    pub fn with_limits(mut self, limits: CodeLimits) -> Self {
        self.limits = limits;
        self.description = OnceLock::new();
        self
    }

    /// With only the tools for which `callable` holds callable from programs (default: those
    /// whose [`ToolOptions::callers`](phi_agent::ToolOptions::callers) allow code, which is
    /// every tool unless it is marked `callers = "direct"`). `callable` replaces that default.
    pub fn with_callable(
        mut self,
        callable: impl Fn(&dyn Tool) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.callable = Some(Arc::new(callable));
        self.description = OnceLock::new();
        self
    }

    /// The limits of every program.
    pub fn limits(&self) -> &CodeLimits {
        &self.limits
    }

    fn callable_tools(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools
            .iter()
            .zip(&self.code_callers)
            .filter(|&(tool, &code_callers)| {
                tool.exposure() != ToolExposure::Hidden
                    && match &self.callable {
                        Some(callable) => callable(&**tool),
                        None => code_callers,
                    }
            })
            .map(|(tool, _)| tool)
    }

    /// The tools with a stub: the callable Direct ones.
    fn stubbed(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.callable_tools()
            .filter(|tool| tool.exposure() == ToolExposure::Direct)
    }

    fn make_description(&self) -> String {
        let limits = &self.limits;
        let stubs = stubs::stubs(
            self.stubbed()
                .map(|tool| (tool.name(), tool.description(), tool.schema())),
        );
        let others: Vec<&str> = self
            .callable_tools()
            .filter(|tool| tool.exposure() != ToolExposure::Direct)
            .map(|tool| tool.name())
            .collect();
        let mut text = format!(
            "Run a small Rhai program that calls tools, and get back only its value (its last \
             expression) and what it printed. One program replaces many tool calls: loop over \
             records, chain lookups, and combine the results in the program; only the result \
             enters the conversation.\n\
             \n\
             Rhai: `let x = 1;` `if a > b {{ .. }} else {{ .. }}` `for item in list {{ .. }}` \
             `while cond {{ .. }}` `fn name(a) {{ .. }}`; arrays `[1, 2]` (`.len()`, `.push(x)`), \
             maps `#{{ sku: \"a\", qty: 2 }}` (`m.sku`, `m[\"qty\"]`), strings with `+` and \
             `${{x}}` in backticks, `print(x)`. Call a tool with one map of its arguments, e.g. \
             `let r = lookup(#{{ sku: \"a\" }});`; it returns the tool's result (a map, array, \
             number or string). A failed call throws: catch it with the statement `try {{ .. }} catch (e) {{ .. }}`.\n\
             \n\
             The program has no files, network, environment or clock. Limits: {} operations, {} \
             ms, {} tool calls, strings of {} bytes, arrays of {} items, maps of {} entries, {} \
             bytes printed.\n\
             \n\
             Tools (argument types: `?` optional, `|` one of, `()` null):\n\
             \n{stubs}",
            limits.max_operations,
            limits.max_duration.as_millis(),
            limits.max_tool_calls,
            limits.max_string_bytes,
            limits.max_array_items,
            limits.max_map_entries,
            limits.max_output_bytes,
        );
        if !others.is_empty() {
            text.push_str(&format!(
                "\nOnce found by tool search, these are callable with `call_tool(\"name\", #{{ .. }})`: {}\n",
                others.join(", ")
            ));
        }
        text
    }
}

#[async_trait]
impl Tool for RunCode {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn description(&self) -> &'static str {
        self.description
            .get_or_init(|| static_text(self.make_description()))
    }

    fn schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "description": "The Rhai program; its last expression is its value."
                }
            },
            "required": ["code"],
            "additionalProperties": false
        })
    }

    fn timeout_ms(&self) -> Option<u64> {
        // A little past the program's own limit, so that its clearer error comes first.
        let limit = self.limits.max_duration.as_millis();
        Some(
            u64::try_from(limit)
                .unwrap_or(u64::MAX)
                .saturating_add(5_000),
        )
    }

    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let code = args
            .get("code")
            .and_then(Value::as_str)
            .ok_or_else(|| AgentError::tool("`code` must be a string: the program"))?;
        let program = Program {
            code: code.to_string(),
            limits: self.limits.clone(),
            tools: self.stubbed().map(|tool| tool.name()).collect(),
            callable: self.callable_tools().map(|tool| tool.name()).collect(),
        };
        let (requests, mut incoming) = tokio::sync::mpsc::unbounded_channel::<Request>();
        let cancel = Arc::new(AtomicBool::new(false));
        // Dropped (a timeout, the run dropped): the program stops at its next operation.
        let _stop = StopOnDrop(cancel.clone());
        let mut program =
            tokio::task::spawn_blocking(move || sandbox::run(program, requests, cancel));
        let finished = loop {
            tokio::select! {
                Some(request) = incoming.recv() => {
                    // Awaited here, in this call's own future: the run serves it.
                    let result = ctx.call_tool(&request.name, request.arguments).await;
                    let _ = request.reply.send(result);
                }
                finished = &mut program => break finished,
            }
        };
        let finished = finished
            .map_err(|error| AgentError::tool(format!("the program's thread failed: {error}")))?;
        match finished {
            Ok(Finished { value, printed }) if printed.is_empty() => Ok(vec![Content::json(value)]),
            Ok(Finished { value, printed }) => Ok(vec![Content::json(
                json!({"value": value, "printed": printed}),
            )]),
            Err((message, printed)) if printed.is_empty() => Err(AgentError::tool(message)),
            Err((message, printed)) => Err(AgentError::tool(format!(
                "{message}\nprinted before it stopped:\n{printed}"
            ))),
        }
    }
}

struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
