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

pub struct Basket;

#[phi_tools]
impl Basket {
    /// Add an item to the basket.
    #[tool]
    async fn add_item(&self, sku: String) -> String {
        sku
    }

    /// Remove an item from the basket.
    #[tool]
    async fn remove_item(&self, sku: String) -> String {
        sku
    }
}

fn main() {
    let shop = Arc::new(Shop);
    let _ = tools![shop.search_product];
    let _ = tools![shop.restock];
    // A typo in a second block's method: every tool method of `Basket` is listed.
    let basket = Arc::new(Basket);
    let _ = tools![basket.add_itme];
}
