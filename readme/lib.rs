//! The README and the book, as doc tests: every ```rust block of `README.md` and of each page
//! under `docs/src/` is compiled (and run, unless marked `no_run`) against the dependencies the
//! README's "Your crate's `Cargo.toml`" section lists, and nothing else (`tests/cargo_toml.rs`
//! holds this crate to that list).
//!
//! `build.rs` puts each block's scaffolding, kept in an HTML comment just before it, around it
//! as hidden lines. Run them alone with `cargo test -p phi-agent-readme`.
//!
//! The book's pages follow as modules, one per page (`docs/src/tools.md` is `book::tools`),
//! each documented with its page, so that their snippets are doc tests like the README's.
#![doc = include_str!(concat!(env!("OUT_DIR"), "/README.md"))]
// The pages are written for GitHub and mdBook: their links are relative file links, checked on
// the built book (`scripts/check-book-links.py`), not rustdoc's intra-doc links.
#![allow(
    rustdoc::broken_intra_doc_links,
    rustdoc::invalid_html_tags,
    rustdoc::bare_urls
)]

/// The book's pages (`docs/src/*.md`), one module each.
pub mod book {
    include!(concat!(env!("OUT_DIR"), "/book.rs"));
}
