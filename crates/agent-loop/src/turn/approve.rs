//! Whether a tool call may run once `approve_tool` did not refuse it: the hooks' permissions,
//! read-only tools, the approval policy, and a person when the policy asks one (see
//! [`crate::approval`]).

use hook_core::{Decision, FireOutcome, Permission};

use super::{DENIED_BY_APPROVAL, with_reason};
use crate::{
    ApprovalAnswer, ApprovalPolicy, ApprovalRequest, DEFERRED_BY_HOOK, DENIED_BY_USER, DENIED_NOT_APPROVED, Session,
    ToolOutcome, approval::Verdict,
};

impl Session {
    /// Whether an approved (or unobjected) call may run: see [`crate::approval`]. `approval` is
    /// the outcome of `approve_tool`; `pre_permission` and `pre_reason` come from
    /// `pre_tool_execution`.
    pub(crate) async fn decide(
        &mut self,
        name: &str,
        args: &str,
        pre_permission: Option<Permission>,
        pre_reason: Option<&str>,
        approval: &FireOutcome,
    ) -> Verdict {
        if approval.decision != Decision::Approved {
            return Verdict::Refuse(
                with_reason(DENIED_BY_APPROVAL, approval.reason.as_deref()),
                ToolOutcome::ApprovalDenied,
            );
        }
        if approval.permission == Some(Permission::Allow) {
            return Verdict::Run("hook");
        }
        match pre_permission {
            Some(Permission::Allow) => return Verdict::Run("hook"),
            Some(Permission::Defer) => {
                return Verdict::Refuse(with_reason(DEFERRED_BY_HOOK, pre_reason), ToolOutcome::Deferred);
            }
            Some(Permission::Ask) => return self.ask_person(name, args, true, pre_reason).await,
            // A permission this loop does not know yet decides nothing.
            _ => {}
        }
        let is_read_only = self.agent.inner.tools.get(name).is_none_or(|tool| tool.is_read_only());
        if is_read_only {
            return Verdict::Run("read-only");
        }
        if self.always_allowed.contains(name) {
            return Verdict::Run("user");
        }
        match &self.agent.inner.approval {
            ApprovalPolicy::AllowAll => Verdict::Run("policy"),
            ApprovalPolicy::Allow(tools) if tools.contains(name) => Verdict::Run("policy"),
            ApprovalPolicy::Allow(_) | ApprovalPolicy::DenyUnlessHookApproves => {
                Verdict::Refuse(DENIED_NOT_APPROVED.to_owned(), ToolOutcome::NotApproved)
            }
            ApprovalPolicy::Ask(_) => self.ask_person(name, args, false, None).await,
        }
    }

    /// Asks the policy's asker about a call; no asker (or no answer) refuses.
    async fn ask_person(&mut self, name: &str, args: &str, is_forced: bool, reason: Option<&str>) -> Verdict {
        let not_approved = || {
            let text = match reason {
                Some(reason) if is_forced => format!("{DENIED_NOT_APPROVED} (a hook asked for confirmation: {reason})"),
                _ if is_forced => format!("{DENIED_NOT_APPROVED} (a hook asked for confirmation)"),
                _ => DENIED_NOT_APPROVED.to_owned(),
            };
            Verdict::Refuse(text, ToolOutcome::NotApproved)
        };
        let Some(asker) = self.agent.inner.approval.asker().cloned() else { return not_approved() };
        let request = ApprovalRequest {
            session_id: self.id.clone(),
            tool_name: name.to_owned(),
            arguments: args.to_owned(),
            is_forced,
            reason: reason.map(str::to_owned),
        };
        match asker.ask(&request).await {
            ApprovalAnswer::Yes => Verdict::Run("user"),
            ApprovalAnswer::Always => {
                self.always_allowed.insert(name.to_owned());
                Verdict::Run("user")
            }
            ApprovalAnswer::No => Verdict::Refuse(DENIED_BY_USER.to_owned(), ToolOutcome::UserDenied),
            ApprovalAnswer::Unanswered => not_approved(),
        }
    }
}
