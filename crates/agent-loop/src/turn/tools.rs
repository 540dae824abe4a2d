//! The tool calls of one assistant message, each through `pre_tool_execution` → `approve_tool`
//! → the tool → `post_tool_execution` / `post_tool_execution_failure`, and what the model and
//! the report get back.

use std::time::{Duration, Instant};

use hook_core::{Decision, Field};
use hook_protocol::{ChatMessage, ContentPart, Context, Event, MessageContent, Role, ToolCall, ToolResult};
use serde_json::Value;

use super::{
    BatchEnd, DENIED_BY_HOOK, Fired, RESPONSE_HANDLED_NOTE, SKIPPED_BY_HOOK, SKIPPED_GRACEFUL, SKIPPED_STEERING,
    TurnState, nanos, tool_message, with_reason,
};
use crate::{Session, ToolOutcome, ToolOutput, ToolRecord, TurnError, TurnEvent, approval::Verdict};

/// A tool call as the hooks have left it so far: the model's call id, and the name and
/// arguments that will run.
#[derive(Clone, Copy)]
struct CallView<'a> {
    id: &'a str,
    name: &'a str,
    args: &'a str,
}

impl CallView<'_> {
    /// The tool fields of every tool event's context.
    fn fill(self, ctx: &mut Context) {
        ctx.tool_name = Some(self.name.to_owned());
        ctx.tool_arguments = Some(self.args.to_owned());
        ctx.tool_call_id = Some(self.id.to_owned());
    }
}

impl Session {
    /// Runs the calls of one assistant message in order.
    pub(super) async fn run_tools(&mut self, st: &mut TurnState, calls: &[ToolCall]) -> Result<BatchEnd, TurnError> {
        let mut is_all_handled = true;
        let mut attachments: Vec<ContentPart> = Vec::new();
        for (idx, call) in calls.iter().enumerate() {
            // Checkpoint before each call: a cancel or a steering message that arrived since
            // the model answered (or during the previous call) skips the calls not yet started.
            let skip_reason = if self.notice_graceful(st) {
                Some(SKIPPED_GRACEFUL)
            } else if self.control.has_steering() {
                Some(SKIPPED_STEERING)
            } else {
                None
            };
            if let Some(reason) = skip_reason {
                for rest in &calls[idx..] {
                    self.skip_call(
                        st,
                        rest,
                        &rest.function.name,
                        &rest.function.arguments,
                        reason,
                        ToolOutcome::Interrupted,
                    );
                }
                self.attach_media(attachments);
                return Ok(if reason == SKIPPED_GRACEFUL { BatchEnd::Interrupted } else { BatchEnd::Continue });
            }
            is_all_handled &= self.run_call(st, call, &mut attachments).await?;
        }
        self.attach_media(attachments);
        Ok(if is_all_handled { BatchEnd::Handled } else { BatchEnd::Continue })
    }

    /// Media the model should see go in as one user message after the batch's tool messages.
    fn attach_media(&mut self, attachments: Vec<ContentPart>) {
        if attachments.is_empty() {
            return;
        }
        let mut parts = vec![ContentPart::text("Media returned by the tool calls above:")];
        parts.extend(attachments);
        let mut message = ChatMessage::text(Role::User, String::new());
        message.content = Some(MessageContent::Parts(parts));
        self.record(message);
    }

    /// Fires tool event `event` for `call`: the tool fields, then what `extra` adds.
    async fn fire_tool(
        &self,
        st: &mut TurnState,
        event: Event,
        trace_path: &str,
        call: CallView<'_>,
        extra: impl FnOnce(&mut Context),
    ) -> Fired {
        self.fire(st, event, trace_path, Some(call.name), |ctx| {
            call.fill(ctx);
            extra(ctx);
        })
        .await
    }

    /// A call that will not run: `tool_exec_skipped` and the caller's event, with `text`.
    fn announce_skip(&self, st: &TurnState, name: &str, text: &str) {
        self.notify_exec_skipped(st, name, text);
        self.emit(&TurnEvent::ToolSkipped { name: name.to_owned(), reason: text.to_owned() });
    }

    /// A call that starts (or that a hook answers): `tool_exec_start` and the caller's event.
    fn announce_start(&self, st: &TurnState, name: &str, args: &str) {
        self.notify_exec_start(st, name, args);
        self.emit(&TurnEvent::ToolStarted { name: name.to_owned(), arguments: args.to_owned() });
    }

    /// The error tool message and the record of a call that did not run.
    fn record_not_run(&mut self, st: &mut TurnState, call: CallView<'_>, content: String, outcome: ToolOutcome) {
        self.record_with(tool_message(call.id, content.clone()), true, None);
        st.report.tools.push(ToolRecord {
            name: call.name.to_owned(),
            arguments: call.args.to_owned(),
            call_id: call.id.to_owned(),
            content,
            outcome,
            is_error: true,
        });
    }

    /// A call that does not run: tool message, `tool_exec_skipped`, record.
    fn skip_call(
        &mut self,
        st: &mut TurnState,
        call: &ToolCall,
        name: &str,
        args: &str,
        text: &str,
        outcome: ToolOutcome,
    ) {
        self.announce_skip(st, name, text);
        self.record_not_run(st, CallView { id: &call.id, name, args }, text.to_owned(), outcome);
    }

    /// One call: `pre_tool_execution` → `approve_tool` → execute → `post_tool_execution` /
    /// `post_tool_execution_failure`. Whether its response was delivered (`response_handled`).
    async fn run_call(
        &mut self,
        st: &mut TurnState,
        call: &ToolCall,
        attachments: &mut Vec<ContentPart>,
    ) -> Result<bool, TurnError> {
        let mut name = call.function.name.clone();
        let mut args = call.function.arguments.clone();
        let view = CallView { id: &call.id, name: &name, args: &args };
        let fired = self.fire_tool(st, Event::PreToolExecution, "turn.tool.before", view, |_| {}).await;
        if let Some(text) = fired.changed(Field::ToolName, |c| c.tool_name.clone()) {
            name = text;
        }
        if let Some(text) = fired.changed(Field::ToolArguments, |c| c.tool_arguments.clone()) {
            args = text;
        }
        let view = CallView { id: &call.id, name: &name, args: &args };
        Self::check_abort(Event::PreToolExecution, &fired.out)?;
        let pre_permission = fired.out.permission;
        let pre_reason = fired.out.reason.clone();
        match fired.out.decision {
            Decision::Stop => {
                return Err(TurnError::Stopped { event: Event::PreToolExecution, reason: fired.out.reason.clone() });
            }
            Decision::DenyTool => {
                let text = with_reason(DENIED_BY_HOOK, fired.out.reason.as_deref());
                self.skip_call(st, call, &name, &args, &text, ToolOutcome::Denied);
                return Ok(false);
            }
            Decision::Skip => {
                // A skipped call fails: `post_tool_execution_failure` may rewrite the message.
                let text = with_reason(SKIPPED_BY_HOOK, fired.out.reason.as_deref());
                self.announce_skip(st, &name, &text);
                let failed = self
                    .fire_tool(st, Event::PostToolExecutionFailure, "turn.tool.after", view, |ctx| {
                        ctx.tool_error = Some(text.clone());
                    })
                    .await;
                Self::check_abort(Event::PostToolExecutionFailure, &failed.out)?;
                let content = failed.changed(Field::ToolError, |c| c.tool_error.clone()).unwrap_or(text);
                self.record_not_run(st, view, content, ToolOutcome::Skipped);
                return Ok(false);
            }
            Decision::Respond => {
                if let Some(result) = fired.out.respond.clone() {
                    // Approval and post_tool_execution are skipped: the hook is the tool.
                    self.announce_start(st, &name, &args);
                    self.notify_exec_end(st, &name, Duration::ZERO, &result);
                    let output = ToolOutput { result, response: None };
                    return Ok(self.finish_call(st, call, (name, args), output, ToolOutcome::Responded, attachments));
                }
                self.notice(st, format!("a hook answered `respond` for `{name}` without a result; the tool runs"));
            }
            _ => {}
        }

        let approval = self.fire_tool(st, Event::ApproveTool, "turn.tool.approve", view, |_| {}).await;
        // Fail closed: a denial refuses; then an explicit approval, a hook's permission, a
        // read-only tool, or the approval policy (see `crate::approval`).
        let verdict = self.decide(&name, &args, pre_permission, pre_reason.as_deref(), &approval.out).await;
        if let Verdict::Refuse(text, outcome) = verdict {
            self.skip_call(st, call, &name, &args, &text, outcome);
            return Ok(false);
        }

        self.announce_start(st, &name, &args);
        let started = Instant::now();
        let ToolOutput { mut result, response } = self.execute_tool(&name, &args).await;
        let duration = started.elapsed();

        if result.is_error() {
            let failed = self
                .fire_tool(st, Event::PostToolExecutionFailure, "turn.tool.after", view, |ctx| {
                    ctx.tool_error = Some(result.for_llm.clone());
                    ctx.tool_result = Some(result.clone());
                    ctx.duration_ns = Some(nanos(duration));
                })
                .await;
            Self::check_abort(Event::PostToolExecutionFailure, &failed.out)?;
            if let Some(text) = failed.changed(Field::ToolError, |c| c.tool_error.clone()) {
                result.for_llm = text;
            }
        } else {
            let done = self
                .fire_tool(st, Event::PostToolExecution, "turn.tool.after", view, |ctx| {
                    ctx.tool_result = Some(result.clone());
                    ctx.duration_ns = Some(nanos(duration));
                    // Where Claude Code's hooks read the structured response.
                    if let Some(response) = &response {
                        ctx.extra.insert("tool_response".into(), response.clone());
                    }
                })
                .await;
            Self::check_abort(Event::PostToolExecution, &done.out)?;
            if let Some(replaced) = done.changed(Field::ToolResult, |c| c.tool_result.clone()) {
                result = replaced;
            }
        }
        self.notify_exec_end(st, &name, duration, &result);
        let output = ToolOutput { result, response };
        Ok(self.finish_call(st, call, (name, args), output, ToolOutcome::Executed, attachments))
    }

    /// Runs the registered tool `name`; unknown tools and invalid arguments are error results.
    async fn execute_tool(&self, name: &str, args: &str) -> ToolOutput {
        let Some(tool) = self.agent.inner.tools.get(name) else {
            let known: Vec<&str> = self.agent.inner.tools.names().collect();
            return ToolOutput::from(ToolResult::error(format!(
                "unknown tool `{name}`; the tools are: {}. (A tool a hook added in pre_llm_request must be answered by that hook with `respond`.)",
                known.join(", ")
            )));
        };
        let text = if args.trim().is_empty() { "{}" } else { args };
        match serde_json::from_str::<Value>(text) {
            Ok(value) => tool.execute_structured(value, &self.tool_context()).await,
            Err(err) => {
                ToolResult::error(format!("{name}: the arguments are not valid JSON ({err}); they were: {args}")).into()
            }
        }
    }

    /// Delivers or attaches the result's media, adds the tool message and the record. Whether
    /// the call's response was delivered to the user.
    fn finish_call(
        &mut self,
        st: &mut TurnState,
        call: &ToolCall,
        (name, args): (String, String),
        output: ToolOutput,
        outcome: ToolOutcome,
        attachments: &mut Vec<ContentPart>,
    ) -> bool {
        let ToolOutput { mut result, response } = output;
        self.emit(&TurnEvent::ToolFinished { name: name.clone(), result: result.clone() });
        let mut content = result.for_llm.clone();
        let mut items = Vec::new();
        let mut errors = Vec::new();
        for reference in result.media() {
            match self.media.resolve(reference) {
                Ok(item) => items.push(item),
                Err(err) => errors.push(err.to_string()),
            }
        }
        let mut is_handled = false;
        if result.is_response_handled() {
            if errors.is_empty() {
                for item in items {
                    self.emit(&TurnEvent::MediaDelivered(item.clone()));
                    st.report.media.push(item);
                }
                is_handled = true;
                content.push_str(RESPONSE_HANDLED_NOTE);
            } else {
                content = format!("failed to deliver attachment: {}", errors.join("; "));
                result.is_error = Some(true);
            }
        } else {
            if !errors.is_empty() {
                content.push_str(&format!("\n[media error: {}]", errors.join("; ")));
                result.is_error = Some(true);
            }
            for item in items {
                if item.is_image() {
                    attachments.push(ContentPart::text(format!("{} ({}) from `{name}`:", item.name, item.reference)));
                    attachments.push(ContentPart::image(item.data_url()));
                } else {
                    attachments.push(ContentPart::text(format!(
                        "[{} {} ({}, {} bytes) from `{name}`; not shown]",
                        item.reference,
                        item.name,
                        item.mime,
                        item.bytes.len()
                    )));
                }
            }
        }
        if result.silent != Some(true)
            && let Some(text) = result.for_user.as_deref().filter(|t| !t.is_empty())
        {
            st.report.for_user.push(text.to_owned());
        }
        self.record_with(tool_message(&call.id, content.clone()), result.is_error(), response.as_ref());
        st.report.tools.push(ToolRecord {
            name,
            arguments: args,
            call_id: call.id.clone(),
            content,
            outcome,
            is_error: result.is_error(),
        });
        is_handled
    }
}
