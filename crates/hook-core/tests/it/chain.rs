//! Chain semantics: order, pipeline, merge, accumulation, halting, capability drops, approvals.

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use hook_core::{Action, Context, ContextPatch, Deadlines, Event, HookOutput, Level};
use hook_protocol::{ChatMessage, Role, ToolResult};

#[tokio::test]
async fn runs_levels_then_priority_then_declaration_order() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let hook = |name: &str| recording(name, log.clone(), says(name));
    let event = Event::PreSendMessage;
    let registrations = vec![
        reg(Level::Session, "s", event, hook("s")),
        reg(Level::Project, "p-late", event, hook("p-late")).priority(10),
        reg(Level::User, "u-b", event, hook("u-b")).priority(1),
        reg(Level::Builtin, "b", event, hook("b")).priority(99),
        reg(Level::User, "u-first", event, hook("u-first")).priority(-5),
        reg(Level::User, "u-c", event, hook("u-c")).priority(1),
        reg(Level::Project, "p-early", event, hook("p-early")).priority(-10),
    ];
    let (outcome, _) = check(registrations, event, Context::default()).await;
    insta::assert_yaml_snapshot!(outcome);
    assert_eq!(*log.lock().unwrap(), ["b", "u-first", "u-b", "u-c", "p-early", "p-late", "s"]);
}

/// One row: the event, the field, how to read it and how to write it.
struct FieldCase {
    event: Event,
    read: fn(&Context) -> String,
    write: fn(String) -> ContextPatch,
}

#[tokio::test]
async fn each_hook_sees_every_field_as_the_previous_hook_left_it() {
    let cases = [
        FieldCase {
            event: Event::PreSendMessage,
            read: |c| c.user_input.clone().unwrap_or_default(),
            write: |v| ContextPatch { user_input: Some(v), ..ContextPatch::default() },
        },
        FieldCase {
            event: Event::PreLlmRequest,
            read: |c| c.system_prompt.clone().unwrap_or_default(),
            write: |v| ContextPatch { system_prompt: Some(v), ..ContextPatch::default() },
        },
        FieldCase {
            event: Event::PreLlmRequest,
            read: |c| c.model.clone().unwrap_or_default(),
            write: |v| ContextPatch { model: Some(v), ..ContextPatch::default() },
        },
        FieldCase {
            event: Event::PreLlmRequest,
            read: |c| c.messages.iter().flatten().map(|m| m.text_content()).collect::<Vec<_>>().join(","),
            write: |v| ContextPatch {
                messages: Some(vec![ChatMessage::text(Role::User, v)]),
                ..ContextPatch::default()
            },
        },
        FieldCase {
            event: Event::PostLlmResponse,
            read: |c| c.assistant_output.clone().unwrap_or_default(),
            write: |v| ContextPatch { assistant_output: Some(v), ..ContextPatch::default() },
        },
        FieldCase {
            event: Event::PreToolExecution,
            read: |c| c.tool_name.clone().unwrap_or_default(),
            write: |v| ContextPatch { tool_name: Some(v), ..ContextPatch::default() },
        },
        FieldCase {
            event: Event::PreToolExecution,
            read: |c| c.tool_arguments.clone().unwrap_or_default(),
            write: |v| ContextPatch { tool_arguments: Some(v), ..ContextPatch::default() },
        },
        FieldCase {
            event: Event::PostToolExecution,
            read: |c| c.tool_result.as_ref().map(|r| r.for_llm.clone()).unwrap_or_default(),
            write: |v| ContextPatch { tool_result: Some(ToolResult::text(v)), ..ContextPatch::default() },
        },
        FieldCase {
            event: Event::PostToolExecutionFailure,
            read: |c| c.tool_error.clone().unwrap_or_default(),
            write: |v| ContextPatch { tool_error: Some(v), ..ContextPatch::default() },
        },
    ];
    for case in cases {
        let (read, write) = (case.read, case.write);
        let step = |tag: &'static str| {
            from_context(tag, move |context| HookOutput {
                patch: write(format!("{}>{tag}", read(context))),
                ..HookOutput::default()
            })
        };
        let registrations = vec![
            reg(Level::User, "first", case.event, step("1")),
            reg(Level::Project, "second", case.event, step("2")),
            reg(Level::Session, "third", case.event, step("3")),
        ];
        let (outcome, context) = check(registrations, case.event, Context::default()).await;
        assert_eq!(read(&context), ">1>2>3", "{}: {outcome:#}", case.event);
        assert_eq!(outcome["changed"].as_array().unwrap().len(), 1, "{}: {outcome:#}", case.event);
    }
}

#[tokio::test]
async fn two_hooks_writing_one_field_last_wins_and_omitted_fields_stay() {
    let write = |text: &str| HookOutput {
        patch: ContextPatch { user_input: Some(text.into()), ..ContextPatch::default() },
        ..HookOutput::default()
    };
    let registrations = vec![
        reg(Level::User, "a", Event::PreSendMessage, fixed("a", write("from a"))),
        reg(Level::User, "leaves-it", Event::PreSendMessage, fixed("leaves-it", HookOutput::default())),
        reg(Level::User, "b", Event::PreSendMessage, fixed("b", write("from b"))),
    ];
    let context = Context { user_input: Some("original".into()), cwd: Some("/w".into()), ..Context::default() };
    let (outcome, context) = check(registrations, Event::PreSendMessage, context).await;
    insta::assert_yaml_snapshot!(outcome);
    assert_eq!(context.user_input.as_deref(), Some("from b"));
    assert_eq!(context.cwd.as_deref(), Some("/w"));
}

#[tokio::test]
async fn effects_accumulate_in_chain_order_and_retry_feedback_is_last_writer() {
    let effect = |n: u32| HookOutput {
        inject_messages: vec![ChatMessage::text(Role::User, format!("inject {n}"))],
        additional_context: Some(format!("context {n}")),
        system_message: Some(format!("notice {n}")),
        retry_feedback: Some(format!("feedback {n}")),
        ..HookOutput::default()
    };
    let on = |event: Event| {
        (1..=3).map(move |n| reg(Level::User, &format!("h{n}"), event, fixed("h", effect(n)))).collect::<Vec<_>>()
    };
    // pre_llm_request honours inject_messages and additional_context, not retry_feedback.
    let (before_llm, _) = check(on(Event::PreLlmRequest), Event::PreLlmRequest, Context::default()).await;
    insta::assert_yaml_snapshot!("accumulate_pre_llm_request", before_llm);
    // stop honours additional_context and retry_feedback (last writer wins), not inject_messages.
    let (stop, _) = check(on(Event::Stop), Event::Stop, Context::default()).await;
    insta::assert_yaml_snapshot!("accumulate_stop", stop);
}

#[tokio::test]
async fn a_halt_keeps_what_earlier_hooks_did_and_runs_nothing_after() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let halting = [Action::Stop, Action::Skip, Action::DenyTool, Action::Respond, Action::AbortTurn, Action::HardAbort];
    for action in halting {
        log.lock().unwrap().clear();
        let halt = HookOutput {
            action: Some(action),
            reason: Some(format!("{} by guard", action.as_str())),
            system_message: Some("guard notice".into()),
            respond: Some(ToolResult::text("answered")),
            ..HookOutput::default()
        };
        let rewrite = HookOutput {
            patch: ContextPatch { tool_arguments: Some("{\"safe\":true}".into()), ..ContextPatch::default() },
            system_message: Some("first notice".into()),
            ..HookOutput::default()
        };
        let registrations = vec![
            reg(Level::User, "first", Event::PreToolExecution, recording("first", log.clone(), rewrite)),
            reg(Level::User, "guard", Event::PreToolExecution, recording("guard", log.clone(), halt))
                .respond_tools(vec!["*".into()]),
            reg(Level::User, "later", Event::PreToolExecution, recording("later", log.clone(), says("never"))),
        ];
        let (outcome, context) = check(registrations, Event::PreToolExecution, tool_call("Bash", "{}")).await;
        insta::assert_yaml_snapshot!(format!("halt_{}", action.as_str()), outcome);
        assert_eq!(*log.lock().unwrap(), ["first", "guard"], "{action:?}");
        assert_eq!(context.tool_arguments.as_deref(), Some("{\"safe\":true}"));
    }
}

#[tokio::test]
async fn changes_and_actions_an_event_cannot_honour_are_dropped_and_noted() {
    let everything = HookOutput {
        action: Some(Action::Skip),
        patch: ContextPatch {
            user_input: Some("new input".into()),
            tool_result: Some(ToolResult::text("new result")),
            ..ContextPatch::default()
        },
        inject_messages: vec![ChatMessage::text(Role::User, "injected")],
        additional_context: Some("more".into()),
        retry_feedback: Some("again".into()),
        approved: Some(false),
        system_message: Some("always shown".into()),
        ..HookOutput::default()
    };
    for event in [Event::PostToolExecution, Event::PreSendMessage, Event::SessionStart] {
        let registrations = vec![reg(Level::User, "greedy", event, fixed("greedy", everything.clone()))];
        let (outcome, _) = check(registrations, event, tool_call("Bash", "{}")).await;
        insta::assert_yaml_snapshot!(format!("drops_{}", event.as_str()), outcome);
    }
}

#[tokio::test]
async fn approvals_need_every_approver_and_the_first_denial_wins() {
    let decide = |approved: Option<bool>, reason: &str| HookOutput {
        approved,
        reason: Some(reason.into()),
        ..HookOutput::default()
    };
    /// Approver names and what each answers.
    type Approvers = Vec<(&'static str, Option<bool>)>;
    let rows: Vec<(&str, Approvers)> = vec![
        ("no approver", vec![]),
        ("all approve", vec![("a", Some(true)), ("b", None)]),
        ("first denial wins", vec![("a", Some(true)), ("b", Some(false)), ("c", Some(false))]),
    ];
    for (label, approvers) in rows {
        let registrations = approvers
            .iter()
            .map(|(name, approved)| {
                let reason = format!("{name} says {approved:?}");
                reg(Level::User, name, Event::ApproveTool, fixed(name, decide(*approved, &reason)))
            })
            .collect();
        let (outcome, _) = check(registrations, Event::ApproveTool, tool_call("Bash", "{}")).await;
        insta::assert_yaml_snapshot!(format!("approval_{}", label.replace(' ', "_")), outcome);
    }
}

#[tokio::test]
async fn the_payload_is_serialized_once_and_again_only_after_a_change() {
    let n_serialized = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let reader = |name: &'static str, rewrite: Option<&'static str>| {
        let (n_serialized, seen) = (n_serialized.clone(), seen.clone());
        hook_core::hook_fn(name, move |input: &hook_core::HookInput<'_>| {
            let bytes = input.serialized("test.user_input", |_event, context| {
                n_serialized.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                context.user_input.clone().unwrap_or_default().into_bytes()
            });
            seen.lock().unwrap().push(String::from_utf8_lossy(&bytes).into_owned());
            let patch = ContextPatch { user_input: rewrite.map(str::to_owned), ..ContextPatch::default() };
            async move { Ok(HookOutput { patch, ..HookOutput::default() }) }
        })
    };
    let event = Event::PreSendMessage;
    let registrations = vec![
        reg(Level::User, "a", event, reader("a", None)),
        reg(Level::User, "b", event, reader("b", Some("changed"))),
        reg(Level::User, "c", event, reader("c", None)),
        reg(Level::User, "d", event, reader("d", None)),
    ];
    let context = Context { user_input: Some("original".into()), ..Context::default() };
    check(registrations, event, context).await;
    assert_eq!(*seen.lock().unwrap(), ["original", "original", "changed", "changed"]);
    assert_eq!(n_serialized.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[test]
fn the_serialized_buffer_is_shared_as_written_never_copied() {
    // A copy would hold a 5 MB history twice at its peak.
    let cache = hook_core::SerializedCache::default();
    let mut written = None;
    let bytes = cache.get_or_insert("test.big", || {
        let buffer = vec![b'x'; 1 << 20];
        written = Some(buffer.as_ptr());
        buffer
    });
    assert_eq!(Some(bytes.as_ptr()), written);
    let again = cache.get_or_insert("test.big", || unreachable!("serialized once"));
    assert_eq!(again.as_ptr(), bytes.as_ptr());
}

#[tokio::test]
async fn hooks_of_an_event_nothing_can_change_run_concurrently() {
    // Each hook waits for all three to have started: only a concurrent run gets past the barrier
    // before the hooks' 5 s deadline.
    let barrier = Arc::new(tokio::sync::Barrier::new(3));
    let waiter = |name: &'static str| {
        let barrier = barrier.clone();
        hook_core::hook_fn(name, move |_input: &hook_core::HookInput<'_>| {
            let barrier = barrier.clone();
            async move {
                barrier.wait().await;
                Ok(says(name))
            }
        })
    };
    let registrations = ["x", "y", "z"]
        .into_iter()
        .map(|name| reg(Level::User, name, Event::SessionEnd, waiter(name)).timeout(std::time::Duration::from_secs(5)))
        .collect();
    let (outcome, _) = check(registrations, Event::SessionEnd, Context::default()).await;
    insta::assert_yaml_snapshot!(outcome);
}

/// A j-cli answer as a bash hook would print it.
fn answering(name: &'static str, json: &'static str) -> Arc<dyn hook_core::Hook> {
    hook_core::hook_fn(name, move |input: &hook_core::HookInput<'_>| {
        let result: hook_protocol::HookResult = hook_protocol::serde_json::from_str(json).unwrap();
        let output = HookOutput::from_hook_result(result, input.event, input.context);
        async move { Ok(output) }
    })
}

#[tokio::test]
async fn an_approval_with_a_misspelt_field_fails_closed() {
    let registrations = vec![reg(Level::User, "typo", Event::ApproveTool, answering("typo", r#"{"aproved": false}"#))];
    let engine = engine_with(registrations, Deadlines::default());
    let mut context = tool_call("Bash", r#"{"command":"rm -rf /"}"#);
    let outcome = engine.fire(Event::ApproveTool, &mut context).await;
    assert_eq!(outcome.decision, hook_core::Decision::Denied);
    assert!(outcome.reason.as_deref().unwrap_or_default().contains("`aproved`"), "{:?}", outcome.reason);
    assert_eq!(outcome.trace[0].outcome, hook_core::OutcomeClass::InvalidOutput);
    // The same answer spelt right approves nothing either way, and an empty one has no objection.
    let fine = vec![reg(Level::User, "fine", Event::ApproveTool, answering("fine", "{}"))];
    let outcome = engine_with(fine, Deadlines::default()).fire(Event::ApproveTool, &mut context).await;
    assert_eq!(outcome.decision, hook_core::Decision::Approved);
}

#[tokio::test]
async fn unknown_fields_elsewhere_are_noted_in_the_trace() {
    let registrations =
        vec![reg(Level::User, "typo", Event::PreToolExecution, answering("typo", r#"{"acton": "skip"}"#))];
    let engine = engine_with(registrations, Deadlines::default());
    let mut context = tool_call("Bash", r#"{"command":"ls"}"#);
    let outcome = engine.fire(Event::PreToolExecution, &mut context).await;
    assert_eq!(outcome.decision, hook_core::Decision::Continue);
    assert_eq!(outcome.trace[0].dropped, ["unknown field `acton`"]);
}
