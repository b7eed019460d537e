//! Semantic retrieval: tool vectors cached on disk across restarts and recomputed only for tools
//! whose text changed, and the hybrid ranking finding what the words alone miss.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use phi_agent::registry::ToolRegistry;
use phi_agent::search::{
    Embedder, EmbeddingCache, HybridConfig, HybridIndex, SemanticIndex, SemanticSearch, ToolIndex,
};
use phi_agent::{AgentError, AgentResult, Content, Tool, ToolContext, ToolExposure};
use serde_json::{Value, json};

struct Listed {
    name: &'static str,
    description: &'static str,
    exposure: ToolExposure,
}

#[async_trait]
impl Tool for Listed {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"note": {"type": "string", "description": "Free text"}}})
    }
    fn exposure(&self) -> ToolExposure {
        self.exposure
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(self.name)])
    }
}

/// One dimension per concept, each met by any of its words: a stand-in for a model that knows
/// "pay" and "transaction" mean alike. Counts the texts it is asked to embed.
#[derive(Default)]
struct Concepts {
    embedded: AtomicUsize,
    calls: AtomicUsize,
}

const CONCEPTS: &[&[&str]] = &[
    &["pay", "money", "transaction", "owe", "transfer"],
    &["file", "document", "read"],
    &["weather", "forecast", "rain"],
    &["calendar", "meeting", "event"],
];

#[async_trait]
impl Embedder for Concepts {
    fn model(&self) -> &str {
        "concepts-4"
    }
    async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.embedded.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|text| {
                let text = text.to_lowercase();
                CONCEPTS
                    .iter()
                    .map(|words| words.iter().filter(|w| text.contains(*w)).count() as f32)
                    .collect()
            })
            .collect())
    }
    fn max_batch(&self) -> usize {
        2
    }
}

impl Concepts {
    fn embedded(&self) -> usize {
        self.embedded.swap(0, Ordering::SeqCst)
    }
}

fn registry(send_money: &'static str) -> ToolRegistry {
    let mut registry = ToolRegistry::default();
    for (name, description, exposure) in [
        ("send_money", send_money, ToolExposure::Deferred),
        (
            "read_file",
            "Reads the contents of the file with the given name.",
            ToolExposure::Deferred,
        ),
        (
            "get_weather",
            "Current weather and forecast for a city.",
            ToolExposure::Deferred,
        ),
        (
            "create_calendar_event",
            "Create a meeting on the calendar.",
            ToolExposure::Deferred,
        ),
        (
            "finish",
            "Always sent, never searched.",
            ToolExposure::Direct,
        ),
    ] {
        register(&mut registry, name, description, exposure);
    }
    registry
}

fn register(
    registry: &mut ToolRegistry,
    name: &'static str,
    description: &'static str,
    exposure: ToolExposure,
) {
    registry
        .register(Listed {
            name,
            description,
            exposure,
        })
        .unwrap();
}

fn scratch_path(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!(
        "phi-agent-{name}-{}-{nanos}.bin",
        std::process::id()
    ))
}

#[tokio::test]
async fn the_embedding_cache_survives_a_restart_and_drops_a_changed_tool() {
    let path = scratch_path("embeddings");
    let embedder = Concepts::default();
    let original = registry("Sends a transaction to the recipient.");

    let mut cache = EmbeddingCache::open(&path).unwrap();
    assert!(cache.is_empty(), "no file yet");
    let index = SemanticIndex::build(&original, &embedder, &mut cache)
        .await
        .unwrap();
    assert_eq!(index.len(), 4, "the Deferred tools only");
    assert_eq!(index.dimensions(), CONCEPTS.len());
    assert_eq!(embedder.embedded(), 4);
    assert_eq!(embedder.calls.swap(0, Ordering::SeqCst), 2, "batches of 2");
    cache.save().unwrap();

    // A restart: a new cache read from the file, the same tools.
    let mut cache = EmbeddingCache::open(&path).unwrap();
    assert_eq!(cache.len(), 4);
    let again = SemanticIndex::build(&original, &embedder, &mut cache)
        .await
        .unwrap();
    assert_eq!(embedder.embedded(), 0, "every vector came from the file");
    let query = [1.0, 0.0, 0.0, 0.0];
    assert_eq!(
        again.search_vector(&query, 1, |_| true),
        index.search_vector(&query, 1, |_| true)
    );

    // Another restart, after one tool's text changed: only it is embedded again, and the saved
    // file drops its old vector.
    let mut cache = EmbeddingCache::open(&path).unwrap();
    let changed = registry("Sends money to the recipient's bank account.");
    SemanticIndex::build(&changed, &embedder, &mut cache)
        .await
        .unwrap();
    assert_eq!(embedder.embedded(), 1);
    cache.save().unwrap();
    let cache = EmbeddingCache::open(&path).unwrap();
    assert_eq!(cache.len(), 4, "the changed tool's old vector is gone");

    // A file that is not a cache is refused, not read as vectors nor overwritten.
    std::fs::write(&path, b"not a cache").unwrap();
    let error = EmbeddingCache::open(&path).unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
    std::fs::remove_file(&path).unwrap();
}

/// `registry` indexed with a [`Concepts`] embedder whose counts start after the indexing, so that
/// a test counts only its searches' embedding.
async fn counted_index(registry: &ToolRegistry) -> (HybridIndex, Arc<Concepts>) {
    let embedder = Arc::new(Concepts::default());
    let index = SemanticSearch::new(embedder.clone())
        .build_index(registry)
        .await
        .unwrap();
    embedder.embedded();
    embedder.calls.store(0, Ordering::SeqCst);
    (index, embedder)
}

#[tokio::test]
async fn the_hybrid_ranking_finds_what_the_words_miss() {
    let registry = registry("Sends a transaction to the recipient.");
    let embedder = Arc::new(Concepts::default());
    let index = SemanticSearch::new(embedder.clone())
        .build_index(&registry)
        .await
        .unwrap();

    let query = "settle what I owe";
    let lexical = ToolIndex::build(&registry);
    assert!(
        lexical
            .search(query, 5)
            .iter()
            .all(|hit| hit.name != "send_money"),
        "no word of the query is in send_money's text"
    );
    let hits = index.search(query, 3).await.unwrap();
    assert_eq!(hits[0].name, "send_money", "{hits:?}");
    assert_eq!(hits[0].index, 0);

    // Found by both rankings beats found by one.
    let hits = index.search("read the weather file", 4).await.unwrap();
    let names: Vec<&str> = hits.iter().map(|hit| hit.name).collect();
    assert!(
        names.iter().position(|n| *n == "read_file")
            < names.iter().position(|n| *n == "send_money"),
        "{names:?}"
    );
    // A filter applies to both rankings.
    let hits = index
        .search_where(query, 3, |index| index != 0)
        .await
        .unwrap();
    assert!(hits.iter().all(|hit| hit.name != "send_money"));
}

/// A query of several steps through the hybrid index: each step embedded (one call for all of
/// them), each step's best first, taking turns.
#[tokio::test]
async fn the_hybrid_searches_a_querys_steps_in_turn() {
    let registry = registry("Sends a transaction to the recipient.");
    let (index, embedder) = counted_index(&registry).await;
    let hits = index
        .search("settle what I owe; will there be rain", 2)
        .await
        .unwrap();
    let found: Vec<(&str, usize)> = hits.iter().map(|hit| (hit.name, hit.step)).collect();
    assert_eq!(found, [("send_money", 0), ("get_weather", 1)]);
    assert_eq!(embedder.embedded(), 2, "one vector per step");
    assert_eq!(embedder.calls.load(Ordering::SeqCst), 1, "in one call");
}

/// A request of several clauses, through a hybrid index whose fusion weighs them: the request and
/// each clause embedded, in one call; without a clause weight, the request alone.
#[tokio::test]
async fn the_hybrid_embeds_a_requests_clauses_when_they_count() {
    let registry = registry("Sends a transaction to the recipient.");
    let request = "Settle what I owe to Ann for the trip. Then check the forecast for Paris";
    let (index, embedder) = counted_index(&registry).await;
    assert_eq!(index.config().clause_weight, 0.0);
    index.search(request, 2).await.unwrap();
    assert_eq!(embedder.embedded(), 1, "the request alone");

    let embedder = Arc::new(Concepts::default());
    let index = SemanticSearch::new(embedder.clone())
        .with_config(HybridConfig::default().with_clause_weight(0.5))
        .build_index(&registry)
        .await
        .unwrap();
    embedder.embedded();
    embedder.calls.store(0, Ordering::SeqCst);
    let hits = index.search(request, 2).await.unwrap();
    let mut names: Vec<&str> = hits.iter().map(|hit| hit.name).collect();
    names.sort_unstable();
    assert_eq!(names, ["get_weather", "send_money"]);
    assert_eq!(embedder.embedded(), 3, "the request and its two clauses");
    assert_eq!(
        embedder.calls.load(Ordering::SeqCst),
        2,
        "in batches of two"
    );
    // A request of one clause is embedded alone.
    index.search("settle what I owe", 2).await.unwrap();
    assert_eq!(embedder.embedded(), 1);
}

/// A request that keeps its result in a text file it names, through the hybrid index: the
/// writing of the file is searched too (embedded in the same call), and its best tool joins the
/// request's own, which fill the other places.
#[tokio::test]
async fn the_hybrid_adds_the_writing_of_a_named_file() {
    let mut registry = ToolRegistry::default();
    for (name, description) in [
        ("get_weather", "Current weather and forecast for a city."),
        (
            "weather_alerts",
            "Weather warnings and rain alerts for a city.",
        ),
        ("weather_history", "Past weather and rain for a city."),
        (
            "write_file",
            "Writes text to a file, creating it if needed.",
        ),
        ("send_money", "Sends a transaction to the recipient."),
    ] {
        register(&mut registry, name, description, ToolExposure::Deferred);
    }
    let (index, embedder) = counted_index(&registry).await;
    let names = |hits: Vec<phi_agent::search::SearchHit>| -> Vec<&'static str> {
        hits.iter().map(|hit| hit.name).collect()
    };
    let found = names(
        index
            .search(
                "check the weather forecast in Paris and save it to /tmp/paris.txt",
                3,
            )
            .await
            .unwrap(),
    );
    assert_eq!(found.len(), 3);
    assert!(found[0].contains("weather"), "{found:?}");
    assert_eq!(found[2], "write_file", "{found:?}");
    assert_eq!(embedder.embedded(), 2, "the request and the writing");
    assert_eq!(embedder.calls.load(Ordering::SeqCst), 1, "in one call");
    let found = names(
        index
            .search("check the weather forecast in Paris and rain alerts", 3)
            .await
            .unwrap(),
    );
    assert!(!found.contains(&"write_file"), "{found:?}");
}

/// A model that knows only `concepts` (one dimension each, as [`Concepts`]), counting the texts
/// it embeds.
struct Knows {
    name: &'static str,
    concepts: &'static [&'static [&'static str]],
    embedded: AtomicUsize,
}

#[async_trait]
impl Embedder for Knows {
    fn model(&self) -> &str {
        self.name
    }
    async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
        self.embedded.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts
            .iter()
            .map(|text| {
                let text = text.to_lowercase();
                self.concepts
                    .iter()
                    .map(|words| words.iter().filter(|w| text.contains(*w)).count() as f32)
                    .collect()
            })
            .collect())
    }
}

#[tokio::test]
async fn a_second_model_adds_its_ranking() {
    let registry = registry("Sends a transaction to the recipient.");
    let first = Arc::new(Knows {
        name: "files-and-weather",
        concepts: CONCEPTS[1..3].as_ref(),
        embedded: AtomicUsize::new(0),
    });
    let second = Arc::new(Knows {
        name: "money",
        concepts: CONCEPTS[..1].as_ref(),
        embedded: AtomicUsize::new(0),
    });
    let mut cache = EmbeddingCache::in_memory();
    let alone = SemanticSearch::new(first.clone()).with_config(HybridConfig::three_rankings());
    let one = HybridIndex::build(&registry, &alone, &mut cache)
        .await
        .unwrap();
    let query = "settle what I owe";
    // Neither the words nor the first model know what "owe" is about.
    assert!(one.search(query, 3).await.unwrap().is_empty());
    assert!(one.second().is_none());

    let setting = SemanticSearch::new(first.clone()).with_second(second.clone());
    // Two models and no fusion set: the one tuned for two, not the one-model default.
    assert_eq!(setting.fusion(), HybridConfig::three_rankings());
    let both = HybridIndex::build(&registry, &setting, &mut cache)
        .await
        .unwrap();
    assert_eq!(both.config(), HybridConfig::three_rankings());
    assert_eq!(both.second().map(SemanticIndex::len), Some(4));
    // One cache holds both models' vectors, apart (the key names the model).
    assert_eq!(cache.len(), 8);
    first.embedded.store(0, Ordering::SeqCst);
    second.embedded.store(0, Ordering::SeqCst);
    let hits = both.search(query, 3).await.unwrap();
    assert_eq!(
        hits.first().map(|hit| hit.name),
        Some("send_money"),
        "{hits:?}"
    );
    // Each search embeds its query once per model.
    assert_eq!(first.embedded.load(Ordering::SeqCst), 1);
    assert_eq!(second.embedded.load(Ordering::SeqCst), 1);
    // Without the second vector the second ranking is left out.
    let vector = first.embed(&[query]).await.unwrap().remove(0);
    assert!(both.fuse(query, &vector, 3, |_| true).is_empty());
    // And with it, a filter applies to it too.
    let money = second.embed(&[query]).await.unwrap().remove(0);
    let hits = both.fuse_both(query, &vector, Some(&money), 3, |_| true);
    assert_eq!(hits.first().map(|hit| hit.index), Some(0), "{hits:?}");
    let hits = both.fuse_both(query, &vector, Some(&money), 3, |index| index != 0);
    assert!(hits.iter().all(|hit| hit.index != 0), "{hits:?}");
}

/// One cache file shared by two settings (one model, then another) keeps both models' vectors:
/// saving prunes the gone tools of the models used, never another model's vectors.
#[tokio::test]
async fn a_shared_cache_file_keeps_every_models_vectors() {
    let path = scratch_path("two-models");
    let original = registry("Sends a transaction to the recipient.");
    let knows = |name| {
        Arc::new(Knows {
            name,
            concepts: CONCEPTS,
            embedded: AtomicUsize::new(0),
        })
    };
    let (first, second) = (knows("first"), knows("second"));
    for model in [&first, &second] {
        SemanticSearch::new(model.clone())
            .with_cache_file(&path)
            .build_index(&original)
            .await
            .unwrap();
    }
    assert_eq!(
        EmbeddingCache::open(&path).unwrap().len(),
        8,
        "4 tools × 2 models"
    );
    // The first model again: every vector from the file, the second model's still kept.
    first.embedded.store(0, Ordering::SeqCst);
    SemanticSearch::new(first.clone())
        .with_cache_file(&path)
        .build_index(&original)
        .await
        .unwrap();
    assert_eq!(first.embedded.load(Ordering::SeqCst), 0);
    assert_eq!(EmbeddingCache::open(&path).unwrap().len(), 8);
    // A tool changed, seen by the first model only: its old vector of that model goes, the
    // second model's old one stays until that model is used again.
    let changed = registry("Sends money to the recipient's bank account.");
    SemanticSearch::new(first.clone())
        .with_cache_file(&path)
        .build_index(&changed)
        .await
        .unwrap();
    assert_eq!(first.embedded.load(Ordering::SeqCst), 1);
    assert_eq!(EmbeddingCache::open(&path).unwrap().len(), 8);
    SemanticSearch::new(second.clone())
        .with_cache_file(&path)
        .build_index(&changed)
        .await
        .unwrap();
    assert_eq!(EmbeddingCache::open(&path).unwrap().len(), 8);
    std::fs::remove_file(&path).unwrap();
}

/// An embedder that answers with the wrong number of vectors.
struct Short;

#[async_trait]
impl Embedder for Short {
    fn model(&self) -> &str {
        "short"
    }
    async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
        Ok(vec![vec![1.0]; texts.len().saturating_sub(1)])
    }
}

#[tokio::test]
async fn an_embedder_that_answers_wrong_is_an_error() {
    let registry = registry("Sends a transaction to the recipient.");
    let error = SemanticIndex::build(&registry, &Short, &mut EmbeddingCache::in_memory())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::InvalidResponse { message, .. } if message.contains("vectors for")),
        "{error}"
    );
}

/// What each `search_tools` call of an agent found, in order.
type Found = std::sync::Arc<std::sync::Mutex<Vec<Vec<&'static str>>>>;

/// A model that searches for `query` (one result), then answers "done".
fn one_search(query: &str) -> phi_agent::llm::ScriptedLlm {
    use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    use phi_agent::search::SEARCH_TOOL_NAME;

    ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "s1",
            SEARCH_TOOL_NAME,
            json!({"query": query, "limit": 1}),
        )]),
        LlmResponse::text("done"),
    ])
}

/// An agent with local tool search through `search` over [`registry`]'s four tools (money sent
/// as "a transaction to the recipient"), and what its searches find.
fn searching_agent(
    llm: phi_agent::llm::ScriptedLlm,
    search: phi_agent::search::SemanticSearch,
) -> (phi_agent::PhiAgent, Found) {
    use phi_agent::{AgentConfig, AgentEvent, PhiAgent, ToolSearch, base_agent_builder};

    let found: Found = Arc::default();
    let sink = found.clone();
    let mut builder =
        base_agent_builder(llm)
            .semantic_search(search)
            .observer(move |event: &AgentEvent<'_>| {
                if let AgentEvent::ToolsFound { names, .. } = event {
                    sink.lock().unwrap().push(names.to_vec());
                }
            });
    for tool in registry("Sends a transaction to the recipient.").iter() {
        builder = builder.register_tool(Listed {
            name: tool.name(),
            description: tool.description(),
            exposure: tool.exposure(),
        });
    }
    let config = AgentConfig::default().with_tool_search(ToolSearch::Local);
    (PhiAgent::build(builder, config).unwrap(), found)
}

/// An agent with semantic search: the model's `search_tools` finds by meaning what the words
/// miss, the tools are embedded once for every search of every session (and their vectors
/// saved to the cache file), and each search embeds its query.
#[tokio::test]
async fn an_agents_search_tools_ranks_with_the_embedder() {
    use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
    use phi_agent::search::{SEARCH_TOOL_NAME, SemanticSearch};

    let search = |id: &str, query: &str| {
        LlmResponse::tool_calls(vec![ToolCall::new(
            id,
            SEARCH_TOOL_NAME,
            json!({"query": query, "limit": 1}),
        )])
    };
    let llm = ScriptedLlm::new([
        search("s1", "settle what I owe"),
        search("s2", "will there be rain"),
        LlmResponse::text("done"),
        search("s3", "settle what I owe"),
        LlmResponse::text("done again"),
    ]);
    let embedder = Arc::new(Concepts::default());
    let path = scratch_path("agent-embeddings");
    let (agent, found) = searching_agent(
        llm,
        SemanticSearch::new(embedder.clone()).with_cache_file(&path),
    );
    agent.run("pay my debts").await.unwrap();
    assert_eq!(
        embedder.embedded(),
        4 + 2,
        "four tools once, then one query per search"
    );
    agent.run("and again").await.unwrap();
    assert_eq!(
        embedder.embedded(),
        1,
        "the tools' vectors are the agent's, not the run's"
    );
    assert_eq!(
        *found.lock().unwrap(),
        [vec!["send_money"], vec!["get_weather"], vec!["send_money"]]
    );
    assert_eq!(
        EmbeddingCache::open(&path).unwrap().len(),
        4,
        "saved for the next agent"
    );
    std::fs::remove_file(&path).unwrap();
}

/// An embedder that always fails: searches still answer, from the words.
struct Down;

#[async_trait]
impl Embedder for Down {
    fn model(&self) -> &str {
        "down"
    }
    async fn embed(&self, _: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
        Err(AgentError::Config("the embedding service is down".into()))
    }
}

#[tokio::test]
async fn a_failing_embedder_leaves_the_words() {
    use phi_agent::search::SemanticSearch;

    let (agent, _) = searching_agent(
        one_search("weather forecast"),
        SemanticSearch::new(Arc::new(Down)),
    );
    let output = agent.run("weather?").await.unwrap();
    let result = &output.tool_calls[0];
    assert!(!result.is_error, "{result:?}");
    let text = format!("{:?}", result);
    assert!(text.contains("get_weather"), "{text}");
}

/// An agent whose semantic search has a second model: `search_tools` finds by the second
/// model's ranking what the words and the first model miss, and both models' tool vectors go
/// to the one cache file.
#[tokio::test]
async fn an_agents_search_tools_fuses_a_second_model() {
    use phi_agent::search::SemanticSearch;

    let llm = one_search("settle what I owe");
    let first = Arc::new(Knows {
        name: "files-and-weather",
        concepts: CONCEPTS[1..3].as_ref(),
        embedded: AtomicUsize::new(0),
    });
    let second = Arc::new(Knows {
        name: "money",
        concepts: CONCEPTS[..1].as_ref(),
        embedded: AtomicUsize::new(0),
    });
    let path = scratch_path("agent-two-models");
    let search = SemanticSearch::new(first.clone())
        .with_second(second.clone())
        .with_config(HybridConfig::three_rankings())
        .with_cache_file(&path);
    let (agent, found) = searching_agent(llm, search);
    agent.run("pay my debts").await.unwrap();
    assert_eq!(*found.lock().unwrap(), [vec!["send_money"]]);
    // Four tools and the query, by each model.
    assert_eq!(first.embedded.load(Ordering::SeqCst), 5);
    assert_eq!(second.embedded.load(Ordering::SeqCst), 5);
    assert_eq!(EmbeddingCache::open(&path).unwrap().len(), 8);
    std::fs::remove_file(&path).unwrap();
}
