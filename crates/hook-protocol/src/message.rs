//! Chat messages, tool calls and tool definitions in the OpenAI function-calling format.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The system prompt.
    System,
    /// The user (or a hook speaking for the user).
    User,
    /// The model.
    Assistant,
    /// A tool result.
    Tool,
}

/// One message of a conversation.
///
/// Fields this crate does not know (provider extensions such as `cache_control`) are kept in
/// `extra`, so a hook that returns the messages it was given loses nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChatMessage {
    /// Who wrote it.
    pub role: Role,
    /// Text, or content parts (text and images).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<MessageContent>,
    /// Tool calls made by an assistant message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The call a tool message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Optional author name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Anything else the message carried.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ChatMessage {
    /// A message with plain text content.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        ChatMessage {
            role,
            content: Some(MessageContent::Text(text.into())),
            tool_calls: None,
            tool_call_id: None,
            name: None,
            extra: Map::new(),
        }
    }

    /// The text of the message: the string content, or its text parts joined by newlines.
    pub fn text_content(&self) -> String {
        match &self.content {
            None => String::new(),
            Some(MessageContent::Text(text)) => text.clone(),
            Some(MessageContent::Parts(parts)) => {
                parts.iter().filter_map(|part| part.text.as_deref()).collect::<Vec<_>>().join("\n")
            }
        }
    }
}

/// Message content: a string, or a list of parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MessageContent {
    /// Plain text.
    Text(String),
    /// Content parts (`{"type":"text",...}`, `{"type":"image_url",...}`).
    Parts(Vec<ContentPart>),
}

/// One content part. Unknown part types are kept as they are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContentPart {
    /// `text`, `image_url`, or another provider type.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text of a `text` part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The image of an `image_url` part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_url: Option<ImageUrl>,
    /// Anything else the part carried.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ContentPart {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        ContentPart { kind: "text".into(), text: Some(text.into()), image_url: None, extra: Map::new() }
    }

    /// An image part; `url` may be a `data:` URL.
    pub fn image(url: impl Into<String>) -> Self {
        ContentPart {
            kind: "image_url".into(),
            text: None,
            image_url: Some(ImageUrl { url: url.into(), detail: None }),
            extra: Map::new(),
        }
    }
}

/// The image of an `image_url` content part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ImageUrl {
    /// `https:` or `data:` URL.
    pub url: String,
    /// `low`, `high` or `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A tool call made by the model.
///
/// Read from the OpenAI form `{id, type, function: {name, arguments}}` and also from j-cli's flat
/// form `{id, name, arguments}`; always written in the OpenAI form.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ToolCall {
    /// Call id, echoed by the tool message that answers it.
    pub id: String,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function called.
    pub function: FunctionCall,
    /// Anything else the call carried.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolCall {
    /// A function call with JSON-text arguments.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        ToolCall {
            id: id.into(),
            kind: "function".into(),
            function: FunctionCall { name: name.into(), arguments: arguments.into(), extra: Map::new() },
            extra: Map::new(),
        }
    }
}

#[derive(Deserialize)]
struct ToolCallWire {
    #[serde(default)]
    id: String,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    function: Option<FunctionCall>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default, deserialize_with = "arguments_text")]
    arguments: Option<String>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

impl<'de> Deserialize<'de> for ToolCall {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = ToolCallWire::deserialize(deserializer)?;
        let function = match (wire.function, wire.name) {
            (Some(function), _) => function,
            (None, Some(name)) => {
                FunctionCall { name, arguments: wire.arguments.unwrap_or_default(), extra: Map::new() }
            }
            (None, None) => return Err(serde::de::Error::missing_field("function")),
        };
        Ok(ToolCall { id: wire.id, kind: wire.kind.unwrap_or_else(|| "function".into()), function, extra: wire.extra })
    }
}

/// The function part of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FunctionCall {
    /// Tool name.
    pub name: String,
    /// Arguments as JSON text (an object written as JSON is accepted and kept as its text).
    #[serde(default, deserialize_with = "arguments_text_required")]
    pub arguments: String,
    /// Anything else (e.g. `thought_signature`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolDefinition {
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The function offered.
    pub function: FunctionDefinition,
}

impl ToolDefinition {
    /// A function tool.
    pub fn function(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolDefinition {
            kind: "function".into(),
            function: FunctionDefinition {
                name: name.into(),
                description: Some(description.into()),
                parameters: Some(parameters),
                extra: Map::new(),
            },
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.function.name
    }
}

/// Name, description and JSON Schema of a function tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FunctionDefinition {
    /// Tool name.
    pub name: String,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Anything else (e.g. `strict`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Reads tool arguments written either as JSON text or as a JSON value (kept as compact text).
pub(crate) fn arguments_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text),
        Some(other) => Some(other.to_string()),
    })
}

fn arguments_text_required<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    arguments_text(deserializer).map(Option::unwrap_or_default)
}
