//! Observer notifications of a turn, built from `hook_protocol::observe`'s typed payloads and
//! queued with the turn's metadata.

use std::time::Duration;

use hook_core::ObserverEvent;
use hook_protocol::{
    ToolResult,
    observe::{
        InterruptKind, InterruptReceived, ObserverPayload, ToolExecEnd, ToolExecSkipped, ToolExecStart, TurnStart,
    },
};
use serde_json::Value;

use super::{TurnState, nanos};
use crate::Session;

/// The engine's notification of `payload`: its kind's name, `meta`, and the payload's JSON.
fn observer_event(payload: &ObserverPayload, meta: hook_protocol::Meta) -> ObserverEvent {
    ObserverEvent { kind: payload.kind().as_str().to_owned(), meta, payload: payload.to_value() }
}

/// Tool arguments as a JSON value for observer payloads (the text itself when it is not JSON).
fn arguments_value(args: &str) -> Value {
    serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.to_owned()))
}

impl Session {
    /// Queues an observer notification with the turn's metadata (trace path `turn.<kind>`).
    pub(super) fn notify(&self, st: &TurnState, payload: ObserverPayload) {
        let kind = payload.kind();
        let meta = self.meta(Some((&st.turn_id, st.round)), &format!("turn.{kind}"));
        self.engine().notify(observer_event(&payload, meta));
    }

    /// `turn_start` with the user's message.
    pub(super) fn notify_turn_start(&self, st: &TurnState, user_message: String) {
        self.notify(st, ObserverPayload::TurnStart(TurnStart { user_message, media_count: 0 }));
    }

    /// `interrupt_received` of `kind`; steering carries `content_len` characters in `queue_depth`
    /// user messages.
    pub(super) fn notify_interrupt(&self, st: &TurnState, kind: InterruptKind, content_len: usize, queue_depth: usize) {
        let role = if kind == InterruptKind::Steering { "user" } else { "" };
        self.notify(
            st,
            ObserverPayload::InterruptReceived(InterruptReceived {
                kind,
                role: role.to_owned(),
                content_len,
                queue_depth,
                hint_len: 0,
            }),
        );
    }

    /// `tool_exec_start` for tool `name` called with `args`.
    pub(super) fn notify_exec_start(&self, st: &TurnState, name: &str, args: &str) {
        let payload = ToolExecStart { tool: name.to_owned(), arguments: arguments_value(args) };
        self.notify(st, ObserverPayload::ToolExecStart(payload));
    }

    /// `tool_exec_end` for tool `name`, which took `duration` and gave `result`.
    pub(super) fn notify_exec_end(&self, st: &TurnState, name: &str, duration: Duration, result: &ToolResult) {
        self.notify(
            st,
            ObserverPayload::ToolExecEnd(ToolExecEnd {
                tool: name.to_owned(),
                duration: nanos(duration),
                for_llm_len: result.for_llm.chars().count(),
                for_user_len: result.for_user.as_deref().map_or(0, |t| t.chars().count()),
                is_error: result.is_error(),
                is_async: result.is_async.unwrap_or(false),
            }),
        );
    }

    /// `tool_exec_skipped` for tool `name`, with the tool message as the reason.
    pub(super) fn notify_exec_skipped(&self, st: &TurnState, name: &str, reason: &str) {
        let payload = ToolExecSkipped { tool: name.to_owned(), reason: reason.to_owned() };
        self.notify(st, ObserverPayload::ToolExecSkipped(payload));
    }
}
