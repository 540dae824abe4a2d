//! Matchers of the Claude Code family (written by the matcher work; placeholder).
