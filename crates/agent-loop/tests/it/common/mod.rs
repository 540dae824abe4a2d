//! Shared harness: a ScriptedServer behind the real OpenAiClient, an agent over it, recording
//! hooks and observers, and small builders for hook outputs.

#![allow(dead_code, unreachable_pub, reason = "each test file uses a different part of the harness")]

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use agent_loop::{Agent, ApprovalPolicy, CompactionConfig, Session, SessionConfig, ToolRegistry};
use async_trait::async_trait;
use hook_core::{
    Action, Engine, Hook, HookError, HookInput, HookOutput, Level, Observer, ObserverEvent, Registration, hook_fn,
};
use hook_llm::{OpenAiClient, OpenAiConfig, Reply, ScriptedServer};
use hook_protocol::{Context, Event, ToolCall, ToolResult};
use serde_json::Value;

/// A ScriptedServer answering with `script`.
pub fn server(script: impl IntoIterator<Item = Reply>) -> ScriptedServer {
    ScriptedServer::start(script).expect("start the scripted server")
}

/// A tool call as the model sends it.
pub fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// A reply making these tool calls.
pub fn calls(list: Vec<ToolCall>) -> Reply {
    Reply::ToolCalls(list, None)
}

/// A text reply.
pub fn text(text: &str) -> Reply {
    Reply::Content(text.to_owned())
}

/// A fresh directory under the system temp dir. The first call removes the directories left
/// by earlier runs of these tests whose process is gone (a test binary cannot remove its own at
/// exit: the harness holds them until the end), so repeated runs do not fill the temp dir.
pub fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(sweep_stale_temp_dirs);
    let dir = std::env::temp_dir().join(format!(
        "agent-loop-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Removes `agent-loop-<tag>-<pid>-<n>` directories in the temp dir whose `<pid>` no longer runs.
fn sweep_stale_temp_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix("agent-loop-")) else { continue };
        let mut parts = rest.rsplitn(3, '-');
        let (Some(_n), Some(pid), Some(_tag)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The real OpenAI client, talking to `server` as model `scripted-model`.
pub fn client_of(server: &ScriptedServer) -> Arc<OpenAiClient> {
    let config = OpenAiConfig { base_url: server.base_url(), api_key: None, model: "scripted-model".into() };
    Arc::new(OpenAiClient::new(config).expect("client"))
}

/// Builds agents over a ScriptedServer with the real OpenAI client.
pub struct Harness {
    pub server: ScriptedServer,
    pub engine: Engine,
    pub dir: PathBuf,
    pub compaction: CompactionConfig,
    pub tools: ToolRegistry,
    pub retry_cap: Option<u32>,
    /// The approval policy: `AllowAll` unless a test is about approval (the tests of the
    /// other parts of the loop run tools without asking).
    pub approval: ApprovalPolicy,
}

impl Harness {
    /// A harness whose model answers with `script`; compaction off unless a test turns it on.
    /// Its engine has the factories a host registers for the hooks the model registers:
    /// `bash`, and `llm` asking the same scripted model.
    pub fn new(script: impl IntoIterator<Item = Reply>) -> Self {
        let server = server(script);
        let engine = Engine::builder()
            .factory(Arc::new(hook_bash::BashFactory::default()))
            .factory(Arc::new(hook_llm::LlmFactory::new(client_of(&server))))
            .build();
        Harness {
            server,
            engine,
            dir: temp_dir("session"),
            compaction: CompactionConfig { micro: false, ..CompactionConfig::default() },
            tools: ToolRegistry::with_builtins(),
            retry_cap: None,
            approval: ApprovalPolicy::AllowAll,
        }
    }

    pub fn client(&self) -> Arc<OpenAiClient> {
        client_of(&self.server)
    }

    pub fn agent(&self) -> Agent {
        let mut builder = Agent::builder()
            .model(self.client())
            .engine(self.engine.clone())
            .tools(self.tools.clone())
            .system_prompt("You are a test agent.")
            .compaction(self.compaction.clone())
            .approval(self.approval.clone());
        if let Some(cap) = self.retry_cap {
            builder = builder.retry_feedback_cap(cap);
        }
        builder.build().expect("agent")
    }

    pub async fn session(&self) -> Session {
        self.agent().session(SessionConfig::new("s1", &self.dir)).await
    }

    /// Registers `hook` as `name` (user level) on `events`.
    pub fn hook(&self, name: &str, events: impl IntoIterator<Item = Event>, hook: Arc<dyn Hook>) {
        let ids = self.engine.register(Registration::new(name, Level::User, events, hook));
        assert!(!ids.is_empty(), "registration of {name} refused");
    }

    /// The bodies of the model requests received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.server.requests()
    }

    /// The messages of model request `idx`.
    pub fn messages(&self, idx: usize) -> Vec<Value> {
        self.requests()[idx]["messages"].as_array().cloned().unwrap_or_default()
    }

    /// The names of the tools offered in model request `idx`.
    pub fn tool_names(&self, idx: usize) -> Vec<String> {
        self.requests()[idx]["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// The content of the tool message answering `call_id` in request `idx`.
    pub fn tool_message(&self, idx: usize, call_id: &str) -> String {
        self.messages(idx)
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
            .and_then(|m| m["content"].as_str().map(str::to_owned))
            .unwrap_or_else(|| panic!("no tool message for {call_id} in request {idx}"))
    }
}

/// Contexts seen by a hook, by event.
#[derive(Debug, Clone, Default)]
pub struct Seen(pub Arc<Mutex<Vec<(Event, Context)>>>);

impl Seen {
    pub fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap().iter().map(|(e, _)| *e).collect()
    }

    pub fn contexts(&self, event: Event) -> Vec<Context> {
        self.0.lock().unwrap().iter().filter(|(e, _)| *e == event).map(|(_, c)| c.clone()).collect()
    }
}

/// A hook that records every context it sees and changes nothing.
pub fn recorder() -> (Arc<dyn Hook>, Seen) {
    let seen = Seen::default();
    let sink = seen.clone();
    let hook = hook_fn("recorder", move |input: &HookInput<'_>| {
        sink.0.lock().unwrap().push((input.event, input.context.clone()));
        async { Ok(HookOutput::default()) }
    });
    (hook, seen)
}

/// A hook that returns `output` every time.
pub fn returning(output: HookOutput) -> Arc<dyn Hook> {
    hook_fn("fixed", move |_input: &HookInput<'_>| {
        let output = output.clone();
        async move { Ok::<_, HookError>(output) }
    })
}

/// An output with `action` and `reason`.
pub fn action(action: Action, reason: Option<&str>) -> HookOutput {
    HookOutput { action: Some(action), reason: reason.map(str::to_owned), ..HookOutput::default() }
}

/// An output answering the tool call with `result`.
pub fn respond(result: ToolResult) -> HookOutput {
    HookOutput { action: Some(Action::Respond), respond: Some(result), ..HookOutput::default() }
}

/// Records observer notifications.
#[derive(Debug, Clone, Default)]
pub struct ObserverLog(pub Arc<Mutex<Vec<ObserverEvent>>>);

#[async_trait]
impl Observer for ObserverLog {
    async fn observe(&self, event: &ObserverEvent) -> Result<(), HookError> {
        self.0.lock().unwrap().push(event.clone());
        Ok(())
    }
}

impl ObserverLog {
    /// Registers an observer of every kind on `engine`.
    pub fn attach(engine: &Engine) -> Self {
        let log = ObserverLog::default();
        let (noop, _) = recorder();
        engine.register(
            Registration::new("observer", Level::User, [], noop).observer(Arc::new(log.clone()), vec!["*".into()]),
        );
        log
    }

    /// The kinds received, waiting (up to 2 s) until at least `n` arrived.
    pub async fn kinds(&self, n: usize) -> Vec<String> {
        let until = Instant::now() + Duration::from_secs(2);
        while self.0.lock().unwrap().len() < n && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        self.0.lock().unwrap().iter().map(|e| e.kind.clone()).collect()
    }

    pub fn of_kind(&self, kind: &str) -> Vec<ObserverEvent> {
        self.0.lock().unwrap().iter().filter(|e| e.kind == kind).cloned().collect()
    }
}
