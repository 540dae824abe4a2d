//! `ToolResult`: what a tool (or a hook answering for it with `respond`) returns.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A tool's result, as PicoClaw sends and receives it.
///
/// Optional fields stay absent when a peer left them out, so a result round-trips unchanged;
/// [`ToolResult::complete`] fills them the way PicoClaw always writes them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolResult {
    /// What the model sees.
    #[serde(default)]
    pub for_llm: String,
    /// What the user sees, when not silent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_user: Option<String>,
    /// Keep `for_user` from the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silent: Option<bool>,
    /// The tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// The tool runs asynchronously.
    #[serde(rename = "async", default, skip_serializing_if = "Option::is_none")]
    pub is_async: Option<bool>,
    /// Media references (`media://<id>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<Vec<String>>,
    /// Local artifact paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_tags: Option<Vec<String>>,
    /// The user's request is handled: deliver the media and end the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_handled: Option<bool>,
}

impl ToolResult {
    /// A successful result with text for the model.
    pub fn text(for_llm: impl Into<String>) -> Self {
        ToolResult { for_llm: for_llm.into(), ..ToolResult::default() }
    }

    /// A failed result with text for the model.
    pub fn error(for_llm: impl Into<String>) -> Self {
        ToolResult { for_llm: for_llm.into(), is_error: Some(true), ..ToolResult::default() }
    }

    /// The same result with `silent`, `is_error` and `async` present, as PicoClaw always writes them.
    pub fn complete(mut self) -> Self {
        self.silent.get_or_insert(false);
        self.is_error.get_or_insert(false);
        self.is_async.get_or_insert(false);
        self
    }

    /// Whether the tool failed.
    pub fn is_error(&self) -> bool {
        self.is_error.unwrap_or(false)
    }

    /// Whether the user's request is handled by this result.
    pub fn is_response_handled(&self) -> bool {
        self.response_handled.unwrap_or(false)
    }

    /// The media references, possibly empty.
    pub fn media(&self) -> &[String] {
        self.media.as_deref().unwrap_or(&[])
    }
}
