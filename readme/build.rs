//! Writes the README and every page of the book (`docs/src/*.md`) as rustdoc reads them: each
//! ```rust block with the scaffolding of the HTML comment just before it (`<!-- README test: .. -->`)
//! around it as hidden lines, and every other fenced block as text. The pages go to
//! `OUT_DIR/book/`, with `OUT_DIR/book.rs` declaring one module per page whose doc is that page,
//! so that `lib.rs` turns each page's snippets into doc tests too.
//!
//! The scaffolding (imports, a stand-in for what the prose calls `llm` or `pool`, an `async fn`
//! to hold `.await`) sits in a comment, which GitHub does not show, so the README reads as
//! written while every snippet is compiled as it stands.

use std::fmt::Write as _;
use std::path::Path;

const MARK: &str = "<!-- README test:";

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR is set"));
    let readme = root.join("README.md");
    println!("cargo::rerun-if-changed={}", readme.display());
    let text = std::fs::read_to_string(&readme).expect("README.md is readable");
    std::fs::write(out.join("README.md"), doc_tests(&text)).expect("OUT_DIR is writable");

    // A directory named here is watched with every file under it: a page added, edited or
    // removed builds the modules anew.
    let pages = root.join("docs/src");
    println!("cargo::rerun-if-changed={}", pages.display());
    let mut names: Vec<String> = std::fs::read_dir(&pages)
        .expect("docs/src is readable")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".md"))
        .collect();
    names.sort();
    let book = out.join("book");
    std::fs::create_dir_all(&book).expect("OUT_DIR is writable");
    let mut modules = String::new();
    for name in &names {
        let text = std::fs::read_to_string(pages.join(name)).expect("a page is readable");
        std::fs::write(book.join(name), doc_tests(&text)).expect("OUT_DIR is writable");
        let module = name
            .trim_end_matches(".md")
            .replace(['-', '.'], "_")
            .to_lowercase();
        let _ = writeln!(
            modules,
            "#[doc = include_str!(concat!(env!(\"OUT_DIR\"), \"/book/{name}\"))]\npub mod {module} {{}}"
        );
    }
    std::fs::write(out.join("book.rs"), modules).expect("OUT_DIR is writable");
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
