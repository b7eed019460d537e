//! Input examples: checked at registration against the schema and the decoder, kept through a
//! toolset, and refused with an error that names the tool, the example and the mistake.

use async_trait::async_trait;
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentError, AgentResult, Content, Tool, ToolContext, Toolset, phi_tool, tools};
use serde_json::{Value, json};

/// Book a table.
#[phi_tool(
    example = {"guests": 2, "time": "19:30"},
    example = {"guests": 4, "time": "12:00", "notes": ["window"]},
)]
fn book(guests: u8, time: String, #[phi(default)] notes: Vec<String>) -> String {
    format!("{guests} at {time} {notes:?}")
}

/// Book a table, with an example whose value does not decode.
#[phi_tool(example = {"guests": "two", "time": "19:30"})]
fn book_badly(guests: u8, time: String) -> String {
    format!("{guests} at {time}")
}

/// Book a table, with an example that lacks a required parameter.
#[phi_tool(example = BookIncompleteArgs { guests: 300, time: String::new() }, example = {"guests": 2})]
fn book_incomplete(guests: u16, time: String) -> String {
    format!("{guests} at {time}")
}

struct Search {
    examples: Vec<Value>,
}

#[async_trait]
impl Tool for Search {
    fn name(&self) -> &'static str {
        "search"
    }
    fn description(&self) -> &'static str {
        "Search the catalogue"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "maximum": 50}},
               "required": ["query"], "additionalProperties": false})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("none")])
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_input_examples(self.examples.clone())
    }
}

fn register(tool: impl Tool + 'static) -> AgentResult<ToolRegistry> {
    let mut registry = ToolRegistry::default();
    registry.register(tool)?;
    Ok(registry)
}

#[test]
fn examples_that_fit_are_kept_in_order() {
    let registry = register(Book).unwrap();
    assert_eq!(
        registry.get("book").unwrap().input_examples(),
        [
            json!({"guests": 2, "time": "19:30"}),
            json!({"guests": 4, "time": "12:00", "notes": ["window"]}),
        ]
    );
    let spec = registry.get("book").unwrap().spec();
    assert_eq!(spec.input_examples().len(), 2);
    assert!(
        spec.description_with_examples()
            .ends_with("\n{\"guests\":4,\"time\":\"12:00\",\"notes\":[\"window\"]}")
    );
}

#[test]
fn a_tool_without_examples_has_none() {
    let registry = register(Search { examples: vec![] }).unwrap();
    let tool = registry.get("search").unwrap();
    assert!(tool.input_examples().is_empty());
    assert_eq!(
        tool.spec().description_with_examples(),
        "Search the catalogue"
    );
}

#[test]
fn an_example_the_decoder_refuses_fails_registration() {
    let error = register(BookBadly).unwrap_err();
    assert!(
        matches!(&error, AgentError::InvalidInputExample { tool, number: 1, .. } if tool == "book_badly"),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.starts_with(
            "input example 1 of tool `book_badly` does not fit its arguments: at `guests`:"
        ),
        "{text}"
    );
    assert!(text.ends_with("; fix the example or remove it"), "{text}");
}

#[test]
fn an_example_missing_a_required_parameter_is_named_by_its_number() {
    // The first, a Rust value of the arguments struct, fits; the second lacks `time`.
    let error = register(BookIncomplete).unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("input example 2 of tool `book_incomplete`"),
        "{text}"
    );
    assert!(text.contains("time"), "{text}");
}

#[test]
fn a_hand_written_tool_s_examples_are_checked_against_its_schema() {
    for (example, mistake) in [
        (json!({"qurey": "shoes"}), "qurey"),
        (json!({"query": "shoes", "limit": 500}), "limit"),
        (json!("shoes"), "object"),
    ] {
        let error = register(Search {
            examples: vec![json!({"query": "fine"}), example.clone()],
        })
        .unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with("input example 2 of tool `search` does not fit its arguments"),
            "{text}"
        );
        assert!(text.contains(mistake), "{example}: {text}");
    }
}

#[test]
fn a_toolset_keeps_the_examples_of_its_tools() {
    let mut registry = ToolRegistry::default();
    registry
        .register_toolset(Toolset::from(tools![book]).prefix("diner"))
        .unwrap();
    assert_eq!(
        registry.get("diner_book").unwrap().input_examples().len(),
        2
    );
    let error = ToolRegistry::default()
        .register_toolset(Toolset::from(tools![book_badly]).prefix("diner"))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("input example 1 of tool `diner_book_badly`"),
        "{error}"
    );
}
