//! The Server Card (SEP-2127): served from the server's own description at the endpoint's
//! `/server-card` and at the well-known path, without the bearer token; refused at start when
//! it would be invalid; absent unless asked for.

use phi_agent::mcp::{HttpOptions, HttpServer, ServerCard};
use serde_json::{Value, json};

use crate::raw::{client, echo_server, initialize_body, post, send};

/// A server with a bearer token and a card, described as a program would describe itself.
async fn carded_server() -> HttpServer {
    echo_server()
        .with_server_info("weather-server", "2.4.1")
        .with_server_title("Weather")
        .with_server_description("Forecasts and current weather by city")
        .serve_http(
            HttpOptions::default()
                .with_bearer_token("s3cret")
                .with_server_card(ServerCard::new("com.example/weather")),
        )
        .await
        .expect("the server starts")
}

fn card_url(server: &HttpServer, path: &str) -> String {
    format!("http://{}{path}", server.local_addr())
}

#[tokio::test]
async fn the_card_is_served_at_both_paths_without_the_token() {
    let server = carded_server().await;
    for path in ["/mcp/server-card", "/.well-known/mcp/server-card.json"] {
        let response = client()
            .get(card_url(&server, path))
            .header("Accept", "application/mcp-server-card+json")
            .send()
            .await
            .expect("an answer");
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers().clone();
        assert_eq!(
            headers["content-type"], "application/mcp-server-card+json",
            "{path}"
        );
        assert_eq!(headers["access-control-allow-origin"], "*");
        assert_eq!(headers["cache-control"], "public, max-age=3600");
        let card: Value = response.json().await.expect("JSON");
        assert_eq!(
            card["$schema"],
            "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json"
        );
        assert_eq!(card["name"], "com.example/weather");
        assert_eq!(card["version"], "2.4.1");
        assert_eq!(card["title"], "Weather");
        assert_eq!(card["description"], "Forecasts and current weather by city");
        assert_eq!(
            card["remotes"],
            json!([{
                "type": "streamable-http",
                "url": server.url(),
                "supportedProtocolVersions":
                    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
            }])
        );
        assert!(card.get("tools").is_none(), "the card lists no tools");
    }
    // The endpoint itself still wants the token.
    let refused = post(&server, initialize_body(1))
        .send()
        .await
        .expect("answer");
    assert_eq!(refused.status(), 401);
    // The card is read-only.
    let posted = client()
        .post(card_url(&server, "/mcp/server-card"))
        .body("{}")
        .send()
        .await
        .expect("an answer");
    assert_eq!(posted.status(), 405);
    assert_eq!(posted.headers()["allow"], "GET, HEAD, OPTIONS");
}

#[tokio::test]
async fn the_description_agrees_with_the_server_info() {
    let server = echo_server()
        .with_server_info("weather-server", "2.4.1")
        .with_server_description("Forecasts by city")
        .serve_http(HttpOptions::default().with_server_card(
            ServerCard::new("com.example/weather").with_url("https://mcp.example.com/mcp"),
        ))
        .await
        .expect("the server starts");
    let card: Value = client()
        .get(card_url(&server, "/mcp/server-card"))
        .send()
        .await
        .expect("an answer")
        .json()
        .await
        .expect("JSON");
    assert_eq!(card["remotes"][0]["url"], "https://mcp.example.com/mcp");
    let info = send(post(&server, initialize_body(1))).await.reply();
    assert_eq!(info["result"]["serverInfo"]["name"], "weather-server");
    assert_eq!(
        info["result"]["serverInfo"]["description"],
        card["description"]
    );
}

#[tokio::test]
async fn an_invalid_card_stops_the_server_from_starting_and_says_why() {
    let wrong_name = echo_server()
        .with_server_description("Weather")
        .serve_http(HttpOptions::default().with_server_card(ServerCard::new("weather")))
        .await
        .expect_err("refused");
    assert!(
        wrong_name.to_string().contains("com.example/weather"),
        "{wrong_name}"
    );
    let no_description = echo_server()
        .serve_http(HttpOptions::default().with_server_card(ServerCard::new("com.example/w")))
        .await
        .expect_err("refused");
    assert!(
        no_description
            .to_string()
            .contains("McpServer::with_server_description"),
        "{no_description}"
    );
    let every_address = echo_server()
        .with_server_description("Weather")
        .serve_http(
            HttpOptions::default()
                .with_bind(([0, 0, 0, 0], 0).into())
                .with_allowed_hosts(["mcp.example.com"])
                .with_server_card(ServerCard::new("com.example/w")),
        )
        .await
        .expect_err("refused");
    assert!(
        every_address.to_string().contains("ServerCard::with_url"),
        "{every_address}"
    );
}

#[tokio::test]
async fn without_a_card_the_paths_are_not_found() {
    let server = echo_server()
        .serve_http(HttpOptions::default())
        .await
        .expect("the server starts");
    for path in ["/mcp/server-card", "/.well-known/mcp/server-card.json"] {
        let response = client()
            .get(card_url(&server, path))
            .send()
            .await
            .expect("an answer");
        assert_eq!(response.status(), 404, "{path}");
    }
}
