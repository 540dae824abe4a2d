//! agent-loop
