//! Secret detectors: what the store masks in the text it keeps (input summaries, reasons,
//! stderr tails) before a row is written. A small set of regular expressions for the secrets
//! that commonly pass through an agent's tool calls — API keys of the big providers, bearer
//! tokens, private key blocks, passwords in URLs, `password=...` style assignments — kept in
//! one place so a rules executor can reuse the same detectors.
//!
//! A detector replaces the secret, not its label: `OPENAI_API_KEY=sk-…` becomes
//! `OPENAI_API_KEY=[REDACTED]`, so a reader still sees what was there.

use std::{
    borrow::Cow,
    sync::{LazyLock, OnceLock},
};

use regex::Regex;

/// What replaces a secret.
pub const MASK: &str = "[REDACTED]";

/// One detector: its name (for a rules executor's messages), the literals one of which any
/// match contains (ASCII, compared without case), and its expression, compiled the first time
/// a text holds one of the literals: most texts hold none, and a process that records one fire
/// then pays for no compilation at all. The replacement keeps the groups named `keep` /
/// `keep2` around the secret.
#[derive(Debug)]
pub struct Detector {
    /// Short name: `openai_key`, `private_key`, ...
    pub name: &'static str,
    hints: &'static [&'static str],
    pattern: &'static str,
    regex: OnceLock<Option<Regex>>,
}

impl Detector {
    /// Whether `text` may hold this detector's secret: one of its literals is in it.
    fn may_match(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        self.hints
            .iter()
            .any(|hint| bytes.windows(hint.len()).any(|window| window.eq_ignore_ascii_case(hint.as_bytes())))
    }

    /// The expression, compiled on first use (`None` if it does not compile, which a test
    /// rules out).
    pub fn regex(&self) -> Option<&Regex> {
        self.regex.get_or_init(|| Regex::new(self.pattern).ok()).as_ref()
    }

    /// Whether `text` holds this detector's secret.
    pub fn is_match(&self, text: &str) -> bool {
        self.may_match(text) && self.regex().is_some_and(|regex| regex.is_match(text))
    }
}

type Pattern = (&'static str, &'static [&'static str], &'static str);

const PATTERNS: &[Pattern] = &[
    (
        "private_key",
        &["PRIVATE KEY"],
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
    ),
    ("anthropic_key", &["sk-ant-"], r"\bsk-ant-[A-Za-z0-9_\-]{16,}"),
    ("openai_key", &["sk-"], r"\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_\-]{20,}"),
    ("aws_access_key", &["AKIA", "ASIA"], r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "github_token",
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})",
    ),
    ("slack_token", &["xox"], r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    ("google_api_key", &["AIza"], r"\bAIza[0-9A-Za-z_\-]{35}"),
    ("jwt", &["eyJ"], r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("bearer", &["bearer"], r"(?P<keep>(?-u:\b)(?i-u:bearer)[ \t]+)[A-Za-z0-9._~+/=\-]{12,}"),
    ("url_password", &["://"], r"(?P<keep>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:)[^@\s/]+(?P<keep2>@)"),
    // `"password": "correct horse"`: the whole quoted value.
    (
        "assignment_quoted",
        &ASSIGNMENT_HINTS,
        r#"(?P<keep>(?-u:\b)[A-Za-z0-9_\-]*(?i-u:api[_\-]?key|secret|token|passw(?:or)?d|pwd)[A-Za-z0-9_\-]*["']?[ \t]*[:=][ \t]*["'])[^"'\n]{4,}"#,
    ),
    // `PASSWORD=hunter2`: up to the next blank or separator.
    (
        "assignment",
        &ASSIGNMENT_HINTS,
        r#"(?P<keep>(?-u:\b)[A-Za-z0-9_\-]*(?i-u:api[_\-]?key|secret|token|passw(?:or)?d|pwd)[A-Za-z0-9_\-]*["']?[ \t]*[:=][ \t]*)[^ \t\r\n"',;&]{4,}"#,
    ),
];

const ASSIGNMENT_HINTS: [&str; 5] = ["key", "secret", "token", "passw", "pwd"];

/// The detectors (each compiled when first needed).
pub fn detectors() -> &'static [Detector] {
    static DETECTORS: LazyLock<Vec<Detector>> = LazyLock::new(|| {
        PATTERNS
            .iter()
            .map(|&(name, hints, pattern)| Detector { name, hints, pattern, regex: OnceLock::new() })
            .collect()
    });
    &DETECTORS
}

/// The names of the detectors that find a secret in `text`.
pub fn find(text: &str) -> Vec<&'static str> {
    detectors().iter().filter(|d| d.is_match(text)).map(|d| d.name).collect()
}

/// `text` with every secret a detector finds replaced by [`MASK`]; borrowed when none is.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    for detector in detectors() {
        if !detector.is_match(&out) {
            continue;
        }
        let Some(regex) = detector.regex() else { continue };
        let replaced = regex
            .replace_all(&out, |caps: &regex::Captures<'_>| {
                let keep = caps.name("keep").map_or("", |m| m.as_str());
                let keep2 = caps.name("keep2").map_or("", |m| m.as_str());
                format!("{keep}{MASK}{keep2}")
            })
            .into_owned();
        out = Cow::Owned(replaced);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles_and_its_hints_are_in_what_it_finds() {
        assert_eq!(detectors().len(), PATTERNS.len());
        for detector in detectors() {
            assert!(detector.regex().is_some(), "{} does not compile", detector.name);
        }
    }

    #[test]
    fn secrets_are_masked_and_their_labels_kept() {
        let cases = [
            ("curl -H 'Authorization: Bearer abcdef0123456789xyz' x", "Bearer [REDACTED]"),
            ("export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345", "OPENAI_API_KEY=[REDACTED]"),
            ("key sk-ant-api03-abcdefghijklmnopqrstuv end", "key [REDACTED] end"),
            ("git clone https://bob:hunter2secret@example.com/r.git", "https://bob:[REDACTED]@example.com/r.git"),
            ("aws AKIAABCDEFGHIJKLMNOP ok", "aws [REDACTED] ok"),
            ("tok ghp_abcdefghijklmnopqrstuvwxyz0123456789", "tok [REDACTED]"),
            ("{\"password\": \"correct horse\"}", "\"password\": \"[REDACTED]"),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1r\n-----END OPENSSH PRIVATE KEY-----\nafter",
                "[REDACTED]\nafter",
            ),
            ("-----BEGIN RSA PRIVATE KEY-----\nMIIEcut off", "[REDACTED]"),
        ];
        for (text, expected) in cases {
            let out = redact(text);
            assert!(out.contains(expected), "{text:?} -> {out:?}, expected to contain {expected:?}");
            for secret in
                ["abcdef0123456789xyz", "hunter2secret", "ABCDEFGHIJKLMNOP", "b3BlbnNzaC1r", "MIIEcut", "horse"]
            {
                assert!(!out.contains(secret), "{text:?} -> {out:?} still holds {secret}");
            }
        }
    }

    #[test]
    fn ordinary_text_is_left_alone() {
        for text in ["ls -la /tmp", "rm -rf build/", "{\"command\":\"cargo test -p hook-store\"}", "token budget is 5"]
        {
            assert!(matches!(redact(text), Cow::Borrowed(_)), "{text:?} was changed to {:?}", redact(text));
        }
    }
}
