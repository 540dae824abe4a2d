//! The agent: a chat model, a hook engine, tools and settings shared by every session.

use std::{fmt, sync::Arc, time::Duration};

use hook_core::Engine;
use hook_llm::ChatModel;
use serde_json::{Map, Value};

use crate::{AgentBuildError, ApprovalPolicy, CompactionConfig, ToolRegistry};

/// Default limit of model calls per turn.
pub const DEFAULT_MAX_ROUNDS: u32 = 50;

/// Default limit of `retry_feedback` rounds per turn (docs/design.md, "Decisions").
pub const DEFAULT_RETRY_FEEDBACK_CAP: u32 = 3;

pub(crate) struct AgentInner {
    pub(crate) id: String,
    pub(crate) model: Arc<dyn ChatModel>,
    pub(crate) engine: Engine,
    pub(crate) tools: ToolRegistry,
    pub(crate) system_prompt: String,
    pub(crate) max_rounds: u32,
    pub(crate) retry_feedback_cap: u32,
    pub(crate) compaction: CompactionConfig,
    pub(crate) options: Map<String, Value>,
    pub(crate) model_timeout: Option<Duration>,
    pub(crate) approval: ApprovalPolicy,
    pub(crate) is_streaming: bool,
}

/// A reference agent: runs sessions whose turns fire every hookwire event. Cheap to clone.
#[derive(Clone)]
pub struct Agent {
    pub(crate) inner: Arc<AgentInner>,
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &self.inner;
        f.debug_struct("Agent")
            .field("id", &inner.id)
            .field("model", &inner.model.model_name())
            .field("tools", &inner.tools.names().collect::<Vec<_>>())
            .field("max_rounds", &inner.max_rounds)
            .field("retry_feedback_cap", &inner.retry_feedback_cap)
            .field("compaction", &inner.compaction)
            .field("approval", &inner.approval)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// Starts building an agent.
    pub fn builder() -> AgentBuilder {
        AgentBuilder::default()
    }

    /// The agent's id (`AgentID` in hook metadata; turns are `<id>-turn-<n>`).
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The hook engine.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The chat model.
    pub fn model(&self) -> &Arc<dyn ChatModel> {
        &self.inner.model
    }

    /// The tools offered to the model.
    pub fn tools(&self) -> &ToolRegistry {
        &self.inner.tools
    }

    /// Who approves tool calls with side effects when no hook decided.
    pub fn approval(&self) -> &ApprovalPolicy {
        &self.inner.approval
    }
}

/// Builds an [`Agent`].
#[derive(Default)]
pub struct AgentBuilder {
    id: Option<String>,
    model: Option<Arc<dyn ChatModel>>,
    engine: Option<Engine>,
    tools: Option<ToolRegistry>,
    system_prompt: Option<String>,
    max_rounds: Option<u32>,
    retry_feedback_cap: Option<u32>,
    compaction: Option<CompactionConfig>,
    options: Map<String, Value>,
    model_timeout: Option<Duration>,
    approval: Option<ApprovalPolicy>,
    is_streaming: bool,
}

impl fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder").field("id", &self.id).finish_non_exhaustive()
    }
}

impl AgentBuilder {
    /// The agent's id (default `agent`).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The chat model (required).
    pub fn model(mut self, model: Arc<dyn ChatModel>) -> Self {
        self.model = Some(model);
        self
    }

    /// The hook engine (default: an engine with no hooks and no factories).
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = Some(engine);
        self
    }

    /// The tools (default: [`ToolRegistry::with_builtins`]).
    pub fn tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = Some(tools);
        self
    }

    /// The system prompt (default: a short generic one).
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Model calls per turn at most (default 50).
    pub fn max_rounds(mut self, max_rounds: u32) -> Self {
        self.max_rounds = Some(max_rounds);
        self
    }

    /// Extra rounds `retry_feedback` may ask for per turn (default 3).
    pub fn retry_feedback_cap(mut self, cap: u32) -> Self {
        self.retry_feedback_cap = Some(cap);
        self
    }

    /// Compaction settings (default: micro on, auto off).
    pub fn compaction(mut self, compaction: CompactionConfig) -> Self {
        self.compaction = Some(compaction);
        self
    }

    /// A model parameter sent with every request (`temperature`, `max_tokens`, ...).
    pub fn option(mut self, key: impl Into<String>, value: Value) -> Self {
        self.options.insert(key.into(), value);
        self
    }

    /// How long one model call may take (default: no limit beyond the client's).
    pub fn model_timeout(mut self, timeout: Duration) -> Self {
        self.model_timeout = Some(timeout);
        self
    }

    /// Who approves a tool call with side effects when no hook decided (default
    /// [`ApprovalPolicy::default`]: ask, and deny when no one can answer). See
    /// [`crate::approval`] for the whole order.
    pub fn approval(mut self, policy: ApprovalPolicy) -> Self {
        self.approval = Some(policy);
        self
    }

    /// Ask the model for streamed answers ([`ChatModel::complete_streaming`]) and report the
    /// text as it arrives ([`crate::TurnEvent::AssistantDelta`]); default off (one
    /// [`ChatModel::complete`] per round).
    pub fn streaming(mut self, is_streaming: bool) -> Self {
        self.is_streaming = is_streaming;
        self
    }

    /// The agent.
    pub fn build(self) -> Result<Agent, AgentBuildError> {
        let model = self.model.ok_or(AgentBuildError::MissingModel)?;
        let max_rounds = self.max_rounds.unwrap_or(crate::agent::DEFAULT_MAX_ROUNDS);
        if max_rounds == 0 {
            return Err(AgentBuildError::ZeroRounds);
        }
        Ok(Agent {
            inner: Arc::new(AgentInner {
                id: self.id.unwrap_or_else(|| "agent".to_owned()),
                model,
                engine: self.engine.unwrap_or_default(),
                tools: self.tools.unwrap_or_else(ToolRegistry::with_builtins),
                system_prompt: self.system_prompt.unwrap_or_else(|| {
                    "You are a helpful coding agent. Use the tools to inspect and change files in the working directory."
                        .to_owned()
                }),
                max_rounds,
                retry_feedback_cap: self.retry_feedback_cap.unwrap_or(DEFAULT_RETRY_FEEDBACK_CAP),
                compaction: self.compaction.unwrap_or_default(),
                options: self.options,
                model_timeout: self.model_timeout,
                approval: self.approval.unwrap_or_default(),
                is_streaming: self.is_streaming,
            }),
        })
    }
}
