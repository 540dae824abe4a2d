//! Why a turn, or building an agent, failed.

use hook_llm::ModelError;
use hook_protocol::Event;

/// Why a turn ended without an answer. The partial report stays available through
/// [`crate::Session::last_report`].
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TurnError {
    /// A hook returned `abort_turn`; its reason is kept.
    #[error("a hook aborted the turn on {event}: {reason}")]
    Aborted {
        /// Where.
        event: Event,
        /// The hook's reason (`hook requested turn abort` when it gave none).
        reason: String,
    },
    /// A hook returned `hard_abort`: the turn ended and its history was rolled back.
    #[error("a hook hard-aborted the turn on {event}: {reason}; the turn's messages were rolled back")]
    HardAborted {
        /// Where.
        event: Event,
        /// The hook's reason.
        reason: String,
    },
    /// A hook returned `stop` where it ends the turn (`pre_llm_request`, `pre_tool_execution`,
    /// `post_llm_response` or `stop` without feedback), or a hook failed with `on_error: stop`.
    #[error("a hook stopped the turn on {event}{}", reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default())]
    Stopped {
        /// Where.
        event: Event,
        /// The hook's reason, if any.
        reason: Option<String>,
    },
    /// The caller hard-cancelled the turn; its history was rolled back.
    #[error("the turn was cancelled by the caller; its messages were rolled back")]
    Cancelled,
    /// The model call failed.
    #[error("the model call of round {round} failed: {source}")]
    Model {
        /// The round.
        round: u32,
        /// The client's error.
        source: ModelError,
    },
    /// The turn used its rounds up without a final answer.
    #[error(
        "the turn made {max_rounds} model calls without a final answer; raise max_rounds or check hooks that keep asking for another round"
    )]
    MaxRounds {
        /// The limit.
        max_rounds: u32,
    },
    /// The session was closed.
    #[error("the session is closed; start a new one with Agent::session")]
    Closed,
}

/// Why an agent could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentBuildError {
    /// No chat model was given.
    #[error("an agent needs a chat model: call AgentBuilder::model (an OpenAiClient, or a ScriptedModel for tests)")]
    MissingModel,
    /// `max_rounds` was zero.
    #[error("max_rounds must be at least 1")]
    ZeroRounds,
}
