//! Tool search: thousands of tools registered, the right few in the prompt.
//!
//! With [`AgentConfig::tool_search`](crate::AgentConfig::tool_search) on, the Deferred tools
//! whose [`should_activate`](crate::Tool::should_activate) holds are not sent to the model: they
//! are *discoverable*. The model sees its Direct tools and one more, `search_tools`, which
//! searches the discoverable tools' names, descriptions and parameters ([`ToolIndex`]); every tool
//! a search returns is callable from the model's next turn to the end of the session, appended to
//! the tools list so that the list's earlier entries (and a provider's prompt cache of them) never
//! change. With [`ToolSearch::Native`] and a client whose provider searches tools itself
//! (Anthropic), the provider's search replaces `search_tools`.
//!
//! Ranking is BM25F over four fields (name, description, parameter names, parameter docs),
//! with names split like identifiers (`list_calendar_events`, `getUserInfo`,
//! `triangle_properties.get`), light stemming, CJK and Thai text as overlapping character pairs
//! (those scripts write no spaces), numbers left out (in a request they are arguments), a
//! lightly weighted synonym expansion of the query, a coverage factor (tools meeting more of
//! the query's words come first), a bonus for a query that covers a tool's whole name,
//! pseudo-relevance feedback (the best hit's weightiest words, added at a low weight, lift the
//! tools that resemble it: the tools one task needs are alike), and producer links (the tools the
//! best hits' parameters come from join them, where a parameter's doc names the tool or an
//! identifier's words do: the lookup a task needs first). A tool's [group](crate::ToolGroup) (an
//! MCP server, a toolset) is read as a fifth field, weighted as a parameter's doc: "create an
//! issue on GitHub" reaches the GitHub server's `create_issue`. The first results of a long
//! request are chosen to cover it between them (breadth: a tool for each step it names before
//! a third variant of one). A query that lists its [`steps`] is searched step by step; one that
//! names a text file to keep its result in (`save it to notes/report.md`) gets the best tool for
//! writing a file in its fifth place, a step such requests never spell out. Every part and
//! number was chosen on the tuning parts of held-out sets built from public function-calling data
//! (BFCL, AgentDojo, NESTFUL, ComplexFuncBench, and for the written step LiveMCPBench's real MCP
//! servers); `BENCHMARKS.md` reports their test parts.

mod chinese;
mod clauses;
mod embed;
mod index;
#[cfg(feature = "lab")]
#[doc(hidden)]
pub mod lab;
mod links;
mod places;
mod skills;
mod steps;
mod synonyms;
mod tokenize;
mod tool;
mod written;

use serde_json::Value;

use crate::registry::{RegisteredTool, ToolRegistry};
use crate::schema::keyword;
use crate::tool::ToolExposure;
use index::{Field, IndexBuilder, Parts, TextIndex};

pub(crate) use clauses::clauses;
pub use embed::{
    Embedder, EmbeddingCache, Fusion, HybridConfig, HybridIndex, SemanticIndex, SemanticSearch,
};
pub use skills::SkillIndex;
pub(crate) use steps::interleave;
pub use steps::{MAX_STEPS, steps};
pub use tool::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SEARCH_TOOL_NAME, search_tool_spec};
pub(crate) use tool::{SearchArguments, found_text};
pub(crate) use written::{WRITTEN_STEP, with_writer, writes_a_file};

/// Whether and how an agent lets its model search for tools instead of sending them all.
///
/// ```
/// use phi_agent::{AgentConfig, ToolSearch};
///
/// let config = AgentConfig::default().with_tool_search(ToolSearch::Auto { threshold: 50 });
/// assert_eq!(config.tool_search, ToolSearch::Auto { threshold: 50 });
/// assert_eq!(AgentConfig::default().tool_search, ToolSearch::Off);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ToolSearch {
    /// Every active tool is sent (Deferred ones once their predicate holds). The default.
    #[default]
    Off,
    /// Deferred tools are found with the local `search_tools` tool ([`ToolIndex`]).
    Local,
    /// The provider's own tool search, when the model's client has one
    /// ([`LlmClient::native_tool_search`](crate::LlmClient::native_tool_search); the Anthropic
    /// adapter does: `tool_search_tool_bm25`). Discoverable tools then go in
    /// [`LlmRequest::deferred_tools`](crate::llm::LlmRequest::deferred_tools) (Anthropic: with
    /// `defer_loading: true`), the provider's searches come back in
    /// [`LlmResponse::tool_searches`](crate::llm::LlmResponse::tool_searches), and a tool found
    /// there is callable in the very reply. Other clients use [`Local`](Self::Local).
    Native,
    /// Decided once per session, at its start: search (as [`Native`](Self::Native)) when more
    /// than `threshold` Deferred tools are ready to be offered, otherwise send them all as
    /// [`Off`](Self::Off) does.
    Auto {
        /// Most discoverable tools a session sends without searching.
        threshold: usize,
    },
}

/// A search index over the Deferred tools of a registry.
///
/// ```
/// use phi_agent::registry::ToolRegistry;
/// use phi_agent::search::ToolIndex;
/// # use phi_agent::{AgentResult, Content, Tool, ToolContext, ToolExposure};
/// # use serde_json::{json, Value};
/// # struct T(&'static str, &'static str);
/// # #[async_trait::async_trait]
/// # impl Tool for T {
/// #     fn name(&self) -> &'static str { self.0 }
/// #     fn description(&self) -> &'static str { self.1 }
/// #     fn schema(&self) -> Value { json!({"type": "object"}) }
/// #     fn exposure(&self) -> ToolExposure { ToolExposure::Deferred }
/// #     async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> { Ok(vec![]) }
/// # }
/// let mut registry = ToolRegistry::default();
/// registry.register(T("delete_branch", "Delete a git branch."))?;
/// registry.register(T("delete_file", "Delete a file from the local disk."))?;
/// let index = ToolIndex::build(&registry);
/// assert_eq!(index.search("remove a git branch", 5)[0].name, "delete_branch");
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[derive(Debug, Default)]
pub struct ToolIndex {
    text: TextIndex,
    /// Per document: the tool's registration index, name and description.
    tools: Vec<(usize, &'static str, &'static str)>,
}

/// One tool a search found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchHit {
    /// The tool's name.
    pub name: &'static str,
    /// The tool's description.
    pub description: &'static str,
    /// Its score: higher is better; comparable only within one search.
    pub score: f32,
    /// The tool's registration index in the registry the index was built from.
    pub index: usize,
    /// Which of the query's [`steps`] found it (0 for a query of one step).
    pub step: usize,
}

#[cfg(test)]
impl SearchHit {
    /// The hit for the tool registered at `index`, for the tests of how rankings are combined.
    pub(crate) fn at(index: usize) -> Self {
        Self {
            name: "t",
            description: "",
            score: 1.0,
            index,
            step: 0,
        }
    }
}

impl ToolIndex {
    /// Indexes every Deferred tool of `registry` (Direct tools are always sent, Hidden ones never
    /// offered). Reads each schema once without keeping it parsed.
    pub fn build(registry: &ToolRegistry) -> Self {
        Self::build_with(registry, Parts::default())
    }

    /// [`build`](Self::build) without pseudo-relevance feedback, for fusion with a semantic
    /// ranking: the hybrid's fusions were chosen on this ranking, and with feedback the default
    /// one scored lower on the held-out tuning parts (BENCHMARKS.md, "Tool search"). Its
    /// producer links are not applied to its own results ([`search_unlinked`](Self::search_unlinked))
    /// but to the fused ones ([`lift_producers`](Self::lift_producers)).
    pub(crate) fn for_fusion(registry: &ToolRegistry) -> Self {
        Self::build_with(
            registry,
            Parts {
                feedback: None,
                ..Parts::default()
            },
        )
    }

    fn build_with(registry: &ToolRegistry, parts: Parts) -> Self {
        let mut builder = IndexBuilder::with_parts(parts);
        let mut tools = Vec::new();
        for (index, tool) in registry.iter().enumerate() {
            if tool.exposure() != ToolExposure::Deferred {
                continue;
            }
            add_tool(&mut builder, tool);
            tools.push((index, tool.name(), tool.description()));
        }
        Self {
            text: builder.build(),
            tools,
        }
    }

    /// The `limit` tools that best match `query`, best first. A query that lists several
    /// [`steps`] is searched step by step, the steps' results taking turns (each hit says its
    /// [`step`](SearchHit::step)).
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        self.search_where(query, limit, |_| true)
    }

    /// The `limit` best tools for `query` among those whose registration index `accept` lets
    /// through, best first (step by step as [`search`](Self::search) says).
    pub fn search_where(
        &self,
        query: &str,
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<SearchHit> {
        let steps = steps(query);
        if steps.len() == 1 {
            let hits = self.ranked(query, limit, true, &accept);
            if !self.implies_writing(query) {
                return hits;
            }
            let writer = self.ranked(WRITTEN_STEP, 1, true, &accept);
            return with_writer(hits, writer.into_iter().next(), limit);
        }
        let rankings = steps
            .iter()
            .map(|step| self.ranked(step, limit, true, &accept))
            .collect();
        interleave(rankings, limit)
    }

    /// Whether `query`, one step, keeps its result in a text file it names, so that the best tool
    /// for writing a file joins its results.
    pub(crate) fn implies_writing(&self, query: &str) -> bool {
        self.text.written_step() && writes_a_file(query)
    }

    /// [`search_where`](Self::search_where) without producer links: the ranking a hybrid fuses,
    /// which brings in the linked tools after fusing ([`lift_producers`](Self::lift_producers)).
    pub(crate) fn search_unlinked(
        &self,
        query: &str,
        limit: usize,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<SearchHit> {
        self.ranked(query, limit, false, accept)
    }

    fn ranked(
        &self,
        query: &str,
        limit: usize,
        link: bool,
        accept: impl Fn(usize) -> bool,
    ) -> Vec<SearchHit> {
        self.text
            .search(query, limit, link, |doc| accept(self.tools[doc as usize].0))
            .into_iter()
            .map(|(doc, score)| {
                let (index, name, description) = self.tools[doc as usize];
                SearchHit {
                    name,
                    description,
                    score,
                    index,
                    step: 0,
                }
            })
            .collect()
    }

    /// Lifts in `ranked` (registration indices with scores, best first, any ranking of these
    /// tools) the tools the best results' parameters come from to `share` of their scores, as
    /// the lexical ranking does with its own results ([`Links`](links::Links)); `ranked` is best
    /// first again after. Nothing changes when the index was built without links.
    pub(crate) fn lift_producers(
        &self,
        ranked: &mut Vec<(usize, f32)>,
        share: f32,
        accept: impl Fn(usize) -> bool,
    ) {
        let Some(links) = self.text.links() else {
            return;
        };
        let best = ranked.iter().take(links.docs);
        let best: Vec<(u32, f32)> = best
            .filter_map(|&(index, score)| Some((self.doc_of(index)?, score)))
            .collect();
        let lifted = self
            .text
            .lifted(best, share, |doc| accept(self.tools[doc as usize].0));
        for (doc, lifted) in lifted {
            let index = self.tools[doc as usize].0;
            match ranked.iter_mut().find(|(i, _)| *i == index) {
                Some((_, score)) => *score = score.max(lifted),
                None => ranked.push((index, lifted)),
            }
        }
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    }

    /// Reorders the best of `ranked` (registration indices with scores, best first) so that the
    /// first cover `query` between them, as the lexical ranking does with its own results
    /// ([`Breadth`](index::parts::Breadth)); `ranked` is best first again after. Nothing changes
    /// when the index was built without breadth.
    pub(crate) fn spread(&self, query: &str, ranked: &mut [(usize, f32)], weight: f32) {
        // Only the pool breadth may reorder is looked up (a fused ranking holds up to three
        // rankings' candidates).
        let Some(pool) = self.text.breadth_pool() else {
            return;
        };
        let head = ranked.len().min(pool);
        let mut docs: Vec<(u32, f32)> = ranked[..head]
            .iter()
            .map_while(|&(index, score)| Some((self.doc_of(index)?, score)))
            .collect();
        self.text.spread_query(query, &mut docs, weight);
        for (slot, (doc, score)) in ranked.iter_mut().zip(docs) {
            *slot = (self.tools[doc as usize].0, score);
        }
    }

    /// The document number of the tool registered at `index`.
    fn doc_of(&self, index: usize) -> Option<u32> {
        self.tools
            .binary_search_by_key(&index, |tool| tool.0)
            .ok()
            .map(|doc| doc as u32)
    }

    /// Number of tools indexed.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// The indexed tool registered at `index`: (index, name, description).
    fn tool(&self, index: usize) -> Option<(usize, &'static str, &'static str)> {
        let at = self.doc_of(index)?;
        Some(self.tools[at as usize])
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Bytes the index holds on the heap (its term dictionary, postings and per-tool entries;
    /// the names and descriptions it points to belong to the tools).
    pub fn heap_bytes(&self) -> usize {
        self.text.heap_bytes() + self.tools.capacity() * std::mem::size_of::<(usize, &str, &str)>()
    }
}

/// Nesting of parameter objects that is still indexed: deeper fields say little about what the
/// tool is for.
const MAX_PARAMETER_DEPTH: usize = 3;

fn add_tool(builder: &mut IndexBuilder, tool: &RegisteredTool) {
    tool.peek_schema(|schema| {
        let mut texts = vec![
            (Field::Name, tool.name()),
            (Field::Description, tool.description()),
        ];
        parameters(schema, 0, &mut texts);
        if let Some(group) = tool.group() {
            texts.push((Field::Group, group.name.as_str()));
            texts.push((Field::Group, group.description.as_str()));
        }
        builder.add(texts);
    });
}

/// The names and descriptions of the properties of `schema`, and of nested objects and arrays'
/// items down to [`MAX_PARAMETER_DEPTH`].
fn parameters<'a>(schema: &'a Value, depth: usize, texts: &mut Vec<(Field, &'a str)>) {
    let Some(schema) = schema.as_object().filter(|_| depth < MAX_PARAMETER_DEPTH) else {
        return;
    };
    // `keyword`, not `get`: a scan of a schema's few keys, where `get` hashes with SipHash.
    if let Some(properties) = keyword(schema, "properties").and_then(Value::as_object) {
        for (name, property) in properties {
            texts.push((Field::ParamName, name));
            let doc = property.as_object().and_then(|p| keyword(p, "description"));
            if let Some(doc) = doc.and_then(Value::as_str) {
                texts.push((Field::ParamDoc, doc));
            }
            parameters(property, depth + 1, texts);
        }
    }
    if let Some(items) = keyword(schema, "items") {
        parameters(items, depth + 1, texts);
    }
}
