//! The approval policy: a tool with side effects runs only when a hook or a person approves it;
//! read-only tools run without asking; a hook's `ask` forces the question.

use crate::common;

use std::{
    collections::VecDeque,
    sync::{Arc, Mutex},
};

use agent_loop::{
    ApprovalAnswer, ApprovalPolicy, ApprovalRequest, Asker, DEFERRED_BY_HOOK, DENIED_BY_USER, DENIED_NOT_APPROVED,
};
use async_trait::async_trait;
use common::{Harness, call, calls, text};
use hook_core::{HookOutput, Permission};
use hook_protocol::Event;

/// Answers from a script and records the questions.
#[derive(Debug, Default)]
struct ScriptedAsker {
    answers: Mutex<VecDeque<ApprovalAnswer>>,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl ScriptedAsker {
    fn new(answers: impl IntoIterator<Item = ApprovalAnswer>) -> Arc<Self> {
        Arc::new(ScriptedAsker { answers: Mutex::new(answers.into_iter().collect()), asked: Mutex::default() })
    }

    fn asked(&self) -> Vec<ApprovalRequest> {
        self.asked.lock().unwrap().clone()
    }
}

#[async_trait]
impl Asker for ScriptedAsker {
    async fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer {
        self.asked.lock().unwrap().push(request.clone());
        self.answers.lock().unwrap().pop_front().unwrap_or(ApprovalAnswer::Unanswered)
    }
}

fn touch(id: &str, file: &str) -> hook_protocol::ToolCall {
    call(id, "Bash", &format!(r#"{{"command":"touch {file}"}}"#))
}

fn with_policy(script: Vec<hook_llm::Reply>, policy: ApprovalPolicy) -> Harness {
    let mut harness = Harness::new(script);
    harness.approval = policy;
    harness
}

#[tokio::test]
async fn by_default_a_tool_with_side_effects_is_denied_when_no_one_can_answer() {
    let harness = with_policy(vec![calls(vec![touch("c1", "pwned")]), text("ok")], ApprovalPolicy::default());
    let mut session = harness.session().await;
    let report = session.send("go").await.unwrap();
    assert!(!harness.dir.join("pwned").exists());
    assert_eq!(harness.tool_message(1, "c1"), DENIED_NOT_APPROVED);
    assert_eq!(report.tools[0].outcome, "not_approved");
    assert_eq!(report.reply, "ok");
}

#[tokio::test]
async fn read_only_tools_run_without_approval() {
    let harness = with_policy(
        vec![
            calls(vec![
                call("c1", "Read", r#"{"file_path":"a.txt"}"#),
                call("c2", "LS", "{}"),
                call("c3", "Glob", r#"{"pattern":"*.txt"}"#),
                call("c4", "Grep", r#"{"pattern":"hello"}"#),
            ]),
            text("ok"),
        ],
        ApprovalPolicy::DenyUnlessHookApproves,
    );
    std::fs::write(harness.dir.join("a.txt"), "hello\n").unwrap();
    let mut session = harness.session().await;
    let report = session.send("look").await.unwrap();
    assert!(report.tools.iter().all(|t| t.outcome == "executed" && !t.is_error), "{:?}", report.tools);
    assert_eq!(harness.tool_message(1, "c1"), "     1\thello\n");
}

#[tokio::test]
async fn allow_all_and_an_allow_list_run_what_they_name() {
    let harness = with_policy(vec![calls(vec![touch("c1", "ran")]), text("ok")], ApprovalPolicy::AllowAll);
    harness.session().await.send("go").await.unwrap();
    assert!(harness.dir.join("ran").exists());

    let harness = harness_with_list();
    let mut session = harness.session().await;
    let report = session.send("go").await.unwrap();
    assert!(harness.dir.join("written.txt").exists());
    assert!(!harness.dir.join("ran").exists());
    assert_eq!(report.tools[0].outcome, "executed");
    assert_eq!(report.tools[1].outcome, "not_approved");
}

fn harness_with_list() -> Harness {
    with_policy(
        vec![
            calls(vec![call("c1", "Write", r#"{"file_path":"written.txt","content":"x"}"#), touch("c2", "ran")]),
            text("ok"),
        ],
        ApprovalPolicy::allow(["Write"]),
    )
}

#[tokio::test]
async fn only_an_explicit_approval_counts_under_deny_unless_hook_approves() {
    let harness = with_policy(
        vec![calls(vec![touch("c1", "first")]), calls(vec![touch("c2", "second")]), text("ok")],
        ApprovalPolicy::DenyUnlessHookApproves,
    );
    // The first call meets no objection (`{}`), which is not an approval; the second is approved.
    let approvals = Arc::new(Mutex::new(VecDeque::from([None, Some(true)])));
    harness.hook(
        "approver",
        [Event::ApproveTool],
        hook_core::hook_fn("approver", move |_input: &hook_core::HookInput<'_>| {
            let approved = approvals.lock().unwrap().pop_front().flatten();
            async move { Ok(HookOutput { approved, ..HookOutput::default() }) }
        }),
    );
    let mut session = harness.session().await;
    session.send("go").await.unwrap();
    assert!(!harness.dir.join("first").exists());
    assert!(harness.dir.join("second").exists());
    assert_eq!(harness.tool_message(1, "c1"), DENIED_NOT_APPROVED);
}

#[tokio::test]
async fn a_pre_tool_allow_approves_and_a_defer_refuses() {
    let harness = with_policy(vec![calls(vec![touch("c1", "allowed")]), text("ok")], ApprovalPolicy::default());
    let allow = HookOutput { permission: Some(Permission::Allow), ..HookOutput::default() };
    harness.hook("allow", [Event::PreToolExecution], common::returning(allow));
    harness.session().await.send("go").await.unwrap();
    assert!(harness.dir.join("allowed").exists());

    let harness = with_policy(vec![calls(vec![touch("c1", "deferred")]), text("ok")], ApprovalPolicy::AllowAll);
    let defer = HookOutput { permission: Some(Permission::Defer), ..HookOutput::default() };
    harness.hook("defer", [Event::PreToolExecution], common::returning(defer));
    let report = harness.session().await.send("go").await.unwrap();
    assert!(!harness.dir.join("deferred").exists());
    assert_eq!(harness.tool_message(1, "c1"), DEFERRED_BY_HOOK);
    assert_eq!(report.tools[0].outcome, "deferred");
}

#[tokio::test]
async fn the_asker_answers_no_yes_and_always() {
    let asker = ScriptedAsker::new([ApprovalAnswer::No, ApprovalAnswer::Always]);
    let harness = with_policy(
        vec![
            calls(vec![touch("c1", "refused")]),
            calls(vec![touch("c2", "always")]),
            calls(vec![touch("c3", "again")]),
            text("ok"),
        ],
        ApprovalPolicy::Ask(asker.clone()),
    );
    let mut session = harness.session().await;
    let report = session.send("go").await.unwrap();
    assert!(!harness.dir.join("refused").exists());
    assert_eq!(harness.tool_message(1, "c1"), DENIED_BY_USER);
    assert!(harness.dir.join("always").exists());
    assert!(harness.dir.join("again").exists(), "`always` covers later calls of the tool");
    let asked = asker.asked();
    assert_eq!(asked.len(), 2, "the third call was not asked about: {asked:?}");
    assert_eq!(asked[0].tool_name, "Bash");
    assert_eq!(asked[0].arguments, r#"{"command":"touch refused"}"#);
    assert_eq!(asked[0].session_id, "s1");
    assert!(!asked[0].is_forced);
    assert_eq!(report.tools.iter().map(|t| t.outcome).collect::<Vec<_>>(), ["user_denied", "executed", "executed"]);
}

#[tokio::test]
async fn a_hooks_ask_forces_the_question_even_when_everything_is_allowed() {
    let ask = HookOutput { permission: Some(Permission::Ask), ..HookOutput::default() };

    let harness = with_policy(vec![calls(vec![touch("c1", "asked")]), text("ok")], ApprovalPolicy::AllowAll);
    harness.hook("ask", [Event::PreToolExecution], common::returning(ask.clone()));
    harness.session().await.send("go").await.unwrap();
    assert!(!harness.dir.join("asked").exists(), "with no one to ask, `ask` denies even under AllowAll");
    assert!(harness.tool_message(1, "c1").starts_with(DENIED_NOT_APPROVED), "{}", harness.tool_message(1, "c1"));

    // A tool answered `always` earlier is asked about again when a hook asks.
    let asker = ScriptedAsker::new([ApprovalAnswer::Always, ApprovalAnswer::No]);
    let harness = with_policy(
        vec![calls(vec![call("c1", "Bash", r#"{"command":"true"}"#)]), calls(vec![touch("c2", "forced")]), text("ok")],
        ApprovalPolicy::Ask(asker.clone()),
    );
    let forced = Arc::new(Mutex::new(0));
    let counter = forced.clone();
    harness.hook(
        "ask-second",
        [Event::PreToolExecution],
        hook_core::hook_fn("ask-second", move |_input: &hook_core::HookInput<'_>| {
            let n = {
                let mut n = counter.lock().unwrap();
                *n += 1;
                *n
            };
            let output = if n == 2 { ask.clone() } else { HookOutput::default() };
            async move { Ok(output) }
        }),
    );
    harness.session().await.send("go").await.unwrap();
    let asked = asker.asked();
    assert_eq!(asked.len(), 2);
    assert!(asked[1].is_forced);
    assert!(!harness.dir.join("forced").exists());
}

#[tokio::test]
async fn an_approval_hooks_explicit_approval_answers_a_pre_tool_ask() {
    let harness = with_policy(vec![calls(vec![touch("c1", "approved")]), text("ok")], ApprovalPolicy::default());
    let ask = HookOutput { permission: Some(Permission::Ask), ..HookOutput::default() };
    harness.hook("ask", [Event::PreToolExecution], common::returning(ask));
    let approve = HookOutput { approved: Some(true), ..HookOutput::default() };
    harness.hook("approver", [Event::ApproveTool], common::returning(approve));
    harness.session().await.send("go").await.unwrap();
    assert!(harness.dir.join("approved").exists());
}
