//! What the four HTTP adapters share: the fields every one holds (the endpoint's poster with its
//! [`HttpConfig`], the key, the base URL, the model, the reply cap), their construction from
//! arguments or from the environment, and the public setters they all offer, written once so
//! that they read and behave the same on every adapter.

use std::fmt;

use futures_util::StreamExt;
use reqwest::header::HeaderMap;
use serde::Serialize;
use serde_json::Value;

use super::http::{ApiKey, JsonPoster};
use super::settings::EnvSettings;
use super::sse::Decoder;
use super::{DeltaStream, HttpConfig};
use crate::error::AgentResult;

/// The common state of an HTTP adapter.
#[derive(Clone)]
pub(crate) struct AdapterCore {
    pub(crate) http: JsonPoster,
    pub(crate) key: ApiKey,
    /// Without a trailing `/`.
    pub(crate) base_url: String,
    pub(crate) model: String,
    /// The cap on the reply's length; `None` leaves it to the provider (the adapter of an API
    /// that requires one sends its own default).
    pub(crate) max_tokens: Option<u32>,
    /// The prompt caching asked for; `None` leaves it to the adapter's default.
    // Gemini caches by a named cache of its own (`gemini::cache`), not by this setting.
    #[cfg_attr(not(any(feature = "openai", feature = "anthropic")), allow(dead_code))]
    pub(crate) prompt_cache: Option<super::PromptCache>,
}

impl AdapterCore {
    /// A core for `provider` (its name in errors and telemetry) with `api_key` and `model`,
    /// against `base_url`.
    pub(crate) fn new(
        provider: &'static str,
        api_key: String,
        model: String,
        base_url: &str,
    ) -> AgentResult<Self> {
        Ok(Self {
            http: JsonPoster::new(provider)?,
            key: ApiKey::new(api_key),
            base_url: trimmed(base_url),
            model,
            max_tokens: None,
            prompt_cache: None,
        })
    }

    /// The prompt caching asked for: the one set, else [`PromptCache::default`] against any
    /// server when `only_at` is `None`, or only against `only_at` (the public API) otherwise.
    #[cfg(any(feature = "openai", feature = "anthropic"))]
    pub(crate) fn prompt_cache(&self, only_at: Option<&str>) -> super::PromptCache {
        match (self.prompt_cache, only_at) {
            (Some(cache), _) => cache,
            (None, Some(public)) if trimmed(public) != self.base_url => super::PromptCache::Off,
            (None, _) => super::PromptCache::default(),
        }
    }

    pub(crate) fn set_base_url(&mut self, base_url: String) {
        self.base_url = trimmed(&base_url);
    }

    pub(crate) fn http_config(&self) -> &HttpConfig {
        &self.http.config
    }

    /// POSTs `body` to `url` with `headers` (the key among them), retrying as configured: the
    /// JSON of the 2xx answer, for the adapter's reply type to read.
    pub(crate) async fn post(
        &self,
        url: &str,
        headers: AgentResult<HeaderMap>,
        body: &(impl Serialize + Sync),
    ) -> AgentResult<Value> {
        self.http.post(url, &headers?, body).await
    }

    /// POSTs `body` (a request that asks for a stream) to `url` with `headers`, and yields the
    /// reply as `D` reads its events; a stream of one error if the headers could not be made.
    pub(crate) fn stream<D: Decoder + 'static>(
        &self,
        url: String,
        headers: AgentResult<HeaderMap>,
        body: &impl Serialize,
    ) -> DeltaStream<'_> {
        let headers = match headers {
            Ok(headers) => headers,
            Err(error) => return futures_util::stream::iter([Err(error)]).boxed(),
        };
        // Serializing JSON values and strings to memory cannot fail.
        let body = serde_json::to_vec(body).unwrap_or_default();
        self.http.stream::<D>(url, headers, body)
    }

    /// The `Debug` of adapter `name`: the base URL, the model, the key (redacted) and the HTTP
    /// config, for the adapter to add its own fields to.
    pub(crate) fn debug<'a, 'b>(
        &self,
        f: &'a mut fmt::Formatter<'b>,
        name: &str,
    ) -> fmt::DebugStruct<'a, 'b> {
        let mut out = f.debug_struct(name);
        out.field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.key)
            .field("http", &self.http.config);
        out
    }
}

/// A base URL without its trailing `/`, so that paths can be appended with one.
fn trimmed(base_url: &str) -> String {
    base_url.trim_end_matches('/').to_string()
}

/// An adapter that can be configured from the environment, the way the official SDKs are:
/// `{PREFIX}_API_KEY` (required), `{PREFIX}_MODEL` and `{PREFIX}_BASE_URL`.
pub(crate) trait FromSettings: Sized {
    /// The variables' prefix, e.g. `OPENAI`.
    const PREFIX: &'static str;
    /// The provider's name for people, e.g. `OpenAI`.
    const NAME: &'static str;
    /// The model when `{PREFIX}_MODEL` is not set.
    const MODEL: &'static str;

    /// The adapter for `key` and `model`, against the public API.
    fn with_key(key: String, model: String) -> AgentResult<Self>;

    /// Its common state, to point it at another base URL.
    fn core_mut(&mut self) -> &mut AdapterCore;

    /// The adapter configured from `get` (blank values count as unset).
    fn from_lookup(get: impl Fn(&str) -> Option<String>) -> AgentResult<Self> {
        let settings = EnvSettings::read(Self::PREFIX, Self::NAME, get)?;
        let model = settings.model.unwrap_or_else(|| Self::MODEL.to_string());
        let mut client = Self::with_key(settings.key, model)?;
        if let Some(url) = settings.base_url {
            client.core_mut().set_base_url(url);
        }
        Ok(client)
    }
}

/// The public setters and getters every HTTP adapter has, over its `core: AdapterCore` field:
/// `with_base_url`, `with_http_config`, `with_max_tokens`, `base_url`, `http_config`, and
/// `request_body`/`request_bytes` over its `body(&LlmRequest)` (any `Serialize`). The
/// arguments are the docs that differ: what the base URL includes, and the field the cap goes
/// in.
macro_rules! adapter_setters {
    (base_url: $base_url:literal, max_tokens: $max_tokens:literal $(,)?) => {
        #[doc = concat!("Sends requests to `base_url` instead (", $base_url, "); a trailing `/` is dropped.")]
        pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
            self.core.set_base_url(base_url.into());
            self
        }

        /// Uses `config` for timeouts and retries.
        pub fn with_http_config(mut self, config: $crate::llm::HttpConfig) -> Self {
            self.core.http.config = config;
            self
        }

        /// Sends every request through `transport` instead of reqwest's: a recorder that wraps
        /// [`ReqwestTransport`](crate::llm::ReqwestTransport), or a replayer that serves
        /// recorded replies offline (the cassettes of `phi-agent-eval`). Timeouts and retries
        /// stay this client's.
        pub fn with_http_transport(
            mut self,
            transport: ::std::sync::Arc<dyn $crate::llm::HttpTransport>,
        ) -> Self {
            self.core.http.transport = transport;
            self
        }

        #[doc = concat!("Caps the reply length (", $max_tokens, ").")]
        pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
            self.core.max_tokens = Some(max_tokens);
            self
        }

        /// The base URL requests go to.
        pub fn base_url(&self) -> &str {
            &self.core.base_url
        }

        /// The timeouts and retries in use.
        pub fn http_config(&self) -> &$crate::llm::HttpConfig {
            self.core.http_config()
        }

        /// The JSON body this client sends for `request`.
        pub fn request_body(&self, request: &$crate::llm::LlmRequest) -> ::serde_json::Value {
            ::serde_json::to_value(self.body(request)).unwrap_or_default()
        }

        /// The bytes this client posts for `request`: [`request_body`](Self::request_body),
        /// serialized. The tools part is copied from the text kept for the last tool list when
        /// the request shares it (the reuse rule in `registry/shared_list.rs`).
        ///
        /// Hidden: the benchmarks and conformance tests read it to see what a request costs and
        /// holds without a network; a program sends requests through
        /// [`LlmClient::complete`](crate::llm::LlmClient::complete).
        #[doc(hidden)]
        pub fn request_bytes(&self, request: &$crate::llm::LlmRequest) -> Vec<u8> {
            // Serializing JSON values and strings to memory cannot fail.
            ::serde_json::to_vec(&self.body(request)).unwrap_or_default()
        }
    };
}

pub(crate) use adapter_setters;

/// The prompt-cache setter and getter of an adapter whose default is `$default` (a sentence)
/// and whose cache is on by default only against `$only_at` (`None`: against any server).
#[cfg(any(feature = "openai", feature = "anthropic"))]
macro_rules! cache_setters {
    (default: $default:literal, only_at: $only_at:expr $(,)?) => {
        #[doc = concat!("Asks the provider's prompt cache for `cache` (see [`PromptCache`](crate::llm::PromptCache)). Default: ", $default)]
        pub fn with_prompt_cache(mut self, cache: $crate::llm::PromptCache) -> Self {
            self.core.prompt_cache = Some(cache);
            self
        }

        /// The prompt caching requests ask for; see [`with_prompt_cache`](Self::with_prompt_cache).
        pub fn prompt_cache(&self) -> $crate::llm::PromptCache {
            self.core.prompt_cache($only_at)
        }
    };
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
pub(crate) use cache_setters;
