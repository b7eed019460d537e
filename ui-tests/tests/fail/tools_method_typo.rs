use std::sync::Arc;

use phi_agent::{phi_tools, tools};

pub struct Shop;

#[phi_tools]
impl Shop {
    /// Search the catalogue.
    #[tool]
    async fn search_products(&self, query: String) -> String {
        query
    }

    /// Not a tool: no `#[tool]`.
    async fn restock(&self) {}
}

fn main() {
    let shop = Arc::new(Shop);
    let _ = tools![shop.search_product];
    let _ = tools![shop.restock];
}
