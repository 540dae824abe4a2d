//! Compaction inside a turn: micro compaction every round and auto compaction over the
//! threshold, each between its `pre_*` and `post_*` hooks.

use hook_core::{Decision, Field};
use hook_protocol::{
    Event,
    observe::{ErrorPayload, ErrorStage, ObserverPayload},
};
use serde_json::json;

use super::{TurnState, add_usage};
use crate::{
    Session, TurnEvent,
    compaction::{MICRO_MAX_CHARS, estimate_tokens, micro_compact, split_point, summary_request, with_summary},
};

impl Session {
    /// Micro compaction every round, auto compaction over the threshold; each between its hooks.
    pub(super) async fn compact(&mut self, st: &mut TurnState) {
        let config = self.agent.inner.compaction.clone();
        let model_name = self.agent.inner.model.model_name().to_owned();
        if config.micro {
            let fired = self
                .fire(st, Event::PreMicroCompact, "turn.compact.micro.before", None, |ctx| {
                    ctx.messages = Some(self.history.clone());
                    ctx.model = Some(model_name.clone());
                })
                .await;
            // j-cli: stop on pre_micro_compact skips this round's whole compaction.
            if fired.out.decision == Decision::Stop {
                return;
            }
            self.history = micro_compact(&self.history, config.keep_last, MICRO_MAX_CHARS);
            self.after_compaction(st, Event::PostMicroCompact, "turn.compact.micro.after").await;
        }
        let Some(threshold) = config.auto_threshold_tokens else { return };
        let system_prompt = self.system_prompt(st);
        let split = split_point(&self.history, config.keep_last);
        // Nothing before the kept tail: a summary could not make the conversation smaller.
        if split == 0 || estimate_tokens(&system_prompt, &self.history) <= threshold {
            return;
        }
        let fired = self
            .fire(st, Event::PreAutoCompact, "turn.compact.auto.before", None, |ctx| {
                ctx.extra.insert("trigger".into(), json!("auto"));
                ctx.extra.insert("custom_instructions".into(), json!(""));
                ctx.messages = Some(self.history.clone());
                ctx.system_prompt = Some(system_prompt.clone());
                ctx.model = Some(model_name.clone());
            })
            .await;
        if fired.out.decision == Decision::Stop {
            return;
        }
        let split = split_point(&self.history, config.keep_last);
        if split == 0 {
            return;
        }
        let mut request = summary_request(&self.history[..split], &fired.out.effects.additional_context);
        request.timeout = self.agent.inner.model_timeout;
        self.emit(&TurnEvent::ModelRequested { round: st.round, purpose: "summary" });
        let response = match self.agent.inner.model.complete(request).await {
            Ok(response) => response,
            Err(err) => {
                let error = ErrorPayload { stage: ErrorStage::Compact, message: err.to_string() };
                self.notify(st, ObserverPayload::Error(error));
                self.notice(st, format!("auto compaction skipped: the summary request failed: {err}"));
                return;
            }
        };
        add_usage(&mut st.report.usage, response.usage);
        self.history = with_summary(&response.message.text_content(), &self.history[split..]);
        self.after_compaction(st, Event::PostAutoCompact, "turn.compact.auto.after").await;
    }

    /// Fires `post_micro_compact` / `post_auto_compact` with the compacted history; `messages`
    /// a hook returns become the history.
    async fn after_compaction(&mut self, st: &mut TurnState, event: Event, trace_path: &str) {
        let fired = self
            .fire(st, event, trace_path, None, |ctx| {
                ctx.messages = Some(self.history.clone());
            })
            .await;
        if let Some(messages) = fired.changed(Field::Messages, |c| c.messages.clone()) {
            self.history = messages;
        }
    }
}
