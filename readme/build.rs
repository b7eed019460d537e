//! Writes the README as rustdoc reads it: each ```rust block with the scaffolding of the HTML
//! comment just before it (`<!-- README test: .. -->`) around it as hidden lines, and every
//! other fenced block as text.
//!
//! The scaffolding (imports, a stand-in for what the prose calls `llm` or `pool`, an `async fn`
//! to hold `.await`) sits in a comment, which GitHub does not show, so the README reads as
//! written while every snippet is compiled as it stands.

use std::fmt::Write as _;
use std::path::Path;

const MARK: &str = "<!-- README test:";

fn main() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    println!("cargo::rerun-if-changed={}", readme.display());
    let text = std::fs::read_to_string(&readme).expect("README.md is readable");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR is set")).join("README.md");
    std::fs::write(out, doc_tests(&text)).expect("OUT_DIR is writable");
}

fn doc_tests(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    // The scaffolding of the next rust block: what goes before it, and after it.
    let mut scaffold: Option<(Vec<String>, Vec<String>)> = None;
    while let Some(line) = lines.next() {
        if let Some(first) = line.trim_start().strip_prefix(MARK) {
            let (mut before, mut after) = (Vec::new(), Vec::new());
            let mut past_snippet = false;
            let mut body: Vec<String> = Vec::new();
            if !first.trim().is_empty() {
                body.push(first.trim().to_string());
            }
            for line in lines.by_ref() {
                if line.trim() == "-->" {
                    break;
                }
                body.push(line.to_string());
            }
            for line in body {
                if line.trim() == "..." {
                    past_snippet = true;
                } else if past_snippet {
                    after.push(line);
                } else {
                    before.push(line);
                }
            }
            scaffold = Some((before, after));
            continue;
        }
        if let Some(info) = line.trim_start().strip_prefix("```")
            && !info.is_empty()
        {
            let rust = info.split(',').next() == Some("rust");
            let fence = if rust {
                line.to_string()
            } else {
                "```text".to_string()
            };
            let _ = writeln!(out, "{fence}");
            let (before, after) = if rust {
                scaffold.take().unwrap_or_default()
            } else {
                Default::default()
            };
            for line in &before {
                let _ = writeln!(out, "# {line}");
            }
            for line in lines.by_ref() {
                if line.trim_start().starts_with("```") {
                    for line in &after {
                        let _ = writeln!(out, "# {line}");
                    }
                    let _ = writeln!(out, "```");
                    break;
                }
                let _ = writeln!(out, "{line}");
            }
            continue;
        }
        let _ = writeln!(out, "{line}");
    }
    out
}
