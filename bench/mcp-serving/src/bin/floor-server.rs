//! The floor of the serving benchmark: what any server of a `tools/call` over HTTP must do, and
//! nothing more. hyper serves HTTP/1; serde decodes the JSON-RPC envelope and the tool's
//! arguments into structs and writes the answer. No MCP library, no header checks, no sessions,
//! no schemas: a lower bound to measure the protocol layers against, not a design.

use std::convert::Infallible;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode, header};
use hyper_util::rt::TokioIo;
use mcp_serving_bench::Options;
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use tokio::net::TcpListener;

/// The envelope of a `tools/call`, read in one pass.
#[derive(Deserialize)]
struct Call {
    id: Id,
    method: String,
    params: Params,
}

#[derive(Deserialize)]
struct Params {
    name: String,
    arguments: Arguments,
}

/// The arguments of either tool: a struct of all their fields, so that they are read in the
/// same pass as the envelope whichever order the keys come in.
#[derive(Deserialize)]
struct Arguments {
    a: Option<i64>,
    b: Option<i64>,
    text: Option<String>,
}

/// A JSON-RPC id: a number or a string, written back as it came.
enum Id {
    Number(i64),
    Text(String),
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = Id;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Id, E> {
                Ok(Id::Number(value))
            }
            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Id, E> {
                i64::try_from(value)
                    .map(Id::Number)
                    .map_err(|_| E::custom("id out of range"))
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Id, E> {
                Ok(Id::Text(value.to_string()))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Number(number) => serializer.serialize_i64(*number),
            Id::Text(text) => serializer.serialize_str(text),
        }
    }
}

#[derive(Serialize)]
struct Answer<'a> {
    jsonrpc: &'static str,
    id: &'a Id,
    result: CallResult,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CallResult {
    content: [Text; 1],
    is_error: bool,
}

#[derive(Serialize)]
struct Text {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

/// The tool's answer text, or why the call is not one of the two tools'.
fn call(body: &[u8]) -> Result<Vec<u8>, String> {
    let call: Call = serde_json::from_slice(body).map_err(|error| error.to_string())?;
    if call.method != "tools/call" {
        return Err(format!("not a tools/call: {}", call.method));
    }
    let arguments = call.params.arguments;
    let text = match (call.params.name.as_str(), arguments) {
        (
            "add",
            Arguments {
                a: Some(a),
                b: Some(b),
                ..
            },
        ) => (a + b).to_string(),
        (
            "echo",
            Arguments {
                text: Some(text), ..
            },
        ) => text,
        (name, _) => return Err(format!("no tool {name} with these arguments")),
    };
    let answer = Answer {
        jsonrpc: "2.0",
        id: &call.id,
        result: CallResult {
            content: [Text { kind: "text", text }],
            is_error: false,
        },
    };
    serde_json::to_vec(&answer).map_err(|error| error.to_string())
}

async fn handle(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = match request.into_body().collect().await {
        Ok(body) => body.to_bytes(),
        Err(error) => {
            return Ok(answer(
                StatusCode::BAD_REQUEST,
                "text/plain",
                error.to_string(),
            ));
        }
    };
    Ok(match call(&body) {
        Ok(json) => answer(StatusCode::OK, "application/json", json),
        Err(problem) => answer(StatusCode::BAD_REQUEST, "text/plain", problem),
    })
}

fn answer(status: StatusCode, kind: &'static str, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, header::HeaderValue::from_static(kind));
    response
}

#[tokio::main]
async fn main() {
    let options = Options::from_args();
    let listener = TcpListener::bind(options.bind)
        .await
        .expect("the address is free");
    eprintln!(
        "floor server (hyper + serde) listening on http://{}/mcp",
        options.bind
    );
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        stream.set_nodelay(true).ok();
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), hyper::service::service_fn(handle))
                .await;
        });
    }
}
