//! hookwire's event context: everything a hook of any dialect may read about one event.
//!
//! It is j-cli's `HookContext` widened with what PicoClaw hooks see (tools, options, the
//! response's tool calls, the full `ToolResult`, meta). `hookwire fire` reads and prints it.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{ChatMessage, Event, HookContext, Meta, ToolCall, ToolDefinition, ToolResult, message::arguments_text};

/// The one list of the [`Context`] fields hooks may replace: adding a replaceable field to
/// `Context` means adding one line here (and the field itself), nothing else.
///
/// Calls `$callback! { (name, Variant, Type, "doc"), ... }` with one entry per field, in the
/// order of `Context`: the field's name, its variant in hook-core's `Field`, the type inside its
/// `Option`, and a short noun phrase for docs ("user message"). hook-core generates
/// `ContextPatch`, `Field`, `Field::ALL`, the names and the per-field set / clear / apply code
/// from it.
///
/// ```
/// macro_rules! names {
///     ($(($name:ident, $variant:ident, $ty:ty, $doc:literal)),* $(,)?) => {
///         [$(stringify!($name)),*]
///     };
/// }
/// let names = hook_protocol::for_each_context_field!(names);
/// assert_eq!(names[0], "user_input");
/// assert_eq!(names, hook_protocol::Context::REPLACEABLE);
/// ```
#[macro_export]
macro_rules! for_each_context_field {
    ($callback:ident) => {
        $callback! {
            (user_input, UserInput, String, "user message"),
            (messages, Messages, Vec<$crate::ChatMessage>, "conversation"),
            (system_prompt, SystemPrompt, String, "system prompt"),
            (model, Model, String, "model"),
            (tools, Tools, Vec<$crate::ToolDefinition>, "tool list"),
            (options, Options, $crate::serde_json::Map<String, $crate::serde_json::Value>, "model parameters"),
            (assistant_output, AssistantOutput, String, "reply text"),
            (tool_calls, ToolCalls, Vec<$crate::ToolCall>, "tool calls of the reply"),
            (tool_name, ToolName, String, "tool name"),
            (tool_arguments, ToolArguments, String, "tool arguments (JSON text)"),
            (tool_result, ToolResult, $crate::ToolResult, "tool result"),
            (tool_error, ToolError, String, "tool error text"),
        }
    };
}

/// The data of one event; fields are filled per event and absent when not filled.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Context {
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The user's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_input: Option<String>,
    /// The conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<ChatMessage>>,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tools offered to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolDefinition>>,
    /// Model parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Map<String, Value>>,
    /// The model's reply text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant_output: Option<String>,
    /// The tool calls of the model's reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    /// The tool being called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The tool's arguments as JSON text (an object is accepted and kept as its text).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "arguments_text")]
    #[schemars(with = "Option<Value>")]
    pub tool_arguments: Option<String>,
    /// The id of the tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The tool's result; written as a plain string when only `for_llm` is set.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "tool_result_out",
        deserialize_with = "tool_result_in"
    )]
    #[schemars(with = "Option<ToolResultOrText>")]
    pub tool_result: Option<ToolResult>,
    /// Why the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_error: Option<String>,
    /// How long the tool ran, in nanoseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ns: Option<u64>,
    /// Tracing metadata for process hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Channel the turn came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Chat id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_id: Option<String>,
    /// Members of an agent's hook input that have no field above (Claude Code's
    /// `transcript_path`, `permission_mode`, `source`, `stop_hook_active`, ...): handed unchanged
    /// to hooks of the Claude Code family.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
    /// On tool events, one view of the call for every dialect: the input as an object, the
    /// tool's class, the shell command, the paths it touches. Derived by hookwire from
    /// `tool_name`, `tool_arguments` and `cwd` before hooks run and again after a hook changes
    /// them; read-only: never read back (a `tool` given in a context or a hook's answer is
    /// ignored) and no hook can replace it.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolView>,
}

/// What kind of work a tool call does, whatever the agent calls the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolClass {
    /// Runs a shell command (Claude Code `Bash`, Gemini CLI `run_shell_command`, Codex `shell`).
    Shell,
    /// Reads files (`Read`, `read_file`, `read_many_files`).
    Read,
    /// Creates or overwrites files (`Write`, `write_file`).
    Write,
    /// Changes files in place (`Edit`, `MultiEdit`, `replace`, Codex `apply_patch`).
    Edit,
    /// Searches files by name or content (`Glob`, `Grep`, `search_file_content`).
    Search,
    /// Fetches or searches the web (`WebFetch`, `WebSearch`, `web_fetch`).
    Fetch,
    /// Lists a directory (`LS`, `list_directory`).
    List,
    /// Anything else, and tools hookwire does not know.
    Other,
}

impl ToolClass {
    /// The snake_case name (`shell`, `read`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolClass::Shell => "shell",
            ToolClass::Read => "read",
            ToolClass::Write => "write",
            ToolClass::Edit => "edit",
            ToolClass::Search => "search",
            ToolClass::Fetch => "fetch",
            ToolClass::List => "list",
            ToolClass::Other => "other",
        }
    }
}

/// The derived view of one tool call ([`Context::tool`]): the same members whichever agent
/// (Claude Code, Gemini CLI, Codex, PicoClaw, j-cli) made the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolView {
    /// The tool's arguments as a JSON object (`{}` when they are not an object).
    pub input: Map<String, Value>,
    /// What kind of work the tool does.
    pub class: ToolClass,
    /// The shell command, for shell tools (a command given as a word list is joined with spaces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The files and directories the call names, absolute (a relative path is resolved against
    /// the context's `cwd`), in the order the input names them, without repeats.
    #[serde(default)]
    pub paths: Vec<String>,
}

/// A tool result given as text or as a ToolResult object.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code, reason = "exists only to describe the schema")]
enum ToolResultOrText {
    Text(String),
    Result(ToolResult),
}

fn tool_result_out<S: Serializer>(result: &Option<ToolResult>, serializer: S) -> Result<S::Ok, S::Error> {
    match result {
        Some(r) if *r == ToolResult::text(r.for_llm.clone()) => serializer.serialize_str(&r.for_llm),
        other => other.serialize(serializer),
    }
}

fn tool_result_in<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<ToolResult>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Result(ToolResult),
    }
    Ok(match Option::<Either>::deserialize(deserializer)? {
        None => None,
        Some(Either::Text(text)) => Some(ToolResult::text(text)),
        Some(Either::Result(result)) => Some(result),
    })
}

/// The names of the listed fields, as a `&[&str]`.
macro_rules! field_names {
    ($(($name:ident, $variant:ident, $ty:ty, $doc:literal)),* $(,)?) => {
        &[$(stringify!($name)),*]
    };
}

/// Compile-time check of the list: each entry names a `Context` field of type `Option<Type>`.
macro_rules! check_field_types {
    ($(($name:ident, $variant:ident, $ty:ty, $doc:literal)),* $(,)?) => {
        const _: fn(&Context) = |context| {
            $(let _: &Option<$ty> = &context.$name;)*
        };
    };
}
for_each_context_field!(check_field_types);

impl Context {
    /// The members hooks may replace, in order: the names of [`for_each_context_field!`].
    pub const REPLACEABLE: &'static [&'static str] = for_each_context_field!(field_names);

    /// The members no hook may replace: facts of the event (ids, timing, metadata), `extra` and
    /// the derived `tool` view.
    pub const NOT_REPLACEABLE: &'static [&'static str] =
        &["session_id", "cwd", "tool_call_id", "duration_ns", "meta", "channel", "chat_id", "extra", "tool"];

    /// The j-cli view of this context for `event`: what a bash or llm hook reads on stdin.
    pub fn to_hook_context(&self, event: Event) -> HookContext {
        HookContext {
            event,
            messages: self.messages.clone(),
            system_prompt: self.system_prompt.clone(),
            model: self.model.clone(),
            user_input: self.user_input.clone(),
            assistant_output: self.assistant_output.clone(),
            tool_name: self.tool_name.clone(),
            tool_arguments: self.tool_arguments.clone(),
            tool_result: self.tool_result.as_ref().map(|r| r.for_llm.clone()),
            tool_error: self.tool_error.clone(),
            session_id: self.session_id.clone(),
            cwd: self.cwd.clone(),
            tool: self.tool.clone(),
        }
    }

    /// The tool arguments as a JSON value: the parsed text, or the text as a string when it is not JSON.
    pub fn tool_arguments_value(&self) -> Option<Value> {
        self.tool_arguments
            .as_deref()
            .map(|text| serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Role;

    /// Every field set; written without `..Default::default()` so that a new `Context` field
    /// does not compile here until it is added, and then must be listed in one of the two lists.
    fn full_context() -> Context {
        let mut extra = Map::new();
        extra.insert("transcript_path".into(), Value::from("/tmp/t.jsonl"));
        let mut options = Map::new();
        options.insert("temperature".into(), Value::from(0.5));
        Context {
            session_id: Some("s".into()),
            cwd: Some("/".into()),
            user_input: Some("hi".into()),
            messages: Some(vec![ChatMessage::text(Role::User, "hi")]),
            system_prompt: Some("be brief".into()),
            model: Some("m".into()),
            tools: Some(Vec::new()),
            options: Some(options),
            assistant_output: Some("hello".into()),
            tool_calls: Some(Vec::new()),
            tool_name: Some("Bash".into()),
            tool_arguments: Some("{}".into()),
            tool_call_id: Some("c1".into()),
            tool_result: Some(ToolResult::text("ok")),
            tool_error: Some("failed".into()),
            duration_ns: Some(1),
            meta: Some(Meta::default()),
            channel: Some("cli".into()),
            chat_id: Some("chat".into()),
            extra,
            tool: Some(ToolView { input: Map::new(), class: ToolClass::Shell, command: None, paths: Vec::new() }),
        }
    }

    #[test]
    fn every_context_member_is_listed_as_replaceable_or_not() {
        let Value::Object(members) = serde_json::to_value(full_context()).unwrap() else { panic!("not an object") };
        let mut serialized: Vec<&str> = members.keys().map(String::as_str).collect();
        let mut listed: Vec<&str> = Context::REPLACEABLE.iter().chain(Context::NOT_REPLACEABLE).copied().collect();
        serialized.sort_unstable();
        listed.sort_unstable();
        assert_eq!(
            serialized, listed,
            "a Context member is missing from for_each_context_field! (replaceable) or Context::NOT_REPLACEABLE"
        );
        assert!(!Context::REPLACEABLE.iter().any(|name| Context::NOT_REPLACEABLE.contains(name)));
    }
}
