//! Tool search measured on catalogues and queries it was not tuned on: the held-out sets of
//! `data/` (built from public function-calling data by `scripts/tool-search-heldout.py`; see
//! `data/README.md`), each split by a hash of the expected tools into a tuning part and a test
//! part. Only the tuning parts may guide changes to the ranking; the test parts are what
//! `BENCHMARKS.md` reports.
//!
//! The crate's tests hold the lexical ranking to its margin over plain BM25 and each hybrid to
//! its measured recall on every test part (`cargo test -p tool-search-lab`); its binary prints
//! the tables and grids the ranking and the fusions were chosen from
//! (`cargo run --release -p tool-search-lab -- help`).

pub mod bm25;
pub mod clauses;
pub mod hybrid;
pub mod models;
pub mod score;
pub mod sets;
pub mod table;
