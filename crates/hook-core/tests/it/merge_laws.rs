//! Merge laws, by property: omitted fields never change, a halting action wins over later hooks,
//! and no `HookResult` JSON makes the chain panic.

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use hook_core::{Action, Context, ContextPatch, Deadlines, Engine, Event, HookOutput, Level};
use hook_protocol::{HookResult, serde_json};
use proptest::prelude::*;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn any_event() -> impl Strategy<Value = Event> {
    (0..Event::ALL.len()).prop_map(|idx| Event::ALL[idx])
}

fn any_action() -> impl Strategy<Value = Option<Action>> {
    prop_oneof![
        Just(None),
        Just(Some(Action::Stop)),
        Just(Some(Action::Skip)),
        Just(Some(Action::DenyTool)),
        Just(Some(Action::Respond)),
        Just(Some(Action::AbortTurn)),
        Just(Some(Action::HardAbort)),
    ]
}

/// A patch setting some of the string fields.
fn any_patch() -> impl Strategy<Value = ContextPatch> {
    let text = || proptest::option::of("[a-z]{0,4}");
    (text(), text(), text(), text(), text(), text()).prop_map(|(u, s, m, a, t, e)| ContextPatch {
        user_input: u,
        system_prompt: s,
        model: m,
        assistant_output: a,
        tool_arguments: t,
        tool_error: e,
        ..ContextPatch::default()
    })
}

fn base_context() -> Context {
    Context {
        session_id: Some("s".into()),
        user_input: Some("in".into()),
        system_prompt: Some("sys".into()),
        model: Some("m".into()),
        assistant_output: Some("out".into()),
        tool_name: Some("Bash".into()),
        tool_arguments: Some("{}".into()),
        tool_error: Some("err".into()),
        ..Context::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn omitted_fields_never_change(event in any_event(), patches in proptest::collection::vec(any_patch(), 1..4)) {
        let registrations = patches
            .iter()
            .enumerate()
            .map(|(idx, patch)| {
                let output = HookOutput { patch: patch.clone(), ..HookOutput::default() };
                reg(Level::User, &format!("h{idx}"), event, fixed("h", output))
            })
            .collect();
        let engine = engine_with(registrations, Deadlines::default());
        let mut context = base_context();
        let outcome = runtime().block_on(engine.fire(event, &mut context));
        let before = base_context();
        let set_by_someone = |field| patches.iter().any(|p| p.sets(field));
        for field in hook_core::Field::ALL {
            if !set_by_someone(field) {
                prop_assert!(!outcome.changed.contains(&field), "{field:?} changed without a hook setting it");
            }
        }
        if !patches.iter().any(|p| p.user_input.is_some()) {
            prop_assert_eq!(&context.user_input, &before.user_input);
        }
        if !patches.iter().any(|p| p.tool_error.is_some()) {
            prop_assert_eq!(&context.tool_error, &before.tool_error);
        }
        prop_assert_eq!(&context.session_id, &before.session_id);
    }

    #[test]
    fn a_halting_action_wins_over_every_later_hook(
        event in any_event(),
        actions in proptest::collection::vec(any_action(), 1..6),
    ) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let registrations = actions
            .iter()
            .enumerate()
            .map(|(idx, action)| {
                let output = HookOutput { action: *action, reason: Some(format!("h{idx}")), ..HookOutput::default() };
                reg(Level::User, &format!("h{idx}"), event, recording(&format!("h{idx}"), log.clone(), output))
                    .respond_tools(vec!["*".into()])
            })
            .collect();
        let engine = engine_with(registrations, Deadlines::default());
        let outcome = runtime().block_on(engine.fire(event, &mut base_context()));
        let cap = hook_core::capability(event);
        // On approve_tool, `stop` and `deny_tool` are denials; elsewhere the event's table decides.
        let halts = |a: Action| if cap.is_approval { matches!(a, Action::Stop | Action::DenyTool) } else { cap.allows(a) };
        let first_halt = actions.iter().position(|a| a.is_some_and(halts));
        let ran = log.lock().unwrap().len();
        match first_halt {
            Some(idx) if !cap.is_notify_only() => {
                prop_assert_eq!(ran, idx + 1);
                prop_assert_eq!(outcome.reason.clone(), Some(format!("h{idx}")));
                prop_assert!(outcome.is_halted());
            }
            _ => {
                prop_assert_eq!(ran, actions.len());
                if !cap.is_approval {
                    prop_assert!(!outcome.is_halted());
                }
            }
        }
    }

    #[test]
    fn no_hook_result_json_makes_the_chain_panic(event in any_event(), json in any_json()) {
        let Ok(result) = hook_protocol::from_json_value::<HookResult>(json) else { return Ok(()) };
        let context = base_context();
        let output = HookOutput::from_hook_result(result, event, &context);
        let engine = Engine::default();
        engine.register(reg(Level::User, "any", event, fixed("any", output.clone())));
        engine.register(reg(Level::Project, "after", event, fixed("after", output)));
        let outcome = runtime().block_on(engine.fire(event, &mut context.clone()));
        prop_assert!(!outcome.trace.is_empty());
    }
}

/// JSON objects shaped like HookResults, with members of the right and wrong types.
fn any_json() -> impl Strategy<Value = serde_json::Value> {
    let members = [
        "user_input",
        "assistant_output",
        "system_prompt",
        "tool_arguments",
        "tool_result",
        "tool_error",
        "action",
        "retry_feedback",
        "additional_context",
        "system_message",
        "approved",
        "reason",
        "messages",
        "inject_messages",
        "unknown",
    ];
    let value = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        "(stop|skip|halt|)".prop_map(serde_json::Value::from),
        "\\PC{0,8}".prop_map(serde_json::Value::from),
        Just(serde_json::json!([{"role": "user", "content": "hi"}])),
        Just(serde_json::json!([{"role": "nobody"}])),
        any::<i64>().prop_map(serde_json::Value::from),
    ];
    proptest::collection::vec((0..members.len(), value), 0..8).prop_map(move |pairs| {
        let map = pairs.into_iter().map(|(idx, value)| (members[idx].to_owned(), value)).collect();
        serde_json::Value::Object(map)
    })
}
