//! The tables tool search was chosen from, printed as markdown. Slow in a debug build: run with
//! `--release`.
//!
//! ```text
//! cargo run --release -p tool-search-lab -- report           # every set: phi-agent, plain BM25, word overlap
//! cargo run --release -p tool-search-lab -- parts            # what each part adds, on the test parts
//! cargo run --release -p tool-search-lab -- grid             # candidate numbers, on the tuning parts
//! cargo run --release -p tool-search-lab -- misses SET       # a set's tuning queries the lexical top 5 misses
//! cargo run --release -p tool-search-lab -- clauses [--test] # clause fusion, clauses as steps (not shipped)
//! cargo run --release -p tool-search-lab -- fusion-grid [--sentence] [--trained]  # the hybrid's fusions
//! cargo run --release -p tool-search-lab -- three-rankings   # words, static model and MiniLM [--trained [--test]]
//! cargo run --release -p tool-search-lab -- examples         # tools extended with earlier requests (not shipped)
//! cargo run --release -p tool-search-lab -- destination [--test]  # the written step, on and off
//! cargo run --release -p tool-search-lab -- memory           # earlier requests voting (not shipped)
//! cargo run --release -p tool-search-lab -- companions [--test]  # tools used together with the best hits
//! cargo run --release -p tool-search-lab -- ceiling          # recall at 5 to 50: what reordering could reach
//! cargo run --release -p tool-search-lab -- candidates tune|test  # the first 20, for train/rerank.py
//! cargo run --release -p tool-search-lab -- sentence-text    # what MiniLM is given of a tool
//! cargo run --release -p tool-search-lab -- hybrid-links     # producer links after fusing
//! cargo run --release -p tool-search-lab -- hybrid-breadth   # breadth after fusing
//! cargo run --release -p tool-search-lab -- hybrid-clauses   # a request's best clause in the vectors' ranking
//! cargo run --release -p tool-search-lab -- server-focus [--test]  # the best results' MCP server lifted (not shipped)
//! cargo run --release -p tool-search-lab -- scale [--sentence]        # one search at 10,000 tools
//! cargo run --release -p tool-search-lab -- query-embedding [--sentence]
//! ```
//!
//! The hybrid and scale commands need the models (`tool_search_lab::models`). The rule for
//! choosing: best mean recall@5 over the tuning parts, each set counting once, no set losing more
//! than 0.01 against what ships; a candidate chosen so is then run once on the test parts, and the
//! project's own fixture must keep its floors (`cargo test -p phi-agent --test core tool_search`).

mod destination;
mod examples;
mod hybrid;
mod lexical;
mod rerank;
mod scale;
mod servers;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime");
    match args.first().map(String::as_str) {
        Some("report") => lexical::report(),
        Some("parts") => lexical::changes_table(lexical::PARTS, "test"),
        Some("grid") => lexical::changes_table(lexical::GRID, "tune"),
        Some("misses") if args.len() == 2 => lexical::misses(&args[1]),
        Some("clauses") => lexical::clause_table(flag("--test")),
        Some("fusion-grid") => {
            runtime.block_on(hybrid::fusion_grid(flag("--sentence"), flag("--trained")))
        }
        Some("candidates") if args.len() == 2 => runtime.block_on(rerank::candidates(&args[1])),
        Some("ceiling") => runtime.block_on(rerank::ceiling_on_the_test_parts()),
        Some("destination") => {
            runtime.block_on(destination::destination_table(if flag("--test") {
                "test"
            } else {
                "tune"
            }))
        }
        Some("memory") => runtime.block_on(examples::memory_on_the_validation_slice()),
        Some("companions") if flag("--test") => {
            runtime.block_on(examples::companions_on_the_test_parts())
        }
        Some("companions") => runtime.block_on(examples::companions_on_the_validation_slice()),
        Some("examples") => runtime.block_on(examples::examples_on_the_validation_slice()),
        Some("three-rankings") if flag("--trained") && flag("--test") => {
            runtime.block_on(hybrid::three_rankings_on_the_test_parts())
        }
        Some("three-rankings") => runtime.block_on(hybrid::three_rankings_on_the_tuning_parts(
            flag("--trained"),
        )),
        Some("sentence-text") => runtime.block_on(hybrid::sentence_tool_text_on_the_tuning_parts()),
        Some("hybrid-links") => runtime.block_on(hybrid::after_fusing_on_the_tuning_parts(
            hybrid::AfterFusing::Links,
        )),
        Some("hybrid-breadth") => runtime.block_on(hybrid::after_fusing_on_the_tuning_parts(
            hybrid::AfterFusing::Breadth,
        )),
        Some("hybrid-clauses") => runtime.block_on(hybrid::after_fusing_on_the_tuning_parts(
            hybrid::AfterFusing::Clauses,
        )),
        Some("server-focus") => runtime.block_on(servers::server_focus(if flag("--test") {
            "test"
        } else {
            "tune"
        })),
        Some("scale") if flag("--sentence") => {
            runtime.block_on(scale::sentence_search_at_10000_tools())
        }
        Some("scale") => runtime.block_on(scale::one_search_at_10000_tools()),
        Some("query-embedding") if flag("--sentence") => scale::sentence_query_embedding(),
        Some("query-embedding") => scale::embedding_the_queries(),
        _ => {
            eprintln!(
                "usage: tool-search-lab report | parts | grid | misses SET | clauses [--test] | fusion-grid \
                 [--sentence] [--trained] | three-rankings [--trained [--test]] | destination [--test] | examples | memory | companions [--test] | ceiling | candidates tune|test | sentence-text | hybrid-links | hybrid-breadth | hybrid-clauses | server-focus [--test] | scale [--sentence] \
                 | query-embedding [--sentence]"
            );
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
