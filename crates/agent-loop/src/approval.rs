//! Who approves a tool call with side effects when no hook did: the [`ApprovalPolicy`].
//!
//! A tool call runs only when it is approved. In order:
//!
//! 1. `approve_tool` denied it (an approver said no, or failed closed): it does not run.
//! 2. `approve_tool` approved it explicitly (an approver answered `approved: true`,
//!    [`hook_core::FireOutcome::permission`] `Allow`): it runs.
//! 3. A `pre_tool_execution` hook answered `permission: allow`: it runs. `defer`: it does not
//!    run (the call is left to the caller). `ask`: the person is asked, whatever the policy
//!    says ([`ApprovalRequest::is_forced`]); with no one to ask it does not run.
//! 4. A read-only tool ([`crate::Tool::is_read_only`]) runs.
//! 5. Otherwise the policy decides: [`ApprovalPolicy::AllowAll`] runs it,
//!    [`ApprovalPolicy::Allow`] runs the tools it names, [`ApprovalPolicy::Ask`] asks its
//!    [`Asker`] (`yes`, `no`, `always` for this tool in this session, or no answer),
//!    [`ApprovalPolicy::DenyUnlessHookApproves`] refuses.
//!
//! A refusal reaches the model as the tool's result ([`DENIED_NOT_APPROVED`],
//! [`DENIED_BY_USER`], [`DEFERRED_BY_HOOK`]).

use std::{collections::BTreeSet, fmt, sync::Arc};

use async_trait::async_trait;

/// Tool message of a call nobody approved (no hook decided and no one could be asked).
pub const DENIED_NOT_APPROVED: &str =
    "Tool execution denied: this tool needs approval, and no approval hook or person approved the call";
/// Tool message of a call the person refused.
pub const DENIED_BY_USER: &str = "Tool execution denied by the user";
/// Tool message of a call a `pre_tool_execution` hook deferred.
pub const DEFERRED_BY_HOOK: &str = "Tool execution deferred by hook: the call was left to the caller and did not run";

/// One question to the person: may this call run?
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// The session.
    pub session_id: String,
    /// The tool, as called (after hook rewrites).
    pub tool_name: String,
    /// Its arguments (JSON text, after hook rewrites).
    pub arguments: String,
    /// A hook asked for this question (`permission: ask`): answer it even for a tool the
    /// person allowed beforehand.
    pub is_forced: bool,
    /// The hook's reason, when it gave one.
    pub reason: Option<String>,
}

/// The person's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalAnswer {
    /// Run this call.
    Yes,
    /// Do not run it.
    No,
    /// Run it, and every later call of this tool in this session without asking (unless a
    /// hook asks).
    Always,
    /// No one could answer (no terminal, the input closed): the call does not run.
    Unanswered,
}

/// Asks a person whether a tool call may run (a terminal prompt, a GUI dialog, a chat message).
#[async_trait]
pub trait Asker: Send + Sync + fmt::Debug {
    /// The answer to `request`. Cancelling the turn drops the future.
    async fn ask(&self, request: &ApprovalRequest) -> ApprovalAnswer;
}

/// The asker of the default policy: there is no one to ask, every question goes unanswered.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoOneToAsk;

#[async_trait]
impl Asker for NoOneToAsk {
    async fn ask(&self, _request: &ApprovalRequest) -> ApprovalAnswer {
        ApprovalAnswer::Unanswered
    }
}

/// Who approves a tool call with side effects when no hook decided (see the module docs).
#[derive(Clone)]
pub enum ApprovalPolicy {
    /// Ask this asker; no answer denies.
    Ask(Arc<dyn Asker>),
    /// Run every call (`--yes`). A hook's `ask` still asks, and with no one to ask, denies.
    AllowAll,
    /// Run calls of these tools (`--allow TOOL`); deny the others.
    Allow(BTreeSet<String>),
    /// Run only what an approval hook (or a `pre_tool_execution` allow) approved.
    DenyUnlessHookApproves,
}

impl Default for ApprovalPolicy {
    /// Ask, and deny when no one can answer: [`ApprovalPolicy::Ask`] with [`NoOneToAsk`].
    fn default() -> Self {
        ApprovalPolicy::Ask(Arc::new(NoOneToAsk))
    }
}

impl fmt::Debug for ApprovalPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApprovalPolicy::Ask(asker) => f.debug_tuple("Ask").field(asker).finish(),
            ApprovalPolicy::AllowAll => f.write_str("AllowAll"),
            ApprovalPolicy::Allow(tools) => f.debug_tuple("Allow").field(tools).finish(),
            ApprovalPolicy::DenyUnlessHookApproves => f.write_str("DenyUnlessHookApproves"),
        }
    }
}

impl ApprovalPolicy {
    /// [`ApprovalPolicy::Allow`] of these tool names.
    pub fn allow<I, S>(tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ApprovalPolicy::Allow(tools.into_iter().map(Into::into).collect())
    }

    /// The asker, for [`ApprovalPolicy::Ask`].
    pub(crate) fn asker(&self) -> Option<&Arc<dyn Asker>> {
        match self {
            ApprovalPolicy::Ask(asker) => Some(asker),
            _ => None,
        }
    }
}

/// What the approval step concluded for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Run it; who decided (`hook`, `policy`, `user`, `read-only`).
    Run(&'static str),
    /// Do not run it: the tool message and the record's outcome.
    Refuse(String, crate::ToolOutcome),
}
