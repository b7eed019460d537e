//! Resources an MCP server serves besides its tools: fixed ones ([`Resource`]) and families
//! addressed by a URI template ([`ResourceTemplate`]), and how they are listed and read
//! (`resources/list`, `resources/templates/list`, `resources/read`).

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResponse};
use serde_json::json;

use crate::content::ResourceContents;
use crate::error::AgentResult;
use crate::mcp::convert;

type Read = Arc<dyn Fn(String) -> BoxFuture<'static, AgentResult<ResourceContents>> + Send + Sync>;
type ReadTemplate = Arc<
    dyn Fn(String, BTreeMap<String, String>) -> BoxFuture<'static, AgentResult<ResourceContents>>
        + Send
        + Sync,
>;

/// A resource at one URI, listed by `resources/list` and read by `resources/read`: fixed
/// contents ([`text`](Self::text), [`blob`](Self::blob)) or contents read on each request
/// ([`new`](Self::new)).
///
/// ```
/// use phi_agent::ResourceContents;
/// use phi_agent::mcp::Resource;
///
/// let readme = Resource::text("docs://readme", "readme", "Start here.")
///     .with_description("What this server is for");
/// let clock = Resource::new("time://now", "now", |uri| async move {
///     Ok(ResourceContents::text(uri, "text/plain", "12:00"))
/// });
/// # let _ = (readme, clock);
/// ```
#[derive(Clone)]
pub struct Resource {
    pub(crate) uri: String,
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    /// `_meta` of the listing and of the contents read (an MCP App view's `ui` settings).
    pub(crate) meta: Option<serde_json::Map<String, serde_json::Value>>,
    pub(crate) read: Read,
}

/// The MIME type of an MCP App's view (SEP-1865): HTML that a host renders in a sandboxed frame.
pub const APP_VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";

impl Resource {
    /// A resource whose contents `read` makes on each request, from the requested URI.
    pub fn new<F, Fut>(uri: impl Into<String>, name: impl Into<String>, read: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = AgentResult<ResourceContents>> + Send + 'static,
    {
        Self {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
            meta: None,
            read: Arc::new(move |uri| Box::pin(read(uri))),
        }
    }

    /// A resource with fixed contents.
    pub fn fixed(name: impl Into<String>, contents: ResourceContents) -> Self {
        let uri = contents.uri.clone();
        let mime_type = contents.mime_type.clone();
        let mut resource = Self::new(uri, name, move |_| {
            let contents = contents.clone();
            async move { Ok(contents) }
        });
        resource.mime_type = mime_type;
        resource
    }

    /// A fixed `text/plain` resource.
    pub fn text(uri: impl Into<String>, name: impl Into<String>, text: impl Into<String>) -> Self {
        Self::fixed(name, ResourceContents::text(uri, "text/plain", text))
    }

    /// A fixed binary resource from base64 `data`.
    pub fn blob(
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<String>,
    ) -> Self {
        Self::fixed(name, ResourceContents::blob(uri, mime_type, data))
    }

    /// An MCP App's view (SEP-1865): the HTML a host renders in a sandboxed frame for the tools
    /// that name `uri` ([`ToolOptions::ui_resource`](crate::ToolOptions::ui_resource)), served
    /// as [`APP_VIEW_MIME_TYPE`]. `uri` should be a `ui://` URI. The view's settings for the
    /// host (content security policy, permissions, border) go in its `_meta.ui`
    /// ([`with_meta`](Self::with_meta)).
    ///
    /// ```
    /// use phi_agent::mcp::Resource;
    /// use serde_json::json;
    ///
    /// let view = Resource::app_view("ui://weather/card", "weather-card", "<!doctype html><p id=t></p>")
    ///     .with_meta(json!({"ui": {"prefersBorder": true}}));
    /// # let _ = view;
    /// ```
    pub fn app_view(
        uri: impl Into<String>,
        name: impl Into<String>,
        html: impl Into<String>,
    ) -> Self {
        Self::fixed(name, ResourceContents::text(uri, APP_VIEW_MIME_TYPE, html))
    }

    /// `_meta` for the resource's listing and its contents (a JSON object; anything else is
    /// ignored), e.g. an MCP App view's `{"ui": {"csp": .., "prefersBorder": true}}`.
    pub fn with_meta(mut self, meta: serde_json::Value) -> Self {
        if let serde_json::Value::Object(meta) = meta {
            self.meta = Some(meta);
        }
        self
    }

    /// What the resource is, for the client's user or model.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Its MIME type, as listed.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Resource")
            .field("uri", &self.uri)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A family of resources addressed by a URI template (RFC 6570 level 1: `{name}` stands for
/// one path segment), listed by `resources/templates/list`; a `resources/read` of a URI that
/// matches gets what `read` makes from the URI and the values of the template's variables.
///
/// ```
/// use phi_agent::ResourceContents;
/// use phi_agent::mcp::ResourceTemplate;
///
/// let orders = ResourceTemplate::new("shop://orders/{id}", "order", |uri, vars| async move {
///     Ok(ResourceContents::text(uri, "application/json", format!("{{\"id\":\"{}\"}}", vars["id"])))
/// });
/// # let _ = orders;
/// ```
#[derive(Clone)]
pub struct ResourceTemplate {
    pub(crate) uri_template: String,
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: Option<String>,
    pub(crate) read: ReadTemplate,
}

impl ResourceTemplate {
    /// A template whose resources `read` makes.
    pub fn new<F, Fut>(uri_template: impl Into<String>, name: impl Into<String>, read: F) -> Self
    where
        F: Fn(String, BTreeMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = AgentResult<ResourceContents>> + Send + 'static,
    {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            description: None,
            mime_type: None,
            read: Arc::new(move |uri, vars| Box::pin(read(uri, vars))),
        }
    }

    /// What the resources are, for the client's user or model.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Their MIME type, as listed.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// The values of the template's variables in `uri`, if it matches.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        match_template(&self.uri_template, uri)
    }
}

impl fmt::Debug for ResourceTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceTemplate")
            .field("uri_template", &self.uri_template)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Matches `uri` against a level-1 template: literals must match exactly, and each `{var}`
/// takes a non-empty run of characters up to the next literal, never a `/`.
fn match_template(template: &str, uri: &str) -> Option<BTreeMap<String, String>> {
    let mut vars = BTreeMap::new();
    let mut rest_template = template;
    let mut rest_uri = uri;
    while !rest_template.is_empty() {
        match rest_template.find('{') {
            Some(0) => {
                let close = rest_template.find('}')?;
                let name = &rest_template[1..close];
                rest_template = &rest_template[close + 1..];
                let literal_end = rest_template.find('{').unwrap_or(rest_template.len());
                let next_literal = &rest_template[..literal_end];
                let end = if next_literal.is_empty() {
                    rest_uri.len()
                } else {
                    rest_uri.find(next_literal)?
                };
                let value = &rest_uri[..end];
                if value.is_empty() || value.contains('/') {
                    return None;
                }
                vars.insert(name.to_string(), value.to_string());
                rest_uri = &rest_uri[end..];
            }
            found => {
                let end = found.unwrap_or(rest_template.len());
                let literal = &rest_template[..end];
                rest_uri = rest_uri.strip_prefix(literal)?;
                rest_template = &rest_template[end..];
            }
        }
    }
    rest_uri.is_empty().then_some(vars)
}

/// `resources/list`: the fixed resources, in the order they were added.
pub(super) fn listed(resources: &[Resource]) -> ListResourcesResult {
    let resources = resources
        .iter()
        .map(|resource| {
            let mut listed = rmcp::model::Resource::new(&resource.uri, &resource.name);
            listed.description = resource.description.clone();
            listed.mime_type = resource.mime_type.clone();
            listed.meta = resource.meta.clone().map(rmcp::model::MetaObject);
            listed
        })
        .collect();
    ListResourcesResult::with_all_items(resources)
}

/// `resources/templates/list`: the templates, in the order they were added.
pub(super) fn listed_templates(templates: &[ResourceTemplate]) -> ListResourceTemplatesResult {
    let templates = templates
        .iter()
        .map(|template| {
            let mut listed =
                rmcp::model::ResourceTemplate::new(&template.uri_template, &template.name);
            listed.description = template.description.clone();
            listed.mime_type = template.mime_type.clone();
            listed
        })
        .collect();
    ListResourceTemplatesResult::with_all_items(templates)
}

/// `resources/read` of `uri`: from the first fixed resource with that URI, else from the first
/// template it matches.
pub(super) async fn read(
    resources: &[Resource],
    templates: &[ResourceTemplate],
    uri: String,
) -> Result<ReadResourceResponse, ErrorData> {
    let mut meta = None;
    let contents = if let Some(resource) = resources.iter().find(|resource| resource.uri == uri) {
        meta = resource.meta.clone();
        (resource.read)(uri.clone()).await
    } else if let Some((template, vars)) = templates
        .iter()
        .find_map(|template| Some((template, template.matches(&uri)?)))
    {
        (template.read)(uri.clone(), vars).await
    } else {
        return Err(not_found(&uri));
    };
    let contents = contents.map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
    let mut contents = convert::resource_contents(contents);
    if let Some(meta) = meta {
        match &mut contents {
            rmcp::model::ResourceContents::TextResourceContents { meta: slot, .. }
            | rmcp::model::ResourceContents::BlobResourceContents { meta: slot, .. } => {
                *slot = Some(rmcp::model::MetaObject(meta));
            }
            _ => {}
        }
    }
    let result = rmcp::model::ReadResourceResult::new(vec![contents]);
    Ok(result.into())
}

/// Whether `uri` is one of `resources`, or matches one of `templates` (what
/// `resources/subscribe` accepts).
pub(super) fn serves(resources: &[Resource], templates: &[ResourceTemplate], uri: &str) -> bool {
    resources.iter().any(|resource| resource.uri == uri)
        || templates
            .iter()
            .any(|template| template.matches(uri).is_some())
}

/// The error of a `resources/read` or `resources/subscribe` of a URI not served: MCP's
/// "resource not found" (-32002).
pub(super) fn not_found(uri: &str) -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode(-32002),
        format!("Resource not found: no resource or template serves `{uri}`"),
        Some(json!({ "uri": uri })),
    )
}

#[cfg(test)]
mod tests {
    use super::match_template;

    #[test]
    fn templates_match_one_segment_per_variable() {
        let vars = match_template("test://template/{id}/data", "test://template/123/data").unwrap();
        assert_eq!(vars["id"], "123");
        assert!(match_template("test://template/{id}/data", "test://template/1/2/data").is_none());
        assert!(match_template("test://template/{id}/data", "test://template//data").is_none());
        assert!(match_template("test://template/{id}/data", "test://other/1/data").is_none());
        let two = match_template("db://{table}/{row}", "db://users/7").unwrap();
        assert_eq!((two["table"].as_str(), two["row"].as_str()), ("users", "7"));
    }
}
