//! The Claude Code family (Claude Code, Gemini CLI, Codex): matchers, hook input and answers.

pub mod matcher;
