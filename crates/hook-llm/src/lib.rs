//! hook-llm
