//! Project hooks run only once the project is trusted, and only as trusted.

use hook_core::{Decision, Event};
use hook_host::TrustPolicy;

use crate::common::{Sandbox, bash_call, trust_project};

const GUARD: &str = "pre_tool_execution:\n  - name: guard\n    command: \"echo '{\\\"action\\\": \\\"skip\\\", \\\"reason\\\": \\\"guarded\\\"}'\"\n";

#[tokio::test]
async fn an_untrusted_projects_hooks_are_held_back_and_reported_until_trusted() {
    let sandbox = Sandbox::new("untrusted");
    sandbox.write("project/.hookwire/hooks.yaml", GUARD);
    let host = sandbox.host().build();
    assert_eq!(host.trust(), &TrustPolicy::Store(sandbox.path("config/trust.json")));
    let report = host.reload().await;
    assert_eq!(report.problem(), None, "held-back hooks are not an error: {:?}", report.errors());
    assert_eq!(report.untrusted().len(), 1, "{report:?}");
    assert_eq!(report.untrusted()[0].hooks, ["guard"]);
    assert!(report.untrusted()[0].how_to_trust.contains("hookwire trust"), "{:?}", report.untrusted());
    let outcome = host.engine().fire(Event::PreToolExecution, &mut bash_call("ls")).await;
    assert_eq!(outcome.decision, Decision::Continue);
    assert!(outcome.trace.is_empty(), "no hook may run: {outcome:?}");

    trust_project(&sandbox);
    let report = host.reload().await;
    assert!(report.untrusted().is_empty(), "{report:?}");
    assert!(report.changed);
    let outcome = host.engine().fire(Event::PreToolExecution, &mut bash_call("ls")).await;
    assert_eq!(outcome.decision, Decision::Skip);

    // An edit after the trust holds the project back again, and takes its hooks down.
    sandbox.write("project/.hookwire/hooks.yaml", &GUARD.replace("guarded", "edited"));
    let report = host.reload().await;
    assert_eq!(report.untrusted().len(), 1, "{report:?}");
    let outcome = host.engine().fire(Event::PreToolExecution, &mut bash_call("ls")).await;
    assert!(outcome.trace.is_empty(), "the changed file must not run: {outcome:?}");
    host.shutdown().await;
}

#[tokio::test]
async fn trust_policies_untrusted_and_trusted_decide_without_a_store() {
    let sandbox = Sandbox::new("policies");
    sandbox.write("project/.hookwire/hooks.yaml", GUARD);
    trust_project(&sandbox);

    let untrusted = sandbox.host().trust(TrustPolicy::Untrusted).build();
    let report = untrusted.reload().await;
    assert_eq!(report.untrusted().len(), 1, "a record in the store does not count: {report:?}");

    let trusted = sandbox.host().trust(TrustPolicy::Trusted).build();
    sandbox.write("project/.hookwire/hooks.yaml", &GUARD.replace("guarded", "unchecked"));
    let report = trusted.reload().await;
    assert!(report.untrusted().is_empty(), "{report:?}");
    let outcome = trusted.engine().fire(Event::PreToolExecution, &mut bash_call("ls")).await;
    assert_eq!(outcome.reason.as_deref(), Some("unchecked"));
    trusted.shutdown().await;
}
