//! The schema conformance corpus: for every argument type and every provider dialect,
//! (a) the dialect schema obeys the provider's rules (an independent checker of the rules in docs/src/providers.md),
//! (b) values generated from the Rust type validate against it (`jsonschema`), and
//! (c) near-misses are refused by the schema and by decoding alike, and (d) values drawn from
//! each dialect schema itself decode (what a schema lets a model write, the tool accepts).
//! The outcome is the table in `docs/src/schema-conformance.md`; set `PHI_UPDATE_DOCS=1` to rewrite it.

#[path = "schema_conformance/case.rs"]
mod case;
#[path = "schema_conformance/corpus.rs"]
mod corpus;
#[path = "schema_conformance/mutations.rs"]
mod mutations;
#[path = "schema_conformance/rules.rs"]
mod rules;
#[path = "schema_conformance/sample.rs"]
mod sample;

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use phi_agent::llm::definition;
use phi_agent::llm::{GeminiClient, GeminiSchemaForm, LlmRequest, ToolSpec};
use phi_agent::schema::{Dialect, to_dialect};
use serde_json::{Value, json};

use case::{CASES_PER_TYPE, Case};

/// A validator for a dialect schema (Gemini's `nullable` read back as a `null` union).
fn validator(schema: &Value, dialect: Dialect) -> jsonschema::Validator {
    let schema = match dialect {
        Dialect::Gemini => rules::gemini_as_json_schema(schema),
        _ => schema.clone(),
    };
    jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("not a valid JSON Schema ({e}): {schema}"))
}

/// Everything wrong with one case in one dialect: empty when the dialect schema and the
/// decoder agree on every generated value and every near-miss.
fn mismatches(case: &Case, dialect: Dialect, schema: &Value, generated: &[Value]) -> Vec<String> {
    let mut found = Vec::new();
    let validator = validator(schema, dialect);
    for value in generated {
        if let Err(e) = case.decode(value) {
            found.push(format!("generated value {value} does not decode: {e}"));
        }
        if let Err(e) = validator.validate(value) {
            found.push(format!(
                "generated value {value} is refused by the schema: {e}"
            ));
        }
    }
    for value in &case.near_misses {
        // Refused by the tool's decoder (which holds objects the schema closes to it), not
        // only by serde's.
        if case.decode_as_tool(value).is_ok() {
            found.push(format!("near-miss {value} decodes; it is not a near-miss"));
        }
        if validator.is_valid(value) && !gemini_loss(case, dialect, value) {
            found.push(format!(
                "near-miss {value} is accepted by the schema but refused by decoding"
            ));
        }
    }
    found
}

/// Whether `value` is let through by the Gemini schema only because Gemini cannot close an
/// object: the canonical schema refuses it for unknown fields and nothing else. That is the one
/// documented loss (`docs/src/providers.md#gemini-no-additional-properties`); dispatch refuses it.
fn gemini_loss(case: &Case, dialect: Dialect, value: &Value) -> bool {
    if dialect != Dialect::Gemini {
        return false;
    }
    // At any depth, inside alternatives too: the canonical schema refuses it, and the same
    // schema with every object opened accepts it.
    let canonical = validator(&case.canonical, Dialect::Mcp);
    let opened = validator(&opened(&case.canonical), Dialect::Mcp);
    !canonical.is_valid(value) && opened.is_valid(value)
}

/// `schema` with `additionalProperties: false` taken out everywhere.
fn opened(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, sub)| !(*key == "additionalProperties" && **sub == json!(false)))
                .map(|(key, sub)| (key.clone(), opened(sub)))
                .collect(),
        ),
        Value::Array(items) => items.iter().map(opened).collect(),
        other => other.clone(),
    }
}

/// `value` with one field more than it has, when it is an object.
fn with_an_extra_field(value: &Value) -> Option<Value> {
    let mut value = value.clone();
    value
        .as_object_mut()?
        .insert("surely_not_a_field".into(), Value::from(1));
    Some(value)
}

/// `value` with one field more in one of its objects, for each object at any depth (the value
/// itself, the objects in its arrays and in its objects' fields, ..).
fn with_an_extra_field_at_every_depth(value: &Value) -> Vec<Value> {
    fn walk(value: &Value, pointer: String, pointers: &mut Vec<String>) {
        match value {
            Value::Object(fields) => {
                pointers.push(pointer.clone());
                for (name, field) in fields {
                    let name = name.replace('~', "~0").replace('/', "~1");
                    walk(field, format!("{pointer}/{name}"), pointers);
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    walk(item, format!("{pointer}/{index}"), pointers);
                }
            }
            _ => {}
        }
    }
    let mut pointers = Vec::new();
    walk(value, String::new(), &mut pointers);
    pointers
        .into_iter()
        .map(|pointer| {
            let mut value = value.clone();
            if let Some(Value::Object(fields)) = value.pointer_mut(&pointer) {
                fields.insert("surely_not_a_field".into(), Value::from(1));
            }
            value
        })
        .collect()
}

/// For every type as the one parameter `value` of a `#[phi_tool]` (whose arguments refuse
/// unknown fields), a generated value with an extra field beside it is refused by the tool, and
/// the refusal names the field; without the extra field the same value is accepted.
#[test]
fn an_extra_field_is_refused_for_every_type_as_a_macro_tool_parameter() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for case in corpus::all() {
        for value in case.generated().iter().take(4) {
            let args = json!({"value": value});
            let extra = with_an_extra_field(&args).expect("an object");
            checked += 1;
            match case.call_as_macro_tool(&extra) {
                Ok(()) => broken.push(format!("{}: {extra} was accepted", case.name)),
                Err(e)
                    if !e.contains("unknown field `surely_not_a_field`; valid fields: `value`") =>
                {
                    broken.push(format!(
                        "{}: {extra} refused, but not for the field: {e}",
                        case.name
                    ))
                }
                Err(_) => {}
            }
            if let Err(e) = case.call_as_macro_tool(&args) {
                broken.push(format!(
                    "{}: {args} refused without the field: {e}",
                    case.name
                ));
            }
        }
    }
    assert!(checked > 100, "only {checked} values checked");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Over the whole corpus (generated values, near-misses, each with an extra field beside it
/// and inside it, in each of its objects at any depth), the validator of a macro tool's canonical schema and the tool's decoder agree on
/// every value: what one refuses the other refuses, so a mistake the model is told about is one
/// the tool would refuse, and the model is never told about a mistake that is not one.
#[test]
fn the_validator_and_the_decoder_of_macro_tools_never_disagree() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for case in corpus::all() {
        let validator = jsonschema::draft202012::new(&case.macro_schema).unwrap();
        let mut values = case.generated();
        values.extend(case.near_misses.iter().cloned());
        // One level down, and at every depth: an object the canonical schema closes refuses
        // an unknown field wherever it is, and one it leaves open takes it.
        let inside: Vec<Value> = values
            .iter()
            .flat_map(with_an_extra_field_at_every_depth)
            .collect();
        values.extend(inside);
        for value in values {
            let args = json!({"value": value});
            let beside = with_an_extra_field(&args).expect("an object");
            for args in [args, beside] {
                checked += 1;
                let decoded = case.call_as_macro_tool(&args);
                if decoded.is_ok() != validator.is_valid(&args) {
                    broken.push(format!(
                        "{}: {args}: decoder {decoded:?}, validator {}",
                        case.name,
                        validator.is_valid(&args)
                    ));
                }
            }
        }
    }
    assert!(checked > 5000, "only {checked} values checked");
    assert!(
        broken.is_empty(),
        "{} disagreements:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn corpus_covers_at_least_forty_types() {
    let corpus = corpus::all();
    assert!(corpus.len() >= 40, "only {} types", corpus.len());
    assert!(corpus.iter().all(|case| !case.near_misses.is_empty()));
}

#[test]
fn dialect_schemas_obey_the_provider_rules() {
    let mut broken = Vec::new();
    for case in corpus::all() {
        for dialect in Dialect::ALL {
            if let Ok(schema) = to_dialect(&case.canonical, dialect) {
                for problem in rules::check(&schema, dialect) {
                    broken.push(format!("{} / {dialect}: {problem}\n  {schema}", case.name));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// The OpenAI adapter writes the strict dialect straight into the request from a view of the
/// canonical schema; what it writes must be the dialect schema these tests check, and a schema
/// strict mode refuses must go out unchanged, without `strict`.
#[test]
fn the_request_carries_exactly_the_checked_dialect_schema() {
    for case in corpus::all() {
        let spec = ToolSpec::new("probe", "A probe", case.canonical.clone());
        let function = &definition::openai(&spec)["function"];
        match to_dialect(&spec.schema, Dialect::OpenAiStrict) {
            Ok(strict) => {
                // Compared as text: the keys' order is what the model reads, too.
                assert_eq!(
                    function["parameters"].to_string(),
                    strict.to_string(),
                    "{}",
                    case.name
                );
                assert_eq!(function["strict"], true, "{}", case.name);
            }
            Err(_) => {
                assert_eq!(function["parameters"], *spec.schema, "{}", case.name);
                assert_eq!(function["strict"], false, "{}", case.name);
            }
        }
    }
}

/// The one function declaration a Gemini request for `spec` carries, read back from the bytes
/// posted, and those bytes as text.
fn gemini_declaration(spec: &ToolSpec, form: GeminiSchemaForm) -> (Value, String) {
    let client = GeminiClient::new("k", "m").unwrap().with_schema_form(form);
    let request = LlmRequest::default().with_tools(Arc::from(vec![spec.clone()]));
    let bytes = String::from_utf8(client.request_bytes(&request)).unwrap();
    let body: Value = serde_json::from_str(&bytes).unwrap();
    (body["tools"][0]["functionDeclarations"][0].clone(), bytes)
}

/// What Gemini is sent for `spec`, in both forms, is the dialect schema these tests check, byte
/// for byte (`docs/src/providers.md#gemini-json-schema`, `#gemini-function-declaration`):
/// `parametersJsonSchema` is the MCP (canonical) dialect; `parameters` is the Gemini dialect,
/// left out for a tool without arguments, and a schema that dialect refuses goes out as
/// `parametersJsonSchema` instead.
pub(crate) fn assert_gemini_sends_the_dialects(spec: &ToolSpec, name: &str) {
    let (json_form, bytes) = gemini_declaration(spec, GeminiSchemaForm::JsonSchema);
    let mcp = to_dialect(&spec.schema, Dialect::Mcp).unwrap().to_string();
    assert!(
        bytes.contains(&format!("\"parametersJsonSchema\":{mcp}")),
        "{name}: {bytes}"
    );
    assert!(json_form.get("parameters").is_none(), "{name}");

    let (openapi_form, bytes) = gemini_declaration(spec, GeminiSchemaForm::OpenApi);
    match to_dialect(&spec.schema, Dialect::Gemini) {
        Ok(gemini) => {
            assert!(openapi_form.get("parametersJsonSchema").is_none(), "{name}");
            assert_eq!(
                openapi_form,
                definition::gemini(spec).unwrap(),
                "{name}: the adapter sends definition::gemini"
            );
            let has_properties = gemini["properties"]
                .as_object()
                .is_some_and(|properties| !properties.is_empty());
            if has_properties {
                let text = format!("\"parameters\":{gemini}");
                assert!(bytes.contains(&text), "{name}: {bytes}");
            } else {
                assert!(openapi_form.get("parameters").is_none(), "{name}");
            }
        }
        Err(_) => {
            assert!(openapi_form.get("parameters").is_none(), "{name}");
            assert!(
                bytes.contains(&format!("\"parametersJsonSchema\":{mcp}")),
                "{name}: {bytes}"
            );
        }
    }
}

#[test]
fn gemini_requests_carry_exactly_the_checked_dialect_schemas() {
    let mut fallbacks = 0;
    for case in corpus::all() {
        let spec = ToolSpec::new("probe", "A probe", case.canonical.clone());
        assert_gemini_sends_the_dialects(&spec, case.name);
        fallbacks += usize::from(to_dialect(&spec.schema, Dialect::Gemini).is_err());
    }
    assert!(fallbacks > 0, "the corpus exercises the fallback");
}

#[test]
fn no_silent_mismatch_between_any_dialect_schema_and_decoding() {
    let mut broken = Vec::new();
    for case in corpus::all() {
        let generated = case.generated();
        assert_eq!(generated.len(), CASES_PER_TYPE);
        for dialect in Dialect::ALL {
            if let Ok(schema) = to_dialect(&case.canonical, dialect) {
                for mismatch in mismatches(&case, dialect, &schema, &generated) {
                    broken.push(format!("{} / {dialect}: {mismatch}", case.name));
                }
            }
        }
        for mismatch in mismatches(&case, Dialect::Mcp, &case.canonical, &generated) {
            broken.push(format!("{} / canonical: {mismatch}", case.name));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn every_value_a_dialect_schema_allows_decodes() {
    let mut broken = Vec::new();
    for case in corpus::all() {
        let mut schemas = vec![("canonical".to_string(), case.canonical.clone())];
        for dialect in Dialect::ALL {
            if let Ok(schema) = to_dialect(&case.canonical, dialect) {
                schemas.push((dialect.to_string(), schema));
            }
        }
        for (dialect, schema) in schemas {
            for value in sample::samples(&schema) {
                if let Err(e) = case.decode(&value) {
                    broken.push(format!(
                        "{} / {dialect}: {value} fits the schema but does not decode: {e}",
                        case.name
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// Every integer written as a float (`3` as `3.0`), which JSON Schema still counts as an integer.
fn floats_for_integers(value: &Value) -> Value {
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => n
            .as_f64()
            .filter(|f| f.abs() < 9.0e15)
            .map_or_else(|| value.clone(), Value::from),
        Value::Array(items) => items.iter().map(floats_for_integers).collect(),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(name, field)| (name.clone(), floats_for_integers(field)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn integers_written_as_floats_are_accepted_like_the_schema_accepts_them() {
    let mut broken = Vec::new();
    let mut repaired = 0;
    for case in corpus::all() {
        let validator = validator(&case.canonical, Dialect::Mcp);
        for value in case.generated() {
            let floats = floats_for_integers(&value);
            if floats == value || !validator.is_valid(&floats) {
                continue;
            }
            repaired += 1;
            if let Err(e) = case.decode_as_tool(&floats) {
                broken.push(format!(
                    "{}: {floats} fits the schema but the tool refuses it: {e}",
                    case.name
                ));
            }
        }
    }
    assert!(
        repaired > 1000,
        "only {repaired} values had integers to rewrite"
    );
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn conformance_table_matches_docs() {
    let table = conformance_table();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src/schema-conformance.md");
    if std::env::var_os("PHI_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &table).expect("docs/src/schema-conformance.md is writable");
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        current == table,
        "docs/src/schema-conformance.md is out of date; run \
         `PHI_UPDATE_DOCS=1 cargo test -p phi-agent --test core schema_conformance` and review the diff"
    );
}

fn conformance_table() -> String {
    let corpus = corpus::all();
    let mut out = String::new();
    out.push_str(
        "# Schema conformance\n\n\
         Generated by `phi-agent/tests/core/schema_conformance.rs` (rewrite with \
         `PHI_UPDATE_DOCS=1 cargo test -p phi-agent --test core schema_conformance`); do not edit by hand.\n\n\
         Each row is an argument type (a scalar or container is the field `value` of an arguments \
         struct). Per dialect: **ok** (the dialect schema is sent, obeys the provider's rules, \
         accepts every generated value and refuses every near-miss the decoder refuses), \
         **fallback** (OpenAI strict only: the tool is sent with `strict: false` and the \
         non-strict schema, and a warning is logged) or **error** (the dialect cannot express \
         the type; the reason names the field).\n\n",
    );
    let _ = writeln!(
        out,
        "{} types; per type and dialect, {} values generated from the Rust type and {} drawn \
         from the schema; {} near-misses in all.\n",
        corpus.len(),
        CASES_PER_TYPE,
        sample::SAMPLES_PER_SCHEMA,
        corpus.iter().map(|c| c.near_misses.len()).sum::<usize>()
    );
    out.push_str("| type |");
    for dialect in Dialect::ALL {
        let _ = write!(out, " {dialect} |");
    }
    out.push_str("\n|---|");
    for _ in Dialect::ALL {
        out.push_str("---|");
    }
    out.push('\n');
    let mut reasons = Vec::new();
    for case in &corpus {
        let _ = write!(out, "| `{}` |", case.name);
        for dialect in Dialect::ALL {
            let cell = match to_dialect(&case.canonical, dialect) {
                Ok(_) => "ok".to_string(),
                Err(error) => {
                    reasons.push(format!("`{}` / {dialect}: {error}", case.name));
                    let fallback = dialect == Dialect::OpenAiStrict
                        && to_dialect(&case.canonical, Dialect::OpenAi).is_ok();
                    let kind = if fallback { "fallback" } else { "error" };
                    format!("{kind} [{}]", reasons.len())
                }
            };
            let _ = write!(out, " {cell} |");
        }
        out.push('\n');
    }
    out.push_str("\n## Reasons\n\n");
    for (index, reason) in reasons.iter().enumerate() {
        let _ = writeln!(out, "{}. {}", index + 1, reason.replace('|', "\\|"));
    }
    out.push_str(
        "\n## Known limits\n\n\
         - JSON Schema counts `3.0` as an integer and serde does not. No schema keyword can tell `3` \
         from `3.0`, so a typed tool repairs it instead: when decoding fails, each integral float at \
         a place where the schema admits only integers (following only the alternative of a union \
         that the value singles out) is read as that integer, and decoding is tried once more. \
         Every generated value with its integers written as floats is checked through a tool.\n\
         - A schema with alternatives at its root (a flattened enum) is refused when the tool is \
         registered: OpenAI, Anthropic and Gemini reject it, so offering it would fail every request. \
         Put the enum in a named field instead.\n\
         - Unknown fields are refused wherever the canonical schema closes an object, at any depth \
         (checked by inserting one into each object of every value); where it leaves one open \
         (a nested struct without `deny_unknown_fields`), they are ignored, by the schema and the \
         decoder alike.\n\
         - Two narrowings lose no meaning and are allowed: OpenAI strict mode refuses unknown \
         fields (the decoder would ignore them) and requires every field (`Option` fields accept \
         `null`; a field with a serde default must be sent, and its description names the default).\n\
         - One loss is allowed and documented: Gemini cannot close an object \
         (`additionalProperties: false` has no form there), so its schema lets through an unknown \
         field that the decoder refuses. Such a near-miss is not counted as a mismatch; dispatch \
         refuses it and names the field the model probably meant.\n",
    );
    out
}

/// A hand-written tool with a given schema: the registry keeps its schema as compact text and
/// reads it back on the tool's first turn.
struct Written(Value);

#[async_trait::async_trait]
impl phi_agent::Tool for Written {
    fn name(&self) -> &'static str {
        "probe"
    }
    fn description(&self) -> &'static str {
        "A probe"
    }
    fn schema(&self) -> Value {
        self.0.clone()
    }
    async fn call(
        &self,
        _: &Value,
        _: &phi_agent::ToolContext,
    ) -> phi_agent::AgentResult<Vec<phi_agent::Content>> {
        Ok(Vec::new())
    }
}

/// Every client's request bytes for each corpus schema, as `spec` gives them.
fn request_bytes(spec: &ToolSpec) -> Vec<Vec<u8>> {
    use phi_agent::llm::{AnthropicClient, OpenAiClient, ResponsesClient};
    let request = LlmRequest::default().with_tools(Arc::from(vec![spec.clone()]));
    vec![
        OpenAiClient::new("k", "m").unwrap().request_bytes(&request),
        ResponsesClient::new("k", "m")
            .unwrap()
            .request_bytes(&request),
        AnthropicClient::new("k", "m")
            .unwrap()
            .request_bytes(&request),
        GeminiClient::new("k", "m")
            .unwrap()
            .with_schema_form(GeminiSchemaForm::OpenApi)
            .request_bytes(&request),
        GeminiClient::new("k", "m")
            .unwrap()
            .with_schema_form(GeminiSchemaForm::JsonSchema)
            .request_bytes(&request),
    ]
}

/// A registered tool's schema goes through its compact text and the registry's own reader
/// (`registry/schema_text.rs`, which sizes each object once); every request is byte for byte
/// the one made from the schema as a `Value` that never became text.
#[test]
fn a_schema_kept_as_text_reads_back_to_the_same_requests() {
    let mut compared = 0;
    for case in corpus::all() {
        for schema in [&case.canonical, &case.macro_schema] {
            let mut registry = phi_agent::registry::ToolRegistry::default();
            // A root the providers refuse (a bare `Option<u8>`) is not registered at all.
            if registry.register(Written(schema.clone())).is_err() {
                continue;
            }
            compared += 1;
            let registered = registry.get("probe").unwrap().spec();
            let direct = ToolSpec::new("probe", "A probe", schema.clone());
            assert_eq!(
                registered.schema.to_string(),
                direct.schema.to_string(),
                "{}",
                case.name
            );
            assert!(
                request_bytes(&registered) == request_bytes(&direct),
                "{}: the requests differ",
                case.name
            );
        }
    }
    assert!(
        compared > corpus::all().len(),
        "{compared} schemas compared"
    );
}
