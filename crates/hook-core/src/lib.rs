//! hook-core
