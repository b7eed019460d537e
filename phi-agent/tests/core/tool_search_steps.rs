//! Tasks that need several tools: a query that lists its steps gets each step's tools in its
//! first results, not five variants of one step, and a search can ask for more tools for one
//! step without the ones already found. A request that keeps its result in a file it names gets
//! a tool that writes files, a step it does not spell out.

use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::registry::ToolRegistry;
use phi_agent::search::{SEARCH_TOOL_NAME, ToolIndex};
use phi_agent::{
    AgentConfig, AgentEvent, PhiAgent, Tool, ToolExposure, ToolSearch, base_agent_builder,
};
use serde_json::json;

use crate::tool_search::Listed;

/// A small catalogue where one step (searching) has many near variants, as real catalogues do.
const CATALOGUE: &[(&str, &str)] = &[
    ("web_search", "Search the web for pages matching a query."),
    ("search_news", "Search the web for recent news articles."),
    (
        "search_images",
        "Search the web for images matching a query.",
    ),
    (
        "search_videos",
        "Search the web for videos matching a query.",
    ),
    ("search_papers", "Search the web for scholarly papers."),
    (
        "search_shopping",
        "Search the web for products and their prices.",
    ),
    ("fetch_page", "Fetch a web page and return its text."),
    (
        "write_file",
        "Write text to a file on disk, creating the file if needed.",
    ),
    ("read_file", "Read the text of a file on disk."),
    ("delete_file", "Delete a file from disk."),
    ("send_email", "Send an email, with files attached if given."),
    ("list_inbox", "List the emails in the inbox."),
    ("create_pdf", "Render text as a PDF document."),
    ("word_cloud", "Draw a word cloud image from a text."),
    ("post_chat_message", "Post a message to a chat channel."),
];

fn tools() -> Vec<Arc<dyn Tool>> {
    CATALOGUE
        .iter()
        .map(|&(name, description)| {
            Arc::new(Listed {
                name,
                description,
                schema: json!({"type": "object", "properties": {"input": {"type": "string"}}}),
                exposure: ToolExposure::Deferred,
            }) as Arc<dyn Tool>
        })
        .collect()
}

fn index() -> ToolIndex {
    let mut registry = ToolRegistry::default();
    registry.register_all(tools()).unwrap();
    ToolIndex::build(&registry)
}

#[test]
fn a_task_of_three_steps_gets_all_three_tools_in_the_top_5() {
    let index = index();
    let task = "search the web for the latest news on Rust; save the results to a file; \
                email the file to my team";
    let hits = index.search(task, 5);
    let names: Vec<&str> = hits.iter().map(|hit| hit.name).collect();
    for needed in ["search_news", "write_file", "send_email"] {
        assert!(names.contains(&needed), "{needed} missing from {names:?}");
    }
    // Each hit says which step found it, and every step found one.
    let mut steps: Vec<usize> = hits.iter().map(|hit| hit.step).collect();
    steps.sort_unstable();
    steps.dedup();
    assert_eq!(steps, [0, 1, 2], "{hits:?}");

    // The kind of task, as a numbered list: a report as a PDF with a word cloud.
    let task = "1. search the web for papers on tool retrieval\n2. draw a word cloud of them\n\
                3. make a PDF report";
    let names: Vec<&str> = index.search(task, 5).iter().map(|hit| hit.name).collect();
    for needed in ["search_papers", "word_cloud", "create_pdf"] {
        assert!(names.contains(&needed), "{needed} missing from {names:?}");
    }
}

#[test]
fn a_query_of_one_step_is_ranked_as_before() {
    let index = index();
    let hits = index.search("search the web for images", 5);
    assert_eq!(hits[0].name, "search_images");
    assert!(hits.iter().all(|hit| hit.step == 0));
}

/// A request of one step that keeps its result in a text file it names gets a tool that writes
/// files, which its own words (news, Rust) never rank; one that names no such file does not.
#[test]
fn a_file_to_save_into_brings_a_file_writer() {
    let index = index();
    let saved = "find the latest news on Rust and save a summary to /home/me/notes/rust.md";
    let names: Vec<&str> = index.search(saved, 5).iter().map(|hit| hit.name).collect();
    assert_eq!(names[0], "search_news", "{names:?}");
    assert!(names.contains(&"write_file"), "{names:?}");
    let names: Vec<&str> = index
        .search("find the latest news on Rust and summarize it", 5)
        .iter()
        .map(|hit| hit.name)
        .collect();
    assert!(!names.contains(&"write_file"), "{names:?}");
    // Asked for one tool, the request's own best comes back.
    assert_eq!(index.search(saved, 1)[0].name, "search_news");
}

/// A model that searches a task's steps, then asks for more tools for its first step with
/// `skip_found`: the second answer holds none of the first's tools.
#[tokio::test]
async fn more_tools_for_one_step_leave_out_the_ones_found() {
    let search = |id: &str, arguments: serde_json::Value| {
        LlmResponse::tool_calls(vec![ToolCall::new(id, SEARCH_TOOL_NAME, arguments)])
    };
    let llm = ScriptedLlm::new([
        search(
            "s1",
            json!({"query": "search the web for news; write a file", "limit": 4}),
        ),
        search(
            "s2",
            json!({"query": "search the web for news", "limit": 3, "skip_found": true}),
        ),
        LlmResponse::text("done"),
    ]);
    let found: Arc<Mutex<Vec<Vec<&'static str>>>> = Arc::default();
    let sink = found.clone();
    let builder = base_agent_builder(llm.clone())
        .register_tools(tools())
        .observer(move |event: &AgentEvent<'_>| {
            if let AgentEvent::ToolsFound { names, .. } = event {
                sink.lock().unwrap().push(names.to_vec());
            }
        });
    let config = AgentConfig::default().with_tool_search(ToolSearch::Local);
    let agent = PhiAgent::build(builder, config).unwrap();
    agent.run("research and save").await.unwrap();

    let found = found.lock().unwrap();
    assert_eq!(found.len(), 2);
    assert!(found[0].contains(&"search_news") && found[0].contains(&"write_file"));
    assert_eq!(found[1].len(), 3);
    assert!(
        found[1].iter().all(|name| !found[0].contains(name)),
        "{found:?}"
    );
    // The model read the first answer grouped by step.
    let requests = llm.requests();
    let answer = format!("{:?}", requests[1].messages.last().unwrap());
    assert!(answer.contains("write a file:"), "{answer}");
}
