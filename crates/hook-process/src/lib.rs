//! hook-process
