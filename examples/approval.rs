//! A person approves the calls that delete files, on the terminal or later from a stored state.
//!
//! Run: `cargo run --example approval [-- --yes | --no] [--paused]`
//!
//! Offline: a scripted model lists a pretend folder (kept in memory; nothing on disk is
//! touched) and asks to delete its `.tmp` files. `delete_file` needs approval, `list_files`
//! does not.
//!
//! - Without flags, `run` asks you `y/n` for every deletion.
//! - `--yes` / `--no` approve / deny every deletion without asking (for scripts and CI).
//! - `--paused` uses `start` instead: the run pauses on the deletions and its state is printed
//!   as JSON; the calls are then decided (by `--yes`, `--no`, or you) and the run is resumed
//!   from that JSON in an agent built anew, as another process would.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmRequest, LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentEvent, AgentResult, Approval, ApprovalRequest, PhiAgent, RunOutcome,
    ToolContext, base_agent_builder, phi_tool, tools,
};
use serde_json::json;

/// The pretend folder the tools work on.
type Folder = Arc<Mutex<BTreeSet<String>>>;

/// List the files in the folder.
#[phi_tool(read_only)]
async fn list_files(ctx: &ToolContext) -> AgentResult<Vec<String>> {
    Ok(ctx
        .state::<Folder>()?
        .lock()
        .unwrap()
        .iter()
        .cloned()
        .collect())
}

/// Delete one file from the folder.
#[phi_tool(needs_approval, destructive)]
async fn delete_file(
    /// The file's name, as `list_files` gives it
    name: String,
    ctx: &ToolContext,
) -> AgentResult<String> {
    if ctx.state::<Folder>()?.lock().unwrap().remove(&name) {
        Ok(format!("deleted {name}"))
    } else {
        Err(phi_agent::AgentError::tool(format!(
            "there is no file `{name}`; call list_files to see the files"
        )))
    }
}

/// The offline model: lists the folder, asks to delete the `.tmp` files, then reports what the
/// tools said.
fn scripted_model() -> ScriptedLlm {
    ScriptedLlm::from_fn(|request: &LlmRequest| {
        let results: Vec<(&str, String)> = request
            .messages
            .iter()
            .filter_map(|message| match message {
                Message::Tool { name, content, .. } => Some((
                    name.as_str(),
                    content
                        .iter()
                        .map(|c| c.to_model_text())
                        .collect::<String>(),
                )),
                _ => None,
            })
            .collect();
        Ok(match results.last() {
            None => LlmResponse::tool_calls(vec![ToolCall::new("list", "list_files", json!({}))]),
            Some(("list_files", listing)) => {
                let names: Vec<String> = serde_json::from_str(listing).unwrap_or_default();
                let calls = names
                    .iter()
                    .filter(|name| name.ends_with(".tmp"))
                    .map(|name| {
                        ToolCall::new(format!("rm-{name}"), "delete_file", json!({ "name": name }))
                    })
                    .collect();
                LlmResponse::tool_calls(calls)
            }
            Some(_) => {
                let report: Vec<String> = results
                    .iter()
                    .filter(|(tool, _)| *tool == "delete_file")
                    .map(|(_, text)| format!("- {text}"))
                    .collect();
                LlmResponse::text(format!("What happened:\n{}", report.join("\n")))
            }
        })
    })
}

/// How deletions are decided.
#[derive(Clone, Copy)]
enum Decide {
    Ask,
    Yes,
    No,
}

impl Decide {
    /// The decision about deleting with `arguments`; asks on the terminal in `Ask` mode.
    fn decide(self, tool: &str, arguments: &serde_json::Value) -> Approval {
        let approved = match self {
            Decide::Yes => true,
            Decide::No => false,
            Decide::Ask => {
                print!("Allow {tool} {arguments}? [y/N] ");
                let _ = std::io::stdout().flush();
                let mut answer = String::new();
                let _ = std::io::stdin().lock().read_line(&mut answer);
                matches!(answer.trim(), "y" | "Y" | "yes")
            }
        };
        if approved {
            Approval::Approve
        } else {
            Approval::deny("the user said no; leave the file in place")
        }
    }
}

fn print_event(event: &AgentEvent<'_>) {
    match event {
        AgentEvent::ApprovalRequested { call, .. } => {
            println!("  approval needed: {} {}", call.name, call.arguments)
        }
        AgentEvent::ApprovalResolved { call, approval, .. } => {
            println!("  decided {}: {approval:?}", call.id)
        }
        AgentEvent::ToolFinished { call, result, .. } => {
            println!("  {} -> {}", call.name, result.to_model_text())
        }
        _ => {}
    }
}

fn agent(folder: &Folder, decide: Decide) -> AgentResult<PhiAgent> {
    let builder = base_agent_builder(scripted_model())
        .system_prompt("You tidy folders.")
        .register_tools(tools![list_files, delete_file])
        .state(folder.clone())
        .observer(print_event)
        .approver(move |request: ApprovalRequest| async move {
            // The terminal read blocks, so it runs off the async workers.
            tokio::task::spawn_blocking(move || decide.decide(&request.tool, &request.arguments))
                .await
                .unwrap_or_else(|_| Approval::deny("the approval prompt failed"))
        });
    PhiAgent::build(builder, AgentConfig::default())
}

#[tokio::main]
async fn main() -> AgentResult<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |flag: &str| args.iter().any(|arg| arg == flag);
    let decide = match (has("--yes"), has("--no")) {
        (true, _) => Decide::Yes,
        (_, true) => Decide::No,
        _ => Decide::Ask,
    };
    let folder: Folder = Arc::new(Mutex::new(
        ["notes.txt", "build.tmp", "cache.tmp"]
            .map(String::from)
            .into(),
    ));
    println!("(offline: a scripted model and a pretend folder; no file on disk is touched)");
    let input = "Delete the temporary files.";

    let output = if has("--paused") {
        let outcome = agent(&folder, decide)?.start(input).await?;
        let mut paused = match outcome {
            RunOutcome::Paused(paused) => paused,
            RunOutcome::Done(output) => {
                println!("The run needed no approval:\n{}", output.text);
                return Ok(());
            }
        };
        let stored = serde_json::to_string_pretty(&paused).expect("a paused run serializes");
        println!(
            "The run paused; its state ({} bytes):\n{stored}",
            stored.len()
        );

        let decisions: Vec<(String, Approval)> = paused
            .pending()
            .iter()
            .map(|call| {
                (
                    call.id().to_string(),
                    decide.decide(call.tool(), call.arguments()),
                )
            })
            .collect();
        // What another process would do: read the state back and resume on its own agent.
        paused = serde_json::from_str(&stored).expect("the stored state reads back");
        for (id, decision) in decisions {
            paused.decide(&id, decision)?;
        }
        match agent(&folder, decide)?.resume(paused).await? {
            RunOutcome::Done(output) => output,
            RunOutcome::Paused(_) => unreachable!("the scripted model asks for approval once"),
        }
    } else {
        agent(&folder, decide)?.run(input).await?
    };
    println!("\n{}", output.text);
    println!("Files left: {:?}", folder.lock().unwrap());
    Ok(())
}
