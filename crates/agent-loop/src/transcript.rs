//! The session transcript: one JSON line per message, in the shape Claude Code writes and its
//! hooks read from `transcript_path`.
//!
//! ```json
//! {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]},
//!  "uuid": "…", "parentUuid": null, "timestamp": "2026-11-26T05:33:53.120Z",
//!  "sessionId": "…", "cwd": "/project", "isSidechain": false, "userType": "external"}
//! {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "…"},
//!  {"type": "tool_use", "id": "call-1", "name": "Bash", "input": {"command": "ls"}}]}, …}
//! {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result",
//!  "tool_use_id": "call-1", "content": "…", "is_error": false}]}, "toolUseResult": {…}, …}
//! ```
//!
//! A line is written (and reaches the file) when its message joins the conversation, before the
//! next event is fired: a `Stop` hook reading the last assistant text finds it.

use std::{
    fs::File,
    io::{self, Write as _},
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use hook_protocol::{ChatMessage, MessageContent, Role};
use serde_json::{Map, Value, json};

/// A random (version 4) UUID, as text.
pub fn new_uuid() -> String {
    let mut bytes = [0u8; 16];
    let from_os = File::open("/dev/urandom").and_then(|mut f| io::Read::read_exact(&mut f, &mut bytes));
    if from_os.is_err() {
        // No /dev/urandom: hash the time, the process and a counter with a random key.
        use std::hash::{BuildHasher, Hasher};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        for half in 0..2 {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_u128(
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos(),
            );
            hasher.write_u32(std::process::id());
            hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
            bytes[half * 8..half * 8 + 8].copy_from_slice(&hasher.finish().to_le_bytes());
        }
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

/// Days since 1970-01-01 to (year, month, day) (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The current UTC time as `2026-11-26T05:33:53.120Z`.
pub fn now_timestamp() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let secs = now.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

/// The content blocks of a message's text and parts.
fn content_blocks(content: Option<&MessageContent>) -> Vec<Value> {
    match content {
        None => Vec::new(),
        Some(MessageContent::Text(text)) if text.is_empty() => Vec::new(),
        Some(MessageContent::Text(text)) => vec![json!({"type": "text", "text": text})],
        Some(MessageContent::Parts(parts)) => parts
            .iter()
            .map(|part| match (part.kind.as_str(), &part.text, &part.image_url) {
                ("text", Some(text), _) => json!({"type": "text", "text": text}),
                ("image_url", _, Some(image)) => {
                    json!({"type": "image", "source": {"type": "url", "url": image.url}})
                }
                _ => serde_json::to_value(part).unwrap_or(Value::Null),
            })
            .collect(),
    }
}

/// The `message` member and the line `type` for one chat message.
pub fn message_value(message: &ChatMessage, is_error: bool) -> (&'static str, Value) {
    match message.role {
        Role::Assistant => {
            let mut content = content_blocks(message.content.as_ref());
            for call in message.tool_calls.iter().flatten() {
                let input = serde_json::from_str::<Value>(&call.function.arguments)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| Value::Object(Map::new()));
                content.push(json!({"type": "tool_use", "id": call.id, "name": call.function.name, "input": input}));
            }
            ("assistant", json!({"role": "assistant", "content": content}))
        }
        Role::Tool => {
            let block = json!({
                "type": "tool_result",
                "tool_use_id": message.tool_call_id.clone().unwrap_or_default(),
                "content": message.text_content(),
                "is_error": is_error,
            });
            ("user", json!({"role": "user", "content": [block]}))
        }
        Role::System => ("system", json!({"role": "system", "content": content_blocks(message.content.as_ref())})),
        _ => ("user", json!({"role": "user", "content": content_blocks(message.content.as_ref())})),
    }
}

/// Appends the session's messages to its transcript file.
#[derive(Debug)]
pub(crate) struct Transcript {
    path: PathBuf,
    file: File,
    session_id: String,
    cwd: String,
    last_uuid: Option<String>,
}

impl Transcript {
    /// Opens (creating it and its directory) the transcript at `path` for appending; the next
    /// line's `parentUuid` is the last line's `uuid`.
    ///
    /// The transcript holds the whole conversation (file contents, command output): the
    /// directories made for it are `0700` and the file `0600`, from their creation on, and a
    /// symbolic link in the file's place is not followed.
    pub(crate) fn open(path: &Path, session_id: &str, cwd: &Path) -> io::Result<Transcript> {
        use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(parent)?;
        }
        let last_uuid = std::fs::read_to_string(path).ok().and_then(|text| {
            text.lines()
                .rev()
                .find_map(|line| serde_json::from_str::<Value>(line).ok()?.get("uuid")?.as_str().map(str::to_owned))
        });
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
            .open(path)?;
        Ok(Transcript {
            path: path.to_path_buf(),
            file,
            session_id: session_id.to_owned(),
            cwd: cwd.display().to_string(),
            last_uuid,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one line for `message`; a tool result's structured response goes in
    /// `toolUseResult`.
    pub(crate) fn append(&mut self, message: &ChatMessage, is_error: bool, response: Option<&Value>) -> io::Result<()> {
        let (kind, value) = message_value(message, is_error);
        let uuid = new_uuid();
        let mut line = json!({
            "type": kind,
            "message": value,
            "uuid": uuid,
            "parentUuid": self.last_uuid,
            "timestamp": now_timestamp(),
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "isSidechain": false,
            "userType": "external",
        });
        if let Some(response) = response {
            line["toolUseResult"] = response.clone();
        }
        let mut text = serde_json::to_string(&line).map_err(io::Error::other)?;
        text.push('\n');
        // One write of the whole line: readers never see half of one.
        self.file.write_all(text.as_bytes())?;
        self.last_uuid = Some(uuid);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4_and_distinct() {
        let (a, b) = (new_uuid(), new_uuid());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"), "{a}");
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert!(now_timestamp().ends_with('Z'));
    }
}
