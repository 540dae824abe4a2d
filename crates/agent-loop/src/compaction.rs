//! Context compaction: micro (shorten old tool results, every round) and auto (summarise the
//! conversation with the model once it grows past a token threshold).

use hook_llm::ChatRequest;
use hook_protocol::{ChatMessage, MessageContent, Role};

/// How the loop keeps the conversation small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionConfig {
    /// Run micro compaction (and its hooks) every round.
    pub micro: bool,
    /// Summarise when the estimated prompt size passes this many tokens; `None`: never.
    pub auto_threshold_tokens: Option<usize>,
    /// Messages at the end left untouched by both compactions.
    pub keep_last: usize,
}

/// Micro compaction shortens old tool results longer than this many characters.
pub const MICRO_MAX_CHARS: usize = 200;

impl Default for CompactionConfig {
    fn default() -> Self {
        CompactionConfig { micro: true, auto_threshold_tokens: None, keep_last: 8 }
    }
}

/// The text micro compaction leaves in place of an old tool result.
pub fn compacted_tool_text(n_chars: usize) -> String {
    format!("[old tool result compacted: {n_chars} characters]")
}

/// Micro compaction: tool results before the last `keep_last` messages and longer than
/// `max_chars` are replaced by a short note.
pub fn micro_compact(messages: &[ChatMessage], keep_last: usize, max_chars: usize) -> Vec<ChatMessage> {
    let boundary = messages.len().saturating_sub(keep_last);
    messages
        .iter()
        .enumerate()
        .map(|(idx, message)| {
            if idx >= boundary || message.role != Role::Tool {
                return message.clone();
            }
            let text = message.text_content();
            let n_chars = text.chars().count();
            if n_chars <= max_chars {
                return message.clone();
            }
            let mut compacted = message.clone();
            compacted.content = Some(MessageContent::Text(compacted_tool_text(n_chars)));
            compacted
        })
        .collect()
}

/// A rough token estimate: four characters per token.
pub fn estimate_tokens(system_prompt: &str, messages: &[ChatMessage]) -> usize {
    let chars: usize = system_prompt.chars().count()
        + messages
            .iter()
            .map(|m| {
                m.text_content().chars().count()
                    + m.tool_calls
                        .iter()
                        .flatten()
                        .map(|c| c.function.arguments.len() + c.function.name.len())
                        .sum::<usize>()
            })
            .sum::<usize>();
    chars.div_ceil(4)
}

/// The instruction given to the summariser.
pub const SUMMARY_PROMPT: &str = "Summarise the conversation below for a coding agent that will continue it. \
Keep every decision, file path, command, error and open task; drop pleasantries. Answer with the summary only.";

/// The header j-cli puts before context a `pre_auto_compact` hook asked to keep.
pub const PROTECTED_HEADER: &str = "[Protected Context — MUST preserve in full]:";

/// The summariser's prompt: [`SUMMARY_PROMPT`], then each protected text after
/// `\n\n[Protected Context — MUST preserve in full]:\n`, as j-cli does.
pub fn summary_prompt(protected: &[String]) -> String {
    let mut prompt = SUMMARY_PROMPT.to_owned();
    if !protected.is_empty() {
        prompt.push_str("\n\n");
        prompt.push_str(PROTECTED_HEADER);
        prompt.push('\n');
        prompt.push_str(&protected.join("\n"));
    }
    prompt
}

/// The request that asks the model for the summary of the messages before the kept tail.
pub(crate) fn summary_request(to_summarise: &[ChatMessage], protected: &[String]) -> ChatRequest {
    let mut transcript = String::new();
    for message in to_summarise {
        let role = match message.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        };
        transcript.push_str(role);
        transcript.push_str(": ");
        transcript.push_str(&message.text_content());
        for call in message.tool_calls.iter().flatten() {
            transcript.push_str(&format!("\n  [calls {}({})]", call.function.name, call.function.arguments));
        }
        transcript.push('\n');
    }
    ChatRequest::new(vec![
        ChatMessage::text(Role::System, summary_prompt(protected)),
        ChatMessage::text(Role::User, transcript),
    ])
}

/// Where the kept tail starts: `keep_last` from the end, moved back so it does not start with a
/// tool result (which must follow the assistant message that called it).
pub(crate) fn split_point(messages: &[ChatMessage], keep_last: usize) -> usize {
    let mut split = messages.len().saturating_sub(keep_last);
    while split > 0 && messages.get(split).is_some_and(|m| m.role == Role::Tool) {
        split -= 1;
    }
    split
}

/// The conversation after a summary: one user message carrying it, then the kept tail.
pub(crate) fn with_summary(summary: &str, tail: &[ChatMessage]) -> Vec<ChatMessage> {
    let mut messages = Vec::with_capacity(tail.len() + 1);
    messages.push(ChatMessage::text(Role::User, format!("[Summary of the earlier conversation]\n{summary}")));
    messages.extend_from_slice(tail);
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micro_compaction_shortens_only_old_long_tool_results() {
        let long = "x".repeat(300);
        let mut tool = ChatMessage::text(Role::Tool, long.clone());
        tool.tool_call_id = Some("c1".into());
        let messages = vec![
            ChatMessage::text(Role::User, long.clone()),
            tool.clone(),
            ChatMessage::text(Role::Tool, "short"),
            tool.clone(),
        ];
        let out = micro_compact(&messages, 1, 200);
        assert_eq!(out[0].text_content(), long);
        assert_eq!(out[1].text_content(), compacted_tool_text(300));
        assert_eq!(out[1].tool_call_id.as_deref(), Some("c1"));
        assert_eq!(out[2].text_content(), "short");
        assert_eq!(out[3].text_content(), long);
    }

    #[test]
    fn protected_context_follows_the_summary_prompt() {
        let prompt = summary_prompt(&["KEEP".into()]);
        assert!(prompt.ends_with("\n\n[Protected Context — MUST preserve in full]:\nKEEP"), "{prompt}");
        assert_eq!(summary_prompt(&[]), SUMMARY_PROMPT);
    }

    #[test]
    fn the_kept_tail_never_starts_with_a_tool_result() {
        let messages = vec![
            ChatMessage::text(Role::User, "a"),
            ChatMessage::text(Role::Assistant, "b"),
            ChatMessage::text(Role::Tool, "c"),
            ChatMessage::text(Role::Tool, "d"),
        ];
        assert_eq!(split_point(&messages, 2), 1);
        assert_eq!(split_point(&messages, 10), 0);
    }
}
