//! hook-bash
