//! This crate's dev-dependencies are exactly the README's `Cargo.toml` list, so that its doc
//! tests (the README's snippets) build with what a reader's crate would have, and a snippet that
//! needs a crate the list lacks fails here.

use std::path::Path;

/// `name = spec` of each dependency line under `[dependencies]` in the README's ```toml block,
/// comments and spacing dropped.
fn readme_list() -> Vec<(String, String)> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .expect("README.md is readable");
    let block = readme
        .split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the README has a ```toml block");
    entries(
        block
            .lines()
            .skip_while(|line| line.trim() != "[dependencies]")
            .skip(1),
    )
}

/// The same of this crate's `[dev-dependencies]`, with phi-agent's `path` dropped.
fn our_list() -> Vec<(String, String)> {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .expect("Cargo.toml is readable");
    let lines = manifest
        .lines()
        .skip_while(|line| line.trim() != "[dev-dependencies]")
        .skip(1)
        .take_while(|line| !line.starts_with('['));
    entries(lines)
        .into_iter()
        .map(|(name, spec)| (name, spec.replace(", path = \"../phi-agent\"", "")))
        .collect()
}

fn entries<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<(String, String)> {
    lines
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (name, spec) = line.split_once('=').expect("`name = spec`");
            let spec = spec.trim();
            // `"0.1"` and `{ version = "0.1" }` say the same.
            let spec = match spec.strip_prefix('"') {
                Some(_) => format!("{{ version = {spec} }}"),
                None => spec.to_string(),
            };
            (name.trim().to_string(), spec)
        })
        .collect()
}

#[test]
fn the_doc_tests_build_with_exactly_the_readme_s_dependencies() {
    let readme = readme_list();
    assert!(readme.len() >= 6, "{readme:?}");
    assert_eq!(our_list(), readme);
}
