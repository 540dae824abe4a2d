//! The llm hook's prompt template: `{{name}}` placeholders filled from the event, in one pass.

use hook_protocol::{Context, Event};

/// The placeholders a prompt may use: j-cli's eight, then hookwire's additions.
pub const PLACEHOLDERS: [&str; 11] = [
    "event",
    "cwd",
    "user_input",
    "assistant_output",
    "tool_name",
    "tool_arguments",
    "tool_result",
    "model",
    "tool_error",
    "session_id",
    "system_prompt",
];

/// Renders `template` for `event` and `context`.
///
/// The template is scanned once: a substituted value is copied as it is and never scanned
/// again, so a user message containing `{{model}}` stays literal. Unknown placeholders
/// (`{{foo}}`) are left as written; a placeholder whose value is missing becomes `""`.
pub fn render(template: &str, event: Event, context: &Context) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let known = PLACEHOLDERS.iter().find_map(|name| {
            let tail = after.strip_prefix(name)?.strip_prefix("}}")?;
            Some((*name, tail))
        });
        match known {
            Some((name, tail)) => {
                out.push_str(value(name, event, context));
                rest = tail;
            }
            None => {
                // Not a placeholder: keep one `{` and look again from the next one, so `{{{model}}` works.
                out.push('{');
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn value<'a>(name: &str, event: Event, context: &'a Context) -> &'a str {
    let text = match name {
        "event" => return event.as_str(),
        "cwd" => &context.cwd,
        "user_input" => &context.user_input,
        "assistant_output" => &context.assistant_output,
        "tool_name" => &context.tool_name,
        "tool_arguments" => &context.tool_arguments,
        "tool_result" => return context.tool_result.as_ref().map_or("", |result| result.for_llm.as_str()),
        "model" => &context.model,
        "tool_error" => &context.tool_error,
        "session_id" => &context.session_id,
        "system_prompt" => &context.system_prompt,
        _ => return "",
    };
    text.as_deref().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> Context {
        Context {
            user_input: Some("hi {{model}}".into()),
            model: Some("gpt-x".into()),
            tool_name: Some("Bash".into()),
            ..Context::default()
        }
    }

    #[test]
    fn renders_in_one_pass() {
        let rendered =
            render("{{event}}|{{user_input}}|{{tool_name}}|{{foo}}|{{model}}", Event::PreSendMessage, &context());
        assert_eq!(rendered, "pre_send_message|hi {{model}}|Bash|{{foo}}|gpt-x");
    }

    #[test]
    fn odd_braces_and_missing_values() {
        let context = context();
        assert_eq!(render("{{{model}}}", Event::Stop, &context), "{gpt-x}");
        assert_eq!(render("{{ model }} {{model", Event::Stop, &context), "{{ model }} {{model");
        assert_eq!(render("[{{tool_error}}]{{", Event::Stop, &context), "[]{{");
        assert_eq!(render("日本{{model}}語", Event::Stop, &context), "日本gpt-x語");
    }
}
