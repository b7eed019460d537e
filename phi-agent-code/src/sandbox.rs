//! One program in the Rhai interpreter, on a thread of its own (the interpreter is
//! synchronous): every limit of [`CodeLimits`] set on the engine or checked as it runs, print
//! captured and bounded, and each tool the program calls sent as a [`Request`] to the tool's
//! future, which makes the call through the run and sends the result back.
//!
//! What a program cannot reach: Rhai has no filesystem, network or environment functions of its
//! own, `import` is compiled out (`no_module`, so no module resolver reads a file), the clock
//! too (`no_time`), and `eval` is disabled. It can call the functions of Rhai's standard
//! packages and the tools it was given.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use phi_agent::{AgentResult, CalledTool, Content};
use rhai::{Dynamic, Engine, EvalAltResult, NativeCallContext, Position};
use serde_json::Value;

use crate::limits::CodeLimits;

/// A tool call the program makes, for the tool's future to carry out.
pub(crate) struct Request {
    pub(crate) name: String,
    pub(crate) arguments: Value,
    pub(crate) reply: mpsc::SyncSender<AgentResult<CalledTool>>,
}

/// A program to run.
pub(crate) struct Program {
    pub(crate) code: String,
    pub(crate) limits: CodeLimits,
    /// The tools it calls by name (`lookup(#{..})`).
    pub(crate) tools: Arc<[&'static str]>,
    /// The tools it may call with `call_tool(name, #{..})`: those, and the ones found by search.
    pub(crate) callable: Arc<[&'static str]>,
}

/// What a finished program gives back: its value and what it printed.
pub(crate) struct Finished {
    pub(crate) value: Value,
    pub(crate) printed: String,
}

/// The program's state that the engine's callbacks share (one thread: no locks).
struct Shared {
    printed: RefCell<String>,
    /// Why the program must stop, once it must: read by the progress callback and at the end.
    stopped: RefCell<Option<String>>,
    calls: Cell<usize>,
    limits: CodeLimits,
}

impl Shared {
    fn stop(&self, reason: String) {
        let mut stopped = self.stopped.borrow_mut();
        if stopped.is_none() {
            *stopped = Some(reason);
        }
    }

    fn print(&self, text: &str) {
        let mut printed = self.printed.borrow_mut();
        let max = self.limits.max_output_bytes;
        if printed.len() + text.len() + 1 > max {
            let room = max.saturating_sub(printed.len());
            let mut cut = room.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            printed.push_str(&text[..cut]);
            drop(printed);
            self.stop(format!(
                "the program was stopped: it printed more than {max} bytes, the limit; print \
                 less (the program's value, its last expression, goes back whole)"
            ));
            return;
        }
        printed.push_str(text);
        printed.push('\n');
    }
}

fn terminated() -> Box<EvalAltResult> {
    EvalAltResult::ErrorTerminated(Dynamic::UNIT, Position::NONE).into()
}

/// Runs `program`; its tool calls go to `requests`. `cancel` stops it (the tool's future was
/// dropped). `Err`: the message the model reads, with what was printed.
pub(crate) fn run(
    program: Program,
    requests: tokio::sync::mpsc::UnboundedSender<Request>,
    cancel: Arc<AtomicBool>,
) -> Result<Finished, (String, String)> {
    let Program {
        code,
        limits,
        tools,
        callable,
    } = program;
    if code.len() > limits.max_code_bytes {
        let message = format!(
            "the program has {} bytes, over the limit of {}; write a shorter one",
            code.len(),
            limits.max_code_bytes
        );
        return Err((message, String::new()));
    }
    let shared = Rc::new(Shared {
        printed: RefCell::default(),
        stopped: RefCell::default(),
        calls: Cell::new(0),
        limits: limits.clone(),
    });
    let mut engine = engine(&limits, &shared, cancel);
    let caller = Rc::new(Caller {
        shared: shared.clone(),
        requests,
        callable,
    });
    for &name in tools.iter() {
        let with_args = caller.clone();
        engine.register_fn(
            name,
            move |ctx: NativeCallContext, args: rhai::Map| -> Result<Dynamic, Box<EvalAltResult>> {
                with_args.call(name, Dynamic::from_map(args), ctx.call_position())
            },
        );
        let without = caller.clone();
        engine.register_fn(
            name,
            move |ctx: NativeCallContext| -> Result<Dynamic, Box<EvalAltResult>> {
                without.call(
                    name,
                    Dynamic::from_map(rhai::Map::new()),
                    ctx.call_position(),
                )
            },
        );
    }
    let generic = caller.clone();
    engine.register_fn(
        "call_tool",
        move |ctx: NativeCallContext,
              name: &str,
              args: rhai::Map|
              -> Result<Dynamic, Box<EvalAltResult>> {
            match generic.callable.iter().find(|known| **known == name) {
                Some(&name) => generic.call(name, Dynamic::from_map(args), ctx.call_position()),
                None => Err(format!(
                    "`{name}` is not a tool this program can call; it can call: {}",
                    generic.callable.join(", ")
                )
                .into()),
            }
        },
    );
    let outcome = engine.eval::<Dynamic>(&code);
    let printed = shared.printed.take();
    let stopped = shared.stopped.take();
    match (outcome, stopped) {
        (_, Some(reason)) => Err((reason, printed)),
        (Ok(value), None) => match rhai::serde::from_dynamic::<Value>(&value) {
            Ok(value) => Ok(Finished { value, printed }),
            Err(error) => Err((
                format!(
                    "the program's value cannot be sent back as JSON ({error}); end the program \
                     with a number, string, bool, array or map"
                ),
                printed,
            )),
        },
        (Err(error), None) => Err((explain(*error, &limits, &caller.callable), printed)),
    }
}

/// The engine with every limit set and nothing outside the program reachable.
fn engine(limits: &CodeLimits, shared: &Rc<Shared>, cancel: Arc<AtomicBool>) -> Engine {
    let mut engine = Engine::new();
    engine.set_max_operations(limits.max_operations);
    engine.set_max_string_size(limits.max_string_bytes);
    engine.set_max_array_size(limits.max_array_items);
    engine.set_max_map_size(limits.max_map_entries);
    engine.set_max_call_levels(limits.max_call_depth);
    engine.set_max_expr_depths(64, 64);
    engine.disable_symbol("eval");
    let printer = shared.clone();
    engine.on_print(move |text| printer.print(text));
    let debugger = shared.clone();
    engine.on_debug(move |text, _, _| debugger.print(text));
    let watcher = shared.clone();
    let deadline = Instant::now() + limits.max_duration;
    let max_duration = limits.max_duration;
    engine.on_progress(move |operations| {
        // The clock is read every 1,024 operations: a few instructions per operation.
        if operations % 1024 == 0 {
            if cancel.load(Ordering::Relaxed) {
                watcher.stop("the program was stopped: its run was cancelled".to_string());
            } else if Instant::now() > deadline {
                watcher.stop(format!(
                    "the program was stopped: it ran longer than {} ms, the limit (its tool \
                     calls included); do less in one program",
                    max_duration.as_millis()
                ));
            }
        }
        watcher.stopped.borrow().is_some().then_some(Dynamic::UNIT)
    });
    engine
}

/// How the program's tool calls reach the run.
struct Caller {
    shared: Rc<Shared>,
    requests: tokio::sync::mpsc::UnboundedSender<Request>,
    callable: Arc<[&'static str]>,
}

impl Caller {
    fn call(&self, name: &str, args: Dynamic, at: Position) -> Result<Dynamic, Box<EvalAltResult>> {
        let max = self.shared.limits.max_tool_calls;
        let made = self.shared.calls.get();
        if made >= max {
            self.shared.stop(format!(
                "the program was stopped: it made more than {max} tool calls, the limit; make \
                 fewer calls in one program"
            ));
            return Err(terminated());
        }
        self.shared.calls.set(made + 1);
        let arguments: Value = rhai::serde::from_dynamic(&args)?;
        let (reply, answer) = mpsc::sync_channel(1);
        let request = Request {
            name: name.to_string(),
            arguments,
            reply,
        };
        if self.requests.send(request).is_err() {
            self.shared
                .stop("the program was stopped: its run ended".to_string());
            return Err(terminated());
        }
        match answer.recv() {
            Ok(Ok(called)) if called.is_error => Err(EvalAltResult::ErrorRuntime(
                format!("tool `{name}` failed: {}", called.to_model_text()).into(),
                at,
            )
            .into()),
            Ok(Ok(called)) => to_dynamic(called.content),
            Ok(Err(error)) => {
                self.shared.stop(error.to_string());
                Err(terminated())
            }
            Err(_) => {
                self.shared
                    .stop("the program was stopped: its run ended".to_string());
                Err(terminated())
            }
        }
    }
}

/// A tool's result as a program value: JSON as maps, arrays, numbers; text as a string;
/// several parts as an array of them.
fn to_dynamic(content: Vec<Content>) -> Result<Dynamic, Box<EvalAltResult>> {
    let one = |part: Content| -> Result<Dynamic, Box<EvalAltResult>> {
        match part {
            Content::Json { value } => rhai::serde::to_dynamic(value),
            Content::Text { text } => Ok(text.into()),
            other => Ok(other.to_model_text().into()),
        }
    };
    let mut parts = content.into_iter();
    match (parts.next(), parts.len()) {
        (None, _) => Ok(Dynamic::UNIT),
        (Some(part), 0) => one(part),
        (Some(first), _) => {
            let mut all = vec![one(first)?];
            for part in parts {
                all.push(one(part)?);
            }
            Ok(all.into())
        }
    }
}

/// What the model reads when the program fails: the limit it reached, or the error and where.
/// `callable` are the tools it could have called, named when it calls a function that is none.
fn explain(error: EvalAltResult, limits: &CodeLimits, callable: &[&str]) -> String {
    let at = |position: Position| {
        if position.is_none() {
            String::new()
        } else {
            format!(" ({position})")
        }
    };
    match error {
        EvalAltResult::ErrorTooManyOperations(position) => format!(
            "the program was stopped: it ran more than {} operations, the limit{}; an endless \
             loop? do the work in fewer steps",
            limits.max_operations,
            at(position)
        ),
        EvalAltResult::ErrorDataTooLarge(what, position) => format!(
            "the program was stopped: {what} grew past the limit{} (strings {} bytes, arrays {} \
             items, maps {} entries); build smaller values",
            at(position),
            limits.max_string_bytes,
            limits.max_array_items,
            limits.max_map_entries
        ),
        EvalAltResult::ErrorStackOverflow(position) => format!(
            "the program was stopped: its function calls went deeper than {}, the limit{}",
            limits.max_call_depth,
            at(position)
        ),
        EvalAltResult::ErrorFunctionNotFound(signature, position) => format!(
            "the program failed: there is no function `{signature}`{}; a program can call \
             Rhai's built-in functions and these tools, each with one map of arguments \
             (`name(#{{..}})`): {}; and nothing else (no files, network, environment or clock)",
            at(position),
            if callable.is_empty() {
                "none".to_string()
            } else {
                callable.join(", ")
            }
        ),
        // An error inside a function the program defined: what went wrong is inside.
        EvalAltResult::ErrorInFunctionCall(_, _, inner, _) => explain(*inner, limits, callable),
        EvalAltResult::ErrorTerminated(_, _) => "the program was stopped".to_string(),
        error @ EvalAltResult::ErrorParsing(..) => {
            format!("the program does not parse: {error}; fix it and call run_code again")
        }
        other => format!("the program failed: {other}"),
    }
}
