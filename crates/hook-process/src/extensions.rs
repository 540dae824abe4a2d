//! hookwire's extensions of the PicoClaw protocol, host side: field selection (`reads`), the
//! `before_llm` history as a delta (`history_delta`) and the promise to change nothing
//! (`read_only`), negotiated in `hook.hello`. See `docs/process-extensions.md`.

use std::{
    collections::{HashMap, HashSet, hash_map::RandomState},
    hash::{BuildHasher, Hasher},
    sync::{Mutex, OnceLock},
};

use hook_core::SharedBytes;
use hook_protocol::{
    ChatMessage,
    picoclaw::{
        EXTENSION_MEMBER, EXTENSION_VERSION, ExtensionOffer, ExtensionOptIn, HistoryDelta, ParamsExtension, extension,
        method,
    },
    serde_json::{self, Value},
};

use crate::outbox::Chunk;

/// The members a hook may name in `reads`, per method (`last_message`: only the last message).
const MEMBERS: [(&str, &[&str]); 5] = [
    (
        method::BEFORE_LLM,
        &[
            "meta",
            "context",
            "model",
            "messages",
            "last_message",
            "tools",
            "options",
            "channel",
            "chat_id",
            "graceful_terminal",
        ],
    ),
    (method::AFTER_LLM, &["meta", "context", "model", "response", "channel", "chat_id"]),
    (method::BEFORE_TOOL, &["meta", "context", "tool", "arguments", "channel", "chat_id"]),
    (method::AFTER_TOOL, &["meta", "context", "tool", "arguments", "result", "duration", "channel", "chat_id"]),
    (method::APPROVE_TOOL, &["meta", "context", "tool", "arguments", "channel", "chat_id"]),
];

/// What the host offers in `hook.hello`.
pub(crate) fn offer() -> ExtensionOffer {
    ExtensionOffer {
        version: EXTENSION_VERSION,
        extensions: vec![
            extension::READS.to_owned(),
            extension::HISTORY_DELTA.to_owned(),
            extension::READ_ONLY.to_owned(),
        ],
    }
}

/// The members of one method a hook reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selection {
    members: Vec<&'static str>,
    /// The key of these params in the fire's serialization cache, shared by every hook that
    /// reads the same members (interned: one leak per distinct selection, for the process' life).
    pub(crate) key: &'static str,
}

impl Selection {
    /// Whether `member` is read.
    pub(crate) fn has(&self, member: &str) -> bool {
        self.members.contains(&member)
    }
}

/// `text` as a `&'static str`, leaked once per distinct text.
fn intern(text: String) -> &'static str {
    static INTERNED: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut set = INTERNED.get_or_init(Mutex::default).lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = set.get(text.as_str()) {
        return found;
    }
    let leaked: &'static str = Box::leak(text.into_boxed_str());
    set.insert(leaked);
    leaked
}

/// What a hook opted in to, checked against what hookwire knows.
#[derive(Debug, Default)]
pub(crate) struct Negotiated {
    /// Per method; a method without an entry receives every member.
    reads: HashMap<&'static str, Selection>,
    /// `before_llm`'s messages go as a delta (only when the hook reads `messages`).
    history_delta: bool,
    /// The history the hook acknowledged.
    history: Mutex<HistoryState>,
    /// See [`Negotiated::delta_key`].
    delta_key: Option<&'static str>,
    /// The methods whose params the hook promised never to change.
    read_only: Vec<&'static str>,
}

impl Negotiated {
    /// Reads a hook's opt-in; an unknown method or member refuses the mount with a message
    /// naming the hook and what to fix.
    pub(crate) fn from_opt_in(name: &str, opt_in: &ExtensionOptIn) -> Result<Negotiated, String> {
        let mut reads = HashMap::new();
        for (method, members) in &opt_in.reads {
            let full = if method.starts_with("hook.") { method.clone() } else { format!("hook.{method}") };
            let Some((method, known)) = MEMBERS.iter().find(|(m, _)| *m == full) else {
                return Err(format!(
                    "hook `{name}` asked in hook.hello to read parts of `{method}`, which has no selectable \
                     params; use one of {}",
                    MEMBERS.iter().map(|(m, _)| *m).collect::<Vec<_>>().join(", ")
                ));
            };
            let mut selected = Vec::new();
            for member in members {
                let Some(known) = known.iter().find(|k| **k == member.as_str()) else {
                    return Err(format!(
                        "hook `{name}` asked in hook.hello to read `{member}` of {method}, which has no such \
                         member; {method} has {}",
                        known.join(", ")
                    ));
                };
                if !selected.contains(known) {
                    selected.push(*known);
                }
            }
            selected.sort_unstable();
            let key = intern(format!("picoclaw.{method}?{}", selected.join(",")));
            reads.insert(*method, Selection { members: selected, key });
        }
        let mut read_only = Vec::new();
        for method in &opt_in.read_only {
            let full = if method.starts_with("hook.") { method.clone() } else { format!("hook.{method}") };
            let Some((known, _)) = MEMBERS.iter().find(|(m, _)| *m == full) else {
                return Err(format!(
                    "hook `{name}` promised in hook.hello (hookwire.read_only) to change nothing on `{method}`, \
                     which is not a method that can change anything; use one of {}",
                    MEMBERS.iter().map(|(m, _)| *m).collect::<Vec<_>>().join(", ")
                ));
            };
            if !read_only.contains(known) {
                read_only.push(*known);
            }
        }
        let mut negotiated = Negotiated {
            reads,
            history_delta: opt_in.history_delta,
            history: Mutex::default(),
            delta_key: None,
            read_only,
        };
        if negotiated.delta_messages() {
            let base = negotiated.selection(method::BEFORE_LLM).map_or("picoclaw.before_llm", |s| s.key);
            negotiated.delta_key = Some(intern(format!("{base}#delta")));
        }
        Ok(negotiated)
    }

    /// The methods whose params the hook promised never to change, sorted.
    pub(crate) fn read_only(&self) -> Vec<&'static str> {
        let mut methods = self.read_only.clone();
        methods.sort_unstable();
        methods
    }

    /// The cache key of `before_llm`'s params without `messages`, for a history-delta hook.
    pub(crate) fn delta_key(&self) -> Option<&'static str> {
        self.delta_key
    }

    /// The selection of `method`, if the hook made one.
    pub(crate) fn selection(&self, method: &str) -> Option<&Selection> {
        self.reads.get(method)
    }

    /// Whether `before_llm`'s messages go to this hook as a delta.
    pub(crate) fn delta_messages(&self) -> bool {
        self.history_delta
            && self.reads.get(method::BEFORE_LLM).is_none_or(|s| s.has("messages"))
            && self.reads.get(method::BEFORE_LLM).is_none_or(|s| !s.has("last_message"))
    }

    fn history(&self) -> std::sync::MutexGuard<'_, HistoryState> {
        self.history.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts a `before_llm` call whose messages have `hashes` ([`message_hashes`]): the
    /// delta against the acknowledged history, or a full resend when there is none.
    /// `whole` forces a full resend (the hook just refused a delta).
    pub(crate) fn begin(&self, hashes: &SharedBytes, whole: bool) -> HistoryDelta {
        let mut state = self.history();
        state.next += 1;
        let version = state.next;
        let (base, keep) = match &state.acked {
            Some((base, acked)) if !whole => {
                let keep = as_hashes(acked).zip(as_hashes(hashes)).take_while(|(a, b)| a == b).count();
                (Some(*base), keep as u64)
            }
            _ => (None, 0),
        };
        if state.pending.len() >= MAX_PENDING {
            // Calls dropped before their reply: their versions will never be acknowledged.
            state.pending.remove(0);
        }
        state.pending.push((version, hashes.clone()));
        HistoryDelta { version, base, keep }
    }

    /// Ends a `before_llm` call of `version`: `ack` is the version the hook says it holds. Any
    /// disagreement forgets the acknowledged history, so the next call resends it whole.
    pub(crate) fn finish(&self, version: u64, ack: Option<u64>) {
        let mut state = self.history();
        let pending = state.pending.iter().position(|(v, _)| *v == version).map(|i| state.pending.swap_remove(i));
        match pending {
            Some((_, hashes)) if ack == Some(version) => state.acked = Some((version, hashes)),
            _ => state.acked = None,
        }
    }

    /// Forgets the acknowledged history (the hook asked for a resend, or the call failed).
    pub(crate) fn forget(&self, version: u64) {
        self.finish(version, None);
    }
}

/// Versions kept waiting for an acknowledgement.
const MAX_PENDING: usize = 16;

/// The params of a history-delta `before_llm` call: `messages` (the serialized messages from
/// `delta.keep` on, or all of them), the `hookwire` member, then the members of `rest` (the
/// shared params without `messages`), which are not copied.
pub(crate) fn delta_params(delta: HistoryDelta, messages: Chunk, rest: &SharedBytes) -> Vec<Chunk> {
    let extension = ParamsExtension { history: Some(delta) };
    let mut middle = format!(",\"{EXTENSION_MEMBER}\":").into_bytes();
    middle.extend(serde_json::to_vec(&extension).unwrap_or_else(|_| b"{}".to_vec()));
    let mut chunks = vec![Chunk::Static(b"{\"messages\":"), messages];
    if rest.len() > 2 {
        middle.push(b',');
        chunks.push(Chunk::Owned(middle));
        chunks.push(Chunk::Shared(rest.clone(), 1));
    } else {
        middle.push(b'}');
        chunks.push(Chunk::Owned(middle));
    }
    chunks
}

/// The host's record of what the hook holds: a version and a hash per message.
#[derive(Debug, Default)]
struct HistoryState {
    /// The last version handed out.
    next: u64,
    /// The version the hook acknowledged, with its messages' hashes.
    acked: Option<(u64, SharedBytes)>,
    /// Versions sent and not yet acknowledged.
    pending: Vec<(u64, SharedBytes)>,
}

fn as_hashes(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
}

/// A hasher fed by serde_json.
struct HashWriter(std::collections::hash_map::DefaultHasher);

impl std::io::Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The keys of the message hashes: random per process, so nobody can craft two messages that
/// collide (a replaced message that hashed like the old one would be taken as kept, and the
/// hook would see stale text).
fn hash_keys() -> &'static RandomState {
    static KEYS: OnceLock<RandomState> = OnceLock::new();
    KEYS.get_or_init(RandomState::new)
}

/// One 64-bit hash per message, little-endian, concatenated: what a delta is computed from.
pub(crate) fn message_hashes(messages: &[ChatMessage]) -> Vec<u8> {
    let mut out = Vec::with_capacity(messages.len() * 8);
    for message in messages {
        let mut writer = HashWriter(hash_keys().build_hasher());
        // A message holds only strings, maps and sequences: serializing cannot fail.
        let _ = serde_json::to_writer(&mut writer, message);
        out.extend_from_slice(&writer.0.finish().to_le_bytes());
    }
    out
}

/// The acknowledged version in a hook's result (`hookwire.ack`).
pub(crate) fn ack(result: &Value) -> Option<u64> {
    result.get(EXTENSION_MEMBER)?.get("ack")?.as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hook_protocol::Role;

    fn negotiated(json: Value) -> Result<Negotiated, String> {
        Negotiated::from_opt_in("h", &serde_json::from_value(json).unwrap())
    }

    #[test]
    fn unknown_members_and_methods_are_refused_by_name() {
        let error = negotiated(serde_json::json!({"reads": {"before_llm": ["modle"]}})).unwrap_err();
        assert!(error.contains("`modle`") && error.contains("hook.before_llm") && error.contains("model"), "{error}");
        let error = negotiated(serde_json::json!({"reads": {"hook.event": ["Kind"]}})).unwrap_err();
        assert!(error.contains("`hook.event`"), "{error}");
        let ok = negotiated(serde_json::json!({"reads": {"before_llm": ["tools", "model", "model"]}})).unwrap();
        let selection = ok.selection(method::BEFORE_LLM).unwrap();
        assert_eq!(selection.key, "picoclaw.hook.before_llm?model,tools");
        assert!(!ok.delta_messages());
    }

    #[test]
    fn a_delta_keeps_the_common_prefix_and_any_disagreement_resends_whole() {
        let ext = negotiated(serde_json::json!({"history_delta": true})).unwrap();
        assert!(ext.delta_messages());
        let mut messages: Vec<_> = (0..3).map(|i| ChatMessage::text(Role::User, format!("m{i}"))).collect();
        let hashes = |m: &[ChatMessage]| -> SharedBytes { message_hashes(m).into() };

        let d1 = ext.begin(&hashes(&messages), false);
        assert_eq!(d1, HistoryDelta { version: 1, base: None, keep: 0 });
        ext.finish(d1.version, Some(d1.version));
        messages.push(ChatMessage::text(Role::Assistant, "m3"));
        messages[2] = ChatMessage::text(Role::User, "m2 edited");
        let d2 = ext.begin(&hashes(&messages), false);
        assert_eq!(d2, HistoryDelta { version: 2, base: Some(1), keep: 2 });
        // A wrong ack: the next call is a full resend.
        ext.finish(d2.version, Some(7));
        assert_eq!(ext.begin(&hashes(&messages), false), HistoryDelta { version: 3, base: None, keep: 0 });
    }

    /// The resend after a refused delta is whole even when another call's reply settled an
    /// acknowledged version in between (a second delta could be refused again).
    #[test]
    fn a_resend_is_whole_even_after_another_call_settled() {
        let ext = negotiated(serde_json::json!({"history_delta": true})).unwrap();
        let messages: Vec<_> = (0..3).map(|i| ChatMessage::text(Role::User, format!("m{i}"))).collect();
        let hashes: SharedBytes = message_hashes(&messages).into();
        let first = ext.begin(&hashes, false);
        ext.finish(first.version, Some(first.version));
        let refused = ext.begin(&hashes, false);
        assert_eq!(refused.base, Some(first.version));
        let other = ext.begin(&hashes, false);
        ext.forget(refused.version);
        ext.finish(other.version, Some(other.version));
        let resend = ext.begin(&hashes, true);
        assert_eq!((resend.base, resend.keep), (None, 0));
    }

    #[test]
    fn delta_params_splice_the_shared_members_in() {
        let text = |chunks: &[Chunk]| {
            chunks.iter().map(|c| String::from_utf8_lossy(c.bytes()).into_owned()).collect::<String>()
        };
        let delta = HistoryDelta { version: 2, base: Some(1), keep: 5 };
        let rest: SharedBytes = br#"{"model":"m"}"#.to_vec().into();
        let sent = text(&delta_params(delta, Chunk::Static(b"[]"), &rest));
        assert_eq!(sent, r#"{"messages":[],"hookwire":{"history":{"version":2,"base":1,"keep":5}},"model":"m"}"#);
        let empty: SharedBytes = b"{}".to_vec().into();
        let sent = text(&delta_params(delta, Chunk::Static(b"[]"), &empty));
        assert_eq!(sent, r#"{"messages":[],"hookwire":{"history":{"version":2,"base":1,"keep":5}}}"#);
    }
}
