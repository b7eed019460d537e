use std::sync::Arc;

use phi_agent::{phi_tools, tools};

pub struct Shop;

// One mistake in one method: the block reports it, and listing the block's tools, that method's
// and the others', adds no error of its own.
#[phi_tools]
impl Shop {
    /// Search the catalogue.
    #[tool]
    async fn search_products(&self, query: &str) -> String {
        query.to_owned()
    }

    /// Put a product in the basket.
    #[tool]
    async fn add_to_basket(&self, sku: String) -> String {
        sku
    }
}

fn main() {
    let shop = Arc::new(Shop);
    let _ = tools![shop.search_products, shop.add_to_basket];
    let _ = shop.tools();
}
