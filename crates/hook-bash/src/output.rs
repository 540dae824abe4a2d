//! Reading what a finished hook left: its stdout as one HookResult JSON object, its exit status
//! as a message that says what to fix.

use std::process::ExitStatus;

use hook_core::{Context, Event, HookError, HookOutput, head_chars};
use hook_protocol::HookResult;

/// Who is speaking, for messages: "hook `guard` on pre_tool_execution".
#[derive(Debug, Clone, Copy)]
pub(crate) struct Speaker<'a> {
    pub(crate) name: &'a str,
    pub(crate) event: Event,
}

impl std::fmt::Display for Speaker<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "hook `{}` on {}", self.name, self.event)
    }
}

const ONE_OBJECT: &str = "its stdout must be exactly one JSON object (a HookResult), or nothing for no change; \
                          print debug output to stderr (`echo ... >&2`)";

/// Parses a successful hook's stdout: surrounding whitespace is ignored, nothing or `{}` means
/// no change, anything else must be one HookResult object.
pub(crate) fn parse_stdout(stdout: &[u8], speaker: Speaker<'_>, context: &Context) -> Result<HookOutput, HookError> {
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim();
    if trimmed.is_empty() || trimmed == "{}" {
        return Ok(HookOutput::default());
    }
    match hook_protocol::from_json_str::<HookResult>(trimmed) {
        Ok(result) => Ok(HookOutput::from_hook_result(result, speaker.event, context)),
        Err(error) => Err(HookError::invalid_output(explain(trimmed, &error, speaker), trimmed)),
    }
}

/// Says what is wrong with `text` in the words a hook author needs.
fn explain(text: &str, error: &hook_protocol::ParseError, speaker: Speaker<'_>) -> String {
    let first_line = text.lines().next().unwrap_or_default();
    if !text.starts_with('{') {
        if text.lines().skip(1).any(|line| line.trim_start().starts_with('{')) {
            return format!(
                "{speaker} printed a line before its JSON object ({:?}); {ONE_OBJECT}",
                head_chars(first_line, 80)
            );
        }
        return format!("{speaker} did not print a JSON object ({error}); {ONE_OBJECT}");
    }
    if error.path == "." && error.message.starts_with("trailing characters") {
        return format!("{speaker} printed something after its JSON object ({error}); {ONE_OBJECT}");
    }
    if error.path == "." {
        return format!("{speaker} printed invalid JSON: {error}; {ONE_OBJECT}");
    }
    format!("{speaker} printed a HookResult with a bad member {error}; fix that member or leave it out")
}

/// `exit code 2`, `signal 9 (SIGKILL)`, or for 126/127 what most likely went wrong.
pub(crate) fn describe_status(status: ExitStatus, stderr: &str, command: &str) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return match code {
            127 => format!(
                "exit code 127: `{}` not found; check the command and PATH",
                missing_name(stderr).unwrap_or_else(|| first_word(command))
            ),
            126 => format!(
                "exit code 126: `{}` could not be executed; check that it is executable (`chmod +x`) or run it \
                 through its interpreter",
                first_word(command)
            ),
            code => format!("exit code {code}"),
        };
    }
    match status.signal() {
        Some(signal) => {
            let name = nix::sys::signal::Signal::try_from(signal).map_or("unknown signal", |s| s.as_str());
            let core = if status.core_dumped() { ", core dumped" } else { "" };
            format!("signal {signal} ({name}{core})")
        }
        None => format!("{status}"),
    }
}

/// The name a shell said it could not find: `sh: 1: foo: not found` (dash),
/// `bash: line 1: foo: command not found`, `bash: ./x.sh: No such file or directory`.
fn missing_name(stderr: &str) -> Option<String> {
    const MARKERS: [&str; 3] = [": command not found", ": not found", ": No such file or directory"];
    stderr.lines().rev().find_map(|line| {
        let before = MARKERS.iter().find_map(|marker| line.trim_end().strip_suffix(marker))?;
        let name = before.rsplit(": ").next()?.trim();
        (!name.is_empty()).then(|| head_chars(name, 80))
    })
}

fn first_word(command: &str) -> String {
    head_chars(command.split_whitespace().next().unwrap_or(command), 80)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn speaker() -> Speaker<'static> {
        Speaker { name: "t", event: Event::PreSendMessage }
    }

    #[test]
    fn names_the_missing_command() {
        assert_eq!(missing_name("sh: 1: nonexistent-cmd-xyz: not found\n").as_deref(), Some("nonexistent-cmd-xyz"));
        assert_eq!(missing_name("bash: line 1: foo: command not found").as_deref(), Some("foo"));
        assert_eq!(missing_name("bash: ./x.sh: No such file or directory").as_deref(), Some("./x.sh"));
        assert_eq!(missing_name("something else"), None);
    }

    proptest! {
        // Any bytes at all: an answer or an error, never a panic, and the raw head is bounded.
        #[test]
        fn arbitrary_stdout_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            match parse_stdout(&bytes, speaker(), &Context::default()) {
                Ok(_) => {}
                Err(HookError::InvalidOutput { raw_head, .. }) => prop_assert!(raw_head.chars().count() <= 201),
                Err(other) => prop_assert!(false, "unexpected error {other:?}"),
            }
        }

        #[test]
        fn arbitrary_text_in_a_member_never_panics(text in "\\PC*") {
            let json = format!("{{\"user_input\": {}}}", serde_json::to_string(&text).unwrap_or_default());
            let output = parse_stdout(json.as_bytes(), speaker(), &Context::default());
            prop_assert_eq!(output.ok().and_then(|o| o.patch.user_input), Some(text));
        }
    }
}
