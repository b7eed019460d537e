//! Two `#[phi_tools]` blocks for one type, in two modules, registered together with a free fn.
//! The expansion adds no warning under the strict lints a library may deny (the markers that list
//! a type's tool methods are reachable through their impls but never named).

#![deny(missing_docs, unnameable_types, unreachable_pub, private_interfaces, private_bounds)]

use std::sync::Arc;

use phi_agent::registry::ToolRegistry;
use phi_agent::{ToolConfig, ToolContext, phi_tool, phi_tools, tools};

/// A catalog of items.
pub struct Catalog {
    items: Vec<String>,
}

mod read {
    use phi_agent::phi_tools;

    #[phi_tools]
    impl super::Catalog {
        /// List the catalog's items.
        #[tool(read_only)]
        pub async fn list_items(&self) -> Vec<String> {
            self.items.clone()
        }
    }
}

mod admin {
    use phi_agent::{AgentResult, phi_tools};

    #[phi_tools(tools_fn = "admin_tools")]
    impl super::Catalog {
        /// Count the catalog's items.
        #[phi_agent::tool(destructive = false)]
        pub async fn count_items(&self) -> AgentResult<usize> {
            Ok(self.items.len())
        }
    }
}

/// Another type with a `list_items` tool.
pub struct Shelf;

#[phi_tools]
impl Shelf {
    /// List the shelf's items.
    #[tool]
    async fn list_items(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Say hello.
#[phi_tool]
fn hello() -> &'static str {
    "hello"
}

#[tokio::main]
async fn main() {
    let catalog = Arc::new(Catalog { items: vec!["a".into(), "b".into()] });
    let mut all = Arc::clone(&catalog).tools();
    all.extend(Arc::clone(&catalog).admin_tools());
    assert_eq!(all.len(), 2);
    let listed = tools![catalog.list_items, catalog.count_items, hello];
    let mut registry = ToolRegistry::new(ToolConfig::default());
    for tool in listed {
        registry.register_arc(tool).unwrap();
    }
    // Two types with a `list_items` tool collide at registration, with the usual error.
    let clash = registry.register_all(Arc::new(Shelf).tools()).unwrap_err().to_string();
    assert!(clash.contains("list_items"), "{clash}");
    let _ = ToolContext::default();
    assert_eq!(read::CatalogListItems::NAME, "list_items");
    assert_eq!(admin::CatalogCountItems::NAME, "count_items");
}
