//! Skills served over MCP's skills extension (SEP-2640, `io.modelcontextprotocol/skills`): each
//! skill of a [`SkillCatalog`] is listed by `skills/list` and `skills/get` as an entry (the URI
//! of its `SKILL.md`, its frontmatter, and every file with its size and SHA-256 digest), and its
//! files are resources under `skill://<name>/`, read with `resources/read`.
//!
//! Files are read once, when the server is built: the digests a client checks must describe
//! the bytes it will be served.

use rmcp::model::{Skill as SkillEntry, SkillFrontmatter, SkillResource, SkillResources};

use super::resources::Resource;
use crate::skill::{Skill, SkillCatalog};

/// The URI scheme of skill resources.
const SCHEME: &str = "skill://";

/// A skill's entry and the resources that serve its files.
pub(super) struct Served {
    pub(super) entry: SkillEntry,
    pub(super) resources: Vec<Resource>,
}

/// Each skill of `catalog` as served: its entry and resources. A file that cannot be read as
/// text is left out of both (with a warning), so that the entry lists only what is served.
pub(super) fn serve(catalog: &SkillCatalog) -> Vec<Served> {
    catalog.iter().map(|skill| served(skill)).collect()
}

fn served(skill: &Skill) -> Served {
    let base = format!("{SCHEME}{}/", skill.name());
    let skill_md_uri = format!("{base}SKILL.md");
    let skill_md = skill.skill_md();
    let mut files = vec![(skill_md_uri.clone(), skill_md, "text/markdown")];
    for path in skill.files() {
        match skill.read_file(&path) {
            Ok(text) => files.push((format!("{base}{}", encode(&path)), text, mime_type(&path))),
            Err(error) => {
                tracing::warn!(skill = skill.name(), %path, %error, "skill file not served");
            }
        }
    }
    let manifest = files
        .iter()
        .map(|(uri, text, _)| SkillResource::from_bytes(uri.clone(), text.as_bytes()))
        .collect();
    let mut front = skill.frontmatter();
    front.remove("name");
    front.remove("description");
    let mut frontmatter = SkillFrontmatter::new(skill.name(), skill.description());
    frontmatter.extra = front;
    let entry = SkillEntry::new(skill_md_uri, frontmatter, SkillResources::Files(manifest));
    let resources = files
        .into_iter()
        .enumerate()
        .map(|(at, (uri, text, mime))| {
            let contents = crate::content::ResourceContents::text(uri, mime, text);
            let resource = if at == 0 {
                // SKILL.md: named and described by the frontmatter, as the extension asks.
                Resource::fixed(skill.name(), contents).with_description(skill.description())
            } else {
                let name = contents.uri.trim_start_matches(SCHEME).to_string();
                Resource::fixed(name, contents)
            };
            resource.with_mime_type(mime)
        })
        .collect();
    Served { entry, resources }
}

/// The MIME type of a skill's file, by its extension: Markdown, or plain text.
fn mime_type(path: &str) -> &'static str {
    if path.ends_with(".md") || path.ends_with(".markdown") {
        "text/markdown"
    } else {
        "text/plain"
    }
}

/// `path` with every byte but RFC 3986's unreserved characters and `/` percent-encoded.
fn encode(path: &str) -> String {
    let mut encoded = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            encoded.push(byte as char);
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_lists_every_served_file_with_its_digest() {
        let skill = Skill::new("pdf-forms", "Fill in PDF forms.", "List the fields.")
            .unwrap()
            .with_tools(["pdf_fill"])
            .with_file("refs/field types.md", "Text.")
            .unwrap();
        let served = served(&skill);
        assert!(served.entry.validate().is_ok(), "{:?}", served.entry);
        let SkillResources::Files(files) = &served.entry.resources else {
            panic!("a manifest");
        };
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://pdf-forms/SKILL.md",
                "skill://pdf-forms/refs/field%20types.md"
            ]
        );
        let skill_md = skill.skill_md();
        assert!(files[0].verify(skill_md.as_bytes()).is_ok());
        assert_eq!(
            skill_md,
            "---\nname: \"pdf-forms\"\ndescription: \"Fill in PDF forms.\"\nallowed-tools: \"pdf_fill\"\n---\nList the fields."
        );
        assert_eq!(served.entry.frontmatter.extra["allowed-tools"], "pdf_fill");
        assert_eq!(served.resources.len(), 2);
    }
}
