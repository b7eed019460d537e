//! Skills: a catalogue built in code and read from `SKILL.md` folders, loaded on demand by the
//! model (its instructions in the next request, its tools appended, every earlier byte kept),
//! files read only inside the skill's folder, and skills found by tool search.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use phi_agent::llm::{AnthropicClient, LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::skill::{
    LOAD_SKILL_TOOL_NAME, READ_SKILL_FILE_TOOL_NAME, Skill, SkillCatalog, SkillError,
};
use phi_agent::{
    AgentConfig, AgentError, AgentEvent, PhiAgent, PrefixChange, ToolExposure, ToolSearch,
    base_agent_builder,
};
use serde_json::{Value, json};

use crate::tool_search::Listed;

fn tool(name: &'static str, description: &'static str, exposure: ToolExposure) -> Listed {
    Listed {
        name,
        description,
        schema: json!({"type": "object", "properties": {}}),
        exposure,
    }
}

/// The prefix changes the agent's observer saw, per turn.
type Busts = Arc<Mutex<Vec<(usize, Vec<PrefixChange>)>>>;

const PDF_STEPS: &str =
    "1. List the form's fields with `pdf_fields`.\n2. Fill them with `pdf_fill`.";

fn pdf_skill() -> Skill {
    Skill::new(
        "pdf-forms",
        "Fill in PDF forms: read a form's fields, then write the values in.",
        PDF_STEPS,
    )
    .unwrap()
    .with_tools(["pdf_fields", "pdf_fill"])
    .with_file("reference/field-types.md", "Text, check box, radio group.")
    .unwrap()
}

fn catalog() -> SkillCatalog {
    SkillCatalog::new()
        .with(pdf_skill())
        .unwrap()
        .with(
            Skill::new(
                "release-notes",
                "Write release notes from a list of merged changes, grouped by area.",
                "One line per change.",
            )
            .unwrap(),
        )
        .unwrap()
        .with(
            Skill::new(
                "sql-review",
                "Review a SQL migration for locks, missing indexes and data loss.",
                "Read the migration twice.",
            )
            .unwrap(),
        )
        .unwrap()
}

fn builder(llm: ScriptedLlm) -> phi_agent::AgentBuilder {
    base_agent_builder(llm)
        .system_prompt("You handle paperwork.")
        .register_tool(tool("get_time", "Tell the time", ToolExposure::Direct))
        .register_tool(tool(
            "pdf_fields",
            "List a PDF form's fields",
            ToolExposure::Deferred,
        ))
        .register_tool(tool(
            "pdf_fill",
            "Fill a PDF form's fields",
            ToolExposure::Deferred,
        ))
        .skills(catalog())
}

/// The text a call's result gave the model.
fn said(record: &phi_agent::ToolCallRecord) -> String {
    record
        .result
        .iter()
        .map(phi_agent::Content::to_model_text)
        .collect::<Vec<_>>()
        .join("\n")
}

fn names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

/// `body` without its cache breakpoints, which mark the prefix and are not part of it.
fn unmarked(mut body: Value) -> Value {
    fn strip(value: &mut Value) {
        match value {
            Value::Object(fields) => {
                fields.shift_remove("cache_control");
                fields.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut body);
    body
}

#[tokio::test]
async fn loading_a_skill_adds_its_instructions_and_tools_to_the_next_request_and_keeps_the_earlier_bytes()
 {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            LOAD_SKILL_TOOL_NAME,
            json!({"name": "pdf-forms"}),
        )]),
        LlmResponse::tool_calls(vec![ToolCall::new("c2", "pdf_fill", json!({}))]),
        LlmResponse::text("filled"),
    ]);
    let busts: Busts = Arc::default();
    let seen = busts.clone();
    let builder = builder(llm.clone()).observer(move |event: &AgentEvent<'_>| {
        if let AgentEvent::PrefixChanged { turn, changes } = event {
            seen.lock().unwrap().push((*turn, changes.to_vec()));
        }
    });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let output = agent.run("Fill in my tax form").await.unwrap();
    assert_eq!(output.text, "filled");
    assert!(
        !output.tool_calls[1].is_error,
        "the skill's tool ran: {:?}",
        output.tool_calls[1]
    );

    let client = AnthropicClient::new("sk-ant-not-real", "claude-sonnet-4-5").unwrap();
    let requests = llm.requests();
    let [first, second] = [&requests[0], &requests[1]].map(|r| client.request_body(r));
    // Before loading: the catalogue in one line per skill, the skill's tools not sent.
    assert_eq!(
        names(&first["tools"]),
        ["get_time", LOAD_SKILL_TOOL_NAME, READ_SKILL_FILE_TOOL_NAME]
    );
    let listing = first["tools"][1]["description"].as_str().unwrap();
    assert!(
        listing.contains(
            "\n- pdf-forms: Fill in PDF forms: read a form's fields, then write the values in."
        ),
        "{listing}"
    );
    assert!(listing.contains("\n- sql-review: "), "{listing}");
    // After: the skill's tools appended, every earlier tool byte for byte the same.
    let tools = second["tools"].as_array().unwrap();
    assert_eq!(
        names(&second["tools"]),
        [
            "get_time",
            LOAD_SKILL_TOOL_NAME,
            READ_SKILL_FILE_TOOL_NAME,
            "pdf_fields",
            "pdf_fill"
        ]
    );
    let before = first["tools"].as_array().unwrap();
    assert_eq!(
        serde_json::to_string(&unmarked(json!(before))).unwrap(),
        serde_json::to_string(&unmarked(json!(tools[..before.len()]))).unwrap()
    );
    // The system prompt is untouched; the first request's messages open the second's, whose
    // last one carries the instructions (the result of `load_skill`).
    assert_eq!(
        unmarked(first["system"].clone()),
        unmarked(second["system"].clone())
    );
    let (old, new) = (
        first["messages"].as_array().unwrap(),
        second["messages"].as_array().unwrap(),
    );
    assert_eq!(unmarked(json!(old)), unmarked(json!(new[..old.len()])));
    let added = serde_json::to_string(&new[old.len()..]).unwrap();
    assert!(added.contains("Skill `pdf-forms` loaded"), "{added}");
    assert!(
        added.contains(&serde_json::to_string(PDF_STEPS).unwrap()[1..PDF_STEPS.len()]),
        "{added}"
    );
    assert!(added.contains("reference/field-types.md"), "{added}");
    // What changed in the prefix is reported as the two tools added, nothing else.
    assert_eq!(
        *busts.lock().unwrap(),
        [(
            2,
            vec![PrefixChange::ToolsAdded(vec![
                "pdf_fields".into(),
                "pdf_fill".into()
            ])]
        )]
    );
}

#[tokio::test]
async fn a_skills_tools_are_not_callable_before_it_is_loaded() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "pdf_fill", json!({}))]),
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c2",
            LOAD_SKILL_TOOL_NAME,
            json!({"name": "pdf-form"}),
        )]),
        LlmResponse::text("gave up"),
    ]);
    let agent = PhiAgent::build(builder(llm.clone()), AgentConfig::default()).unwrap();
    let output = agent.run("Fill in my tax form").await.unwrap();
    assert!(output.tool_calls[0].is_error);
    assert!(
        said(&output.tool_calls[0]).contains("not available"),
        "{}",
        said(&output.tool_calls[0])
    );
    // A misspelt skill is an error the model can act on (the schema lists the names), and
    // loads nothing.
    assert!(output.tool_calls[1].is_error);
    assert!(
        said(&output.tool_calls[1]).contains("\"pdf-forms\""),
        "{}",
        said(&output.tool_calls[1])
    );
    let last = llm.requests().pop().unwrap();
    assert!(last.tools.iter().all(|tool| tool.name != "pdf_fill"));
}

#[tokio::test]
async fn tool_search_ranks_a_skill_for_a_task_its_description_answers() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            "search_tools",
            json!({"query": "fill out a PDF form"}),
        )]),
        LlmResponse::text("found it"),
    ]);
    let builder = builder(llm)
        .register_tool(tool("send_mail", "Send an email", ToolExposure::Deferred))
        .register_tool(tool(
            "book_room",
            "Book a meeting room",
            ToolExposure::Deferred,
        ));
    let config = AgentConfig::default().with_tool_search(ToolSearch::Local);
    let agent = PhiAgent::build(builder, config).unwrap();
    let output = agent.run("Fill in my tax form").await.unwrap();
    let answer = &said(&output.tool_calls[0]);
    let skills = answer
        .split_once("Skills for this task")
        .unwrap_or_else(|| panic!("no skill listed: {answer}"))
        .1;
    let first = skills.lines().nth(1).unwrap();
    assert!(first.starts_with("- pdf-forms: "), "{answer}");
    assert!(!skills.contains("sql-review"), "{answer}");
    // The skill's tools are held for loading: no search finds them.
    assert!(!answer.contains("- pdf_fill:"), "{answer}");
}

#[test]
fn a_skill_naming_a_missing_or_direct_tool_is_refused_at_build() {
    let skills = |tool: &str| {
        SkillCatalog::new()
            .with(Skill::new("a", "Does a.", "").unwrap().with_tools([tool]))
            .unwrap()
    };
    let build = |tool: &str| {
        let builder = base_agent_builder(ScriptedLlm::new([]))
            .register_tool(Listed {
                name: "pdf_fill",
                description: "Fill",
                schema: json!({"type": "object", "properties": {}}),
                exposure: ToolExposure::Direct,
            })
            .skills(skills(tool));
        PhiAgent::build(builder, AgentConfig::default()).unwrap_err()
    };
    let missing = build("pdf_fil").to_string();
    assert!(missing.contains("did you mean `pdf_fill`?"), "{missing}");
    let direct = build("pdf_fill").to_string();
    assert!(direct.contains("mark it Deferred"), "{direct}");
    assert!(matches!(build("pdf_fill"), AgentError::Config(_)));
}

/// A fresh folder under the system's temporary folder for one test.
fn scratch(test: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("phi-skills-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_folder_of_skill_folders_loads_as_a_catalogue() {
    let root = scratch("catalogue");
    write(
        &root.join("pdf-forms/SKILL.md"),
        "---\nname: pdf-forms\ndescription: Fill in PDF forms.\nallowed-tools: pdf_fields pdf_fill\nmetadata:\n  version: \"1\"\n---\n# Filling a form\nList the fields first; see reference/types.md.\n",
    );
    write(
        &root.join("pdf-forms/reference/types.md"),
        "Text, check box.",
    );
    write(
        &root.join("csv/SKILL.md"),
        "---\nname: csv\ndescription: Clean CSV files.\n---\nRead the header first.\n",
    );
    write(&root.join("notes/README.md"), "not a skill");
    write(&root.join("pdf-forms/.cache/x"), "hidden, not listed");
    let catalog = SkillCatalog::from_dir(&root).unwrap();
    let names: Vec<&str> = catalog.iter().map(|skill| skill.name()).collect();
    assert_eq!(names, ["csv", "pdf-forms"]);
    let pdf = catalog.get("pdf-forms").unwrap();
    assert_eq!(pdf.tools(), ["pdf_fields", "pdf_fill"]);
    assert_eq!(
        pdf.instructions(),
        "# Filling a form\nList the fields first; see reference/types.md.\n"
    );
    assert_eq!(pdf.files(), ["reference/types.md"]);
    assert_eq!(
        pdf.read_file("reference/types.md").unwrap(),
        "Text, check box."
    );

    // A skill whose name is not its folder's fails the catalogue, naming the file.
    write(
        &root.join("wrong/SKILL.md"),
        "---\nname: right\ndescription: Misnamed.\n---\n",
    );
    let error = SkillCatalog::from_dir(&root).unwrap_err().to_string();
    assert!(
        error.contains("wrong/SKILL.md") && error.contains("`right`"),
        "{error}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_path_with_dot_dot_or_an_absolute_path_is_refused() {
    let root = scratch("dotdot");
    write(&root.join("secret.txt"), "the secret");
    write(
        &root.join("skills/pdf-forms/SKILL.md"),
        "---\nname: pdf-forms\ndescription: Fill in PDF forms.\n---\nHi.\n",
    );
    write(&root.join("skills/pdf-forms/refs/a.md"), "inside");
    let skill = Skill::from_dir(root.join("skills/pdf-forms")).unwrap();
    assert_eq!(skill.read_file("./refs/a.md").unwrap(), "inside");
    for escape in [
        "../../secret.txt",
        "refs/../../../secret.txt",
        root.join("secret.txt").to_str().unwrap(),
    ] {
        let error = skill.read_file(escape).unwrap_err();
        assert!(
            matches!(error, SkillError::OutsideSkill { .. }),
            "{escape}: {error}"
        );
    }
    let missing = skill.read_file("refs/b.md").unwrap_err().to_string();
    assert!(missing.contains("its files: refs/a.md"), "{missing}");
    std::fs::remove_dir_all(&root).unwrap();
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_out_of_the_skill_is_refused() {
    let root = scratch("symlink");
    write(&root.join("secret.txt"), "the secret");
    let folder = root.join("skills/pdf-forms");
    write(
        &folder.join("SKILL.md"),
        "---\nname: pdf-forms\ndescription: Fill in PDF forms.\n---\nHi.\n",
    );
    write(&folder.join("refs/a.md"), "inside");
    std::os::unix::fs::symlink(root.join("secret.txt"), folder.join("leak.txt")).unwrap();
    std::os::unix::fs::symlink(&root, folder.join("up")).unwrap();
    std::os::unix::fs::symlink(folder.join("refs/a.md"), folder.join("alias.md")).unwrap();
    let skill = Skill::from_dir(&folder).unwrap();
    for escape in ["leak.txt", "up/secret.txt"] {
        let error = skill.read_file(escape).unwrap_err();
        assert!(
            matches!(error, SkillError::OutsideSkill { .. }),
            "{escape}: {error}"
        );
    }
    // A link that stays inside is followed; links are not listed.
    assert_eq!(skill.read_file("alias.md").unwrap(), "inside");
    assert_eq!(skill.files(), ["refs/a.md"]);
    std::fs::remove_dir_all(&root).unwrap();
}

#[tokio::test]
async fn read_skill_file_reads_inside_the_skill_and_refuses_an_escape() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            ToolCall::new(
                "c1",
                READ_SKILL_FILE_TOOL_NAME,
                json!({"skill": "pdf-forms", "path": "reference/field-types.md"}),
            ),
            ToolCall::new(
                "c2",
                READ_SKILL_FILE_TOOL_NAME,
                json!({"skill": "pdf-forms", "path": "../../etc/passwd"}),
            ),
        ]),
        LlmResponse::text("read"),
    ]);
    let agent = PhiAgent::build(builder(llm), AgentConfig::default()).unwrap();
    let output = agent.run("What field types are there?").await.unwrap();
    assert_eq!(said(&output.tool_calls[0]), "Text, check box, radio group.");
    assert!(output.tool_calls[1].is_error);
    assert!(
        said(&output.tool_calls[1]).contains("outside the skill's folder"),
        "{}",
        said(&output.tool_calls[1])
    );
}

/// A scripted model whose provider searches tools itself, as Anthropic's does.
struct NativeSearching(ScriptedLlm);

#[async_trait::async_trait]
impl phi_agent::LlmClient for NativeSearching {
    async fn complete(
        &self,
        request: &phi_agent::llm::LlmRequest,
    ) -> phi_agent::AgentResult<LlmResponse> {
        self.0.complete(request).await
    }
    fn native_tool_search(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn with_a_native_search_a_loaded_skills_tools_are_shown_not_deferred() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            LOAD_SKILL_TOOL_NAME,
            json!({"name": "pdf-forms"}),
        )]),
        LlmResponse::text("ready"),
    ]);
    let builder = base_agent_builder(NativeSearching(llm.clone()))
        .register_tool(tool(
            "pdf_fields",
            "List a PDF form's fields",
            ToolExposure::Deferred,
        ))
        .register_tool(tool(
            "pdf_fill",
            "Fill a PDF form's fields",
            ToolExposure::Deferred,
        ))
        .register_tool(tool("send_mail", "Send an email", ToolExposure::Deferred))
        .skills(catalog());
    let config = AgentConfig::default().with_tool_search(ToolSearch::Native);
    let agent = PhiAgent::build(builder, config).unwrap();
    agent.run("Fill in my tax form").await.unwrap();
    let requests = llm.requests();
    let shown = |at: usize| -> Vec<&str> { requests[at].tools.iter().map(|t| t.name).collect() };
    let deferred =
        |at: usize| -> Vec<&str> { requests[at].deferred_tools.iter().map(|t| t.name).collect() };
    assert_eq!(shown(0), [LOAD_SKILL_TOOL_NAME, READ_SKILL_FILE_TOOL_NAME]);
    assert_eq!(
        deferred(0),
        ["send_mail"],
        "held tools are never discoverable"
    );
    assert_eq!(
        shown(1),
        [
            LOAD_SKILL_TOOL_NAME,
            READ_SKILL_FILE_TOOL_NAME,
            "pdf_fields",
            "pdf_fill"
        ]
    );
    assert_eq!(deferred(1), ["send_mail"]);
}
