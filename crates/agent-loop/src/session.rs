//! Sessions: history, working directory and session hooks; `session_start` / `session_end`;
//! saving and restoring (with re-approval of session hooks); cancelling and steering a turn.

use std::{
    collections::{BTreeSet, VecDeque},
    fmt,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use hook_core::Engine;
use hook_protocol::{ChatMessage, Context, Event, Meta};
use serde_json::Value;
use tokio::sync::watch;

use crate::{
    Agent, FiredEvent, MediaStore, TurnEvent, TurnReport,
    approval::Verdict,
    tools::{REGISTER_HOOK, SessionHookDef, SessionHooks, ToolContext},
    transcript::Transcript,
};

/// What a session starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionConfig {
    /// The session id (`session_id` in contexts, `SessionKey` in metadata).
    pub id: String,
    /// The working directory: file tools stay inside it, bash runs there, hooks see it as `cwd`.
    pub cwd: PathBuf,
    /// Where the transcript is written (JSON lines in Claude Code's shape, appended); hooks
    /// read it as `transcript_path`. `None`: no transcript.
    pub transcript_path: Option<PathBuf>,
}

impl SessionConfig {
    /// A session `id` working in `cwd`, without a transcript.
    pub fn new(id: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        SessionConfig { id: id.into(), cwd: cwd.into(), transcript_path: None }
    }

    /// Writes the transcript to `path` (see [`crate::transcript`]).
    pub fn transcript(mut self, path: impl Into<PathBuf>) -> Self {
        self.transcript_path = Some(path.into());
        self
    }
}

pub use hook_protocol::session::SessionState;

/// What restoring a session did with its hooks.
#[derive(Debug, Clone, PartialEq)]
pub struct RestoreReport {
    /// Hooks approved again and re-armed (their new names).
    pub rearmed: Vec<String>,
    /// Hooks dropped, with why (denied by approval, or no longer valid).
    pub dropped: Vec<(SessionHookDef, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Interrupt {
    #[default]
    None,
    Graceful,
    Hard,
}

/// Cancels or steers the running turn of a session from outside (another task, a signal
/// handler). Cheap to clone.
#[derive(Clone)]
pub struct CancelHandle {
    state: Arc<watch::Sender<Interrupt>>,
    steering: Arc<Mutex<VecDeque<String>>>,
}

impl fmt::Debug for CancelHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelHandle").field("state", &*self.state.borrow()).finish_non_exhaustive()
    }
}

impl Default for CancelHandle {
    fn default() -> Self {
        let (state, _) = watch::channel(Interrupt::None);
        CancelHandle { state: Arc::new(state), steering: Arc::default() }
    }
}

impl CancelHandle {
    /// Graceful cancel: the tool calls not yet started are skipped (`Skipped due to graceful
    /// interrupt.`) and the turn ends without another model call ([`crate::TurnStatus::Interrupted`]).
    pub fn cancel(&self) {
        self.state.send_if_modified(|state| {
            let is_new = *state == Interrupt::None;
            if is_new {
                *state = Interrupt::Graceful;
            }
            is_new
        });
    }

    /// Hard cancel: the turn stops at once (a running tool or hook is dropped, which kills its
    /// process) and its history is rolled back; `send` returns [`crate::TurnError::Cancelled`].
    pub fn abort(&self) {
        self.state.send_replace(Interrupt::Hard);
    }

    /// Queues a user message for the running turn: it goes in before the next model call, and
    /// tool calls not yet started in the current batch are skipped. Between turns it goes in
    /// before the next turn's first model call.
    pub fn steer(&self, message: impl Into<String>) {
        self.steering.lock().unwrap_or_else(|p| p.into_inner()).push_back(message.into());
    }

    pub(crate) fn begin_turn(&self) -> watch::Receiver<Interrupt> {
        self.state.send_replace(Interrupt::None);
        self.state.subscribe()
    }

    pub(crate) fn current(&self) -> Interrupt {
        *self.state.borrow()
    }

    pub(crate) fn has_steering(&self) -> bool {
        !self.steering.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
    }

    pub(crate) fn drain_steering(&self) -> Vec<String> {
        self.steering.lock().unwrap_or_else(|p| p.into_inner()).drain(..).collect()
    }
}

/// Resolves when a hard cancel is requested.
pub(crate) async fn hard_requested(rx: &mut watch::Receiver<Interrupt>) {
    if rx.wait_for(|state| *state == Interrupt::Hard).await.is_err() {
        // The sender lives as long as the session: this is never reached while a turn runs.
        std::future::pending::<()>().await;
    }
}

/// A listener for [`TurnEvent`]s.
pub type EventListener = Box<dyn Fn(&TurnEvent) + Send + Sync>;

/// One conversation with the agent.
pub struct Session {
    pub(crate) agent: Agent,
    pub(crate) id: String,
    pub(crate) cwd: PathBuf,
    pub(crate) history: Vec<ChatMessage>,
    pub(crate) media: MediaStore,
    pub(crate) hooks: SessionHooks,
    pub(crate) control: CancelHandle,
    pub(crate) listeners: Vec<EventListener>,
    pub(crate) n_turns: u64,
    pub(crate) last_report: Option<TurnReport>,
    pub(crate) started: Option<FiredEvent>,
    pub(crate) is_closed: bool,
    pub(crate) transcript: Option<Transcript>,
    pub(crate) transcript_path: Option<PathBuf>,
    /// A notice for the next turn (the session could not report it when it started).
    pub(crate) pending_notice: Option<String>,
    /// Tools the person answered "always" for.
    pub(crate) always_allowed: BTreeSet<String>,
    /// `startup`, or `resume` for a restored session (`source` of `session_start`).
    pub(crate) source: &'static str,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("cwd", &self.cwd)
            .field("n_messages", &self.history.len())
            .field("n_turns", &self.n_turns)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// Starts a session; fires `session_start` (awaited, bounded by the engine's deadlines).
    ///
    /// With a transcript path, the file is opened (created) first; when that fails the session
    /// runs without one and says so in a notice of its first turn.
    pub async fn session(&self, config: SessionConfig) -> Session {
        let mut session = Session::new(self, config.id, config.cwd, Vec::new(), 0);
        session.open_transcript(config.transcript_path);
        session.started = Some(session.fire_session_event(Event::SessionStart).await);
        session
    }
}

impl Session {
    fn open_transcript(&mut self, path: Option<PathBuf>) {
        let Some(path) = path else { return };
        match Transcript::open(&path, &self.id, &self.cwd) {
            Ok(transcript) => self.transcript = Some(transcript),
            Err(err) => {
                self.pending_notice = Some(format!("cannot write the transcript {}: {err}", path.display()));
            }
        }
        self.transcript_path = Some(path);
    }

    fn new(agent: &Agent, id: String, cwd: PathBuf, history: Vec<ChatMessage>, n_turns: u64) -> Self {
        let hooks = SessionHooks::new(agent.inner.engine.clone(), &id);
        Session {
            agent: agent.clone(),
            id,
            cwd,
            history,
            media: MediaStore::new(),
            hooks,
            control: CancelHandle::default(),
            listeners: Vec::new(),
            n_turns,
            last_report: None,
            started: None,
            is_closed: false,
            transcript: None,
            transcript_path: None,
            pending_notice: None,
            always_allowed: BTreeSet::new(),
            source: "startup",
        }
    }

    /// Restores a saved session: fires `session_start` (`source: resume`), then asks for each
    /// saved session hook again: `approve_tool` (tool `register_hook`, the registration as
    /// arguments), then the agent's [`crate::ApprovalPolicy`] as for any call of
    /// `register_hook`. Approved hooks are re-armed, the others dropped.
    pub async fn restore(agent: &Agent, state: SessionState) -> (Session, RestoreReport) {
        Session::restore_with(agent, state, None).await
    }

    /// [`Session::restore`], appending to the transcript at `transcript_path`.
    pub async fn restore_with(
        agent: &Agent,
        state: SessionState,
        transcript_path: Option<PathBuf>,
    ) -> (Session, RestoreReport) {
        let mut session = Session::new(agent, state.id, state.cwd, state.history, state.n_turns);
        session.source = "resume";
        session.open_transcript(transcript_path);
        session.started = Some(session.fire_session_event(Event::SessionStart).await);
        let mut report = RestoreReport { rearmed: Vec::new(), dropped: Vec::new() };
        for def in state.hooks {
            let arguments = def.to_arguments().to_string();
            let mut context = session.base_context(None, "session.restore.approve");
            context.tool_name = Some(REGISTER_HOOK.to_owned());
            context.tool_arguments = Some(arguments.clone());
            let outcome = agent.inner.engine.fire(Event::ApproveTool, &mut context).await;
            if outcome.decision != hook_core::Decision::Approved {
                let reason = outcome.reason.unwrap_or_else(|| "denied by approval hook".to_owned());
                report.dropped.push((def, reason));
                continue;
            }
            if let Verdict::Refuse(reason, _) = session.decide(REGISTER_HOOK, &arguments, None, None, &outcome).await {
                report.dropped.push((def, reason));
                continue;
            }
            match session.hooks.register(def.clone()).await {
                Ok(name) => report.rearmed.push(name),
                Err(err) => report.dropped.push((def, err)),
            }
        }
        (session, report)
    }

    /// The `session_start` event this session began with (fired before any listener could be
    /// added).
    pub fn start_event(&self) -> Option<&FiredEvent> {
        self.started.as_ref()
    }

    /// What to save to restore this session later.
    pub fn state(&self) -> SessionState {
        SessionState {
            id: self.id.clone(),
            cwd: self.cwd.clone(),
            history: self.history.clone(),
            hooks: self.hooks.list().into_iter().map(|(_, def)| def).collect(),
            n_turns: self.n_turns,
        }
    }

    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The working directory.
    pub fn cwd(&self) -> &std::path::Path {
        &self.cwd
    }

    /// The transcript file, when the session writes one.
    pub fn transcript_path(&self) -> Option<&Path> {
        self.transcript_path.as_deref()
    }

    /// The conversation so far (no system message).
    pub fn history(&self) -> &[ChatMessage] {
        &self.history
    }

    /// The session's media store (tools put files there; `media://` references resolve there).
    pub fn media(&self) -> &MediaStore {
        &self.media
    }

    /// The agent.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// The handle that cancels or steers this session's turns from outside.
    pub fn cancel_handle(&self) -> CancelHandle {
        self.control.clone()
    }

    /// Queues a steering message (see [`CancelHandle::steer`]).
    pub fn steer(&self, message: impl Into<String>) {
        self.control.steer(message);
    }

    /// Calls `listener` with every [`TurnEvent`] as it happens.
    pub fn on_event(&mut self, listener: EventListener) {
        self.listeners.push(listener);
    }

    /// A channel receiving every [`TurnEvent`] as it happens (an [`on_event`](Self::on_event)
    /// listener that forwards; events sent after the receiver is dropped are discarded).
    pub fn subscribe(&mut self) -> tokio::sync::mpsc::UnboundedReceiver<TurnEvent> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        self.on_event(Box::new(move |event| {
            let _ = tx.send(event.clone());
        }));
        rx
    }

    /// The report of the last turn, also when it failed (what happened up to the failure).
    pub fn last_report(&self) -> Option<&TurnReport> {
        self.last_report.as_ref()
    }

    /// Names of the hooks the model registered in this session, with their definitions.
    pub fn session_hooks(&self) -> Vec<(String, SessionHookDef)> {
        self.hooks.list()
    }

    /// Ends the session: fires `session_end` (awaited, bounded by the engine's deadlines) and
    /// removes the session's hooks.
    pub async fn close(mut self) -> FiredEvent {
        let fired = self.fire_session_event(Event::SessionEnd).await;
        self.hooks.clear();
        self.is_closed = true;
        fired
    }

    /// The context every event starts from: session, directory, metadata, and what hooks of the
    /// Claude Code family read besides (`transcript_path`, `permission_mode`).
    pub(crate) fn base_context(&self, turn: Option<(&str, u32)>, trace_path: &str) -> Context {
        let mut extra = serde_json::Map::new();
        if let Some(path) = &self.transcript_path {
            extra.insert("transcript_path".into(), Value::String(path.to_string_lossy().into_owned()));
        }
        extra.insert("permission_mode".into(), Value::String("default".into()));
        Context {
            session_id: Some(self.id.clone()),
            cwd: Some(self.cwd.to_string_lossy().into_owned()),
            meta: Some(self.meta(turn, trace_path)),
            extra,
            ..Context::default()
        }
    }

    /// Adds `message` to the conversation, writing its transcript line first.
    pub(crate) fn record(&mut self, message: ChatMessage) {
        self.record_with(message, false, None);
    }

    /// [`Session::record`] for a tool message: whether it failed, and its structured response.
    pub(crate) fn record_with(&mut self, message: ChatMessage, is_error: bool, response: Option<&Value>) {
        if let Some(transcript) = &mut self.transcript
            && let Err(err) = transcript.append(&message, is_error, response)
        {
            let text = format!("cannot write the transcript {}: {err}; it stops here", transcript.path().display());
            self.transcript = None;
            self.emit(&TurnEvent::Notice(text));
        }
        self.history.push(message);
    }

    pub(crate) fn meta(&self, turn: Option<(&str, u32)>, trace_path: &str) -> Meta {
        Meta {
            agent_id: Some(self.agent.inner.id.clone()),
            turn_id: turn.map(|(id, _)| id.to_owned()),
            parent_turn_id: None,
            session_key: Some(self.id.clone()),
            iteration: turn.map(|(_, round)| u64::from(round)),
            trace_path: Some(trace_path.to_owned()),
            source: Some(if turn.is_some() { "runTurn" } else { "session" }.to_owned()),
        }
    }

    pub(crate) fn tool_context(&self) -> ToolContext {
        ToolContext {
            cwd: self.cwd.clone(),
            session_id: self.id.clone(),
            media: self.media.clone(),
            session_hooks: Some(self.hooks.clone()),
        }
    }

    pub(crate) fn engine(&self) -> &Engine {
        &self.agent.inner.engine
    }

    pub(crate) fn emit(&self, event: &TurnEvent) {
        for listener in &self.listeners {
            listener(event);
        }
    }

    async fn fire_session_event(&self, event: Event) -> FiredEvent {
        let engine = self.engine();
        let path = if event == Event::SessionStart { "session.start" } else { "session.end" };
        let outcome = if engine.has_hooks_for(event) {
            let mut context = self.base_context(None, path);
            context.messages = Some(self.history.clone());
            context.model = Some(self.agent.inner.model.model_name().to_owned());
            if event == Event::SessionStart {
                context.extra.insert("source".into(), Value::String(self.source.into()));
            } else {
                context.extra.insert("reason".into(), Value::String("other".into()));
            }
            engine.fire(event, &mut context).await
        } else {
            hook_core::FireOutcome::empty(event)
        };
        let fired = FiredEvent {
            event,
            round: 0,
            tool_name: None,
            decision: outcome.decision,
            reason: outcome.reason,
            changed: outcome.changed,
            effects: outcome.effects.clone(),
            hooks: outcome.trace.clone(),
        };
        self.emit(&TurnEvent::Fired(fired.clone()));
        for notice in outcome.effects.system_messages {
            self.emit(&TurnEvent::Notice(notice));
        }
        fired
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Session hooks belong to this session only; a session dropped without `close` must
        // not leave them running for other sessions of the agent.
        if !self.is_closed {
            self.hooks.clear();
        }
    }
}
