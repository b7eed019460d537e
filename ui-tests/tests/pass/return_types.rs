//! Every supported return type converts into tool output; structured outputs get an output schema.

use phi_agent::__private::serde_json::{Value, json};
use phi_agent::{AgentError, AgentResult, Content, Tool, ToolContext, phi_tool};

/// Text.
#[phi_tool]
async fn owned_text() -> String {
    "owned".into()
}

/// Static text.
#[phi_tool]
async fn static_text() -> &'static str {
    "static"
}

/// One content item.
#[phi_tool]
async fn one_content() -> Content {
    Content::text("content")
}

/// Several content items.
#[phi_tool]
async fn many_contents() -> Vec<Content> {
    vec![Content::text("a"), Content::text("b")]
}

/// Raw JSON.
#[phi_tool]
async fn raw_json() -> Value {
    json!({"raw": true})
}

/// A count.
#[phi_tool]
async fn count() -> u32 {
    7
}

/// Nothing to say.
#[phi_tool]
async fn nothing() {}

/// A failure the model reads.
#[phi_tool]
async fn io_failure(fail: bool) -> std::io::Result<String> {
    if fail {
        Err(std::io::Error::other("disk full; free some space"))
    } else {
        Ok("written".into())
    }
}

/// An agent error passes through unchanged.
#[phi_tool]
async fn agent_failure() -> AgentResult<String> {
    Err(AgentError::Config("bad setting".into()))
}

/// A string error.
#[phi_tool]
fn string_failure() -> Result<u8, String> {
    Err("nope".into())
}

/// A crate's own `AgentResult`, with an error of its own: converted like any `Result`, although
/// it is spelled like phi-agent's.
mod own {
    pub type AgentResult<T> = Result<T, String>;
}

/// An own result type that happens to share the name.
#[phi_tool]
async fn own_result(fail: bool) -> own::AgentResult<u8> {
    if fail { Err("own error".into()) } else { Ok(3) }
}

/// phi-agent's own result, spelled out: passes through unchanged.
#[phi_tool]
async fn renamed_result() -> std::result::Result<u8, AgentError> {
    Err(AgentError::Config("renamed".into()))
}

async fn run(tool: &dyn Tool, args: Value) -> AgentResult<Vec<Content>> {
    tool.call(&args, &ToolContext::default()).await
}

#[tokio::main]
async fn main() {
    assert_eq!(run(&OwnedText, json!({})).await.unwrap(), vec![Content::text("owned")]);
    assert_eq!(run(&StaticText, json!({})).await.unwrap(), vec![Content::text("static")]);
    assert_eq!(run(&OneContent, json!({})).await.unwrap(), vec![Content::text("content")]);
    assert_eq!(run(&ManyContents, json!({})).await.unwrap().len(), 2);
    assert_eq!(run(&RawJson, json!({})).await.unwrap(), vec![Content::json(json!({"raw": true}))]);
    assert_eq!(run(&Count, json!({})).await.unwrap(), vec![Content::json(json!(7))]);
    assert_eq!(run(&Nothing, json!({})).await.unwrap(), vec![Content::json(Value::Null)]);
    let err = run(&IoFailure, json!({"fail": true})).await.unwrap_err();
    assert_eq!(err.to_string(), "disk full; free some space");
    assert!(matches!(run(&AgentFailure, json!({})).await, Err(AgentError::Config(_))));
    assert_eq!(run(&StringFailure, json!({})).await.unwrap_err().to_string(), "nope");
    assert_eq!(run(&OwnResult, json!({"fail": false})).await.unwrap(), vec![Content::json(json!(3))]);
    let err = run(&OwnResult, json!({"fail": true})).await.unwrap_err();
    assert_eq!(err.to_string(), "own error");
    assert!(matches!(run(&RenamedResult, json!({})).await, Err(AgentError::Config(_))));

    // Only structured (object) outputs have an output schema.
    for tool in [&OwnedText as &dyn Tool, &StaticText, &OneContent, &ManyContents, &RawJson, &Count] {
        assert_eq!(tool.options().output_schema, None, "{}", tool.name());
    }
}
