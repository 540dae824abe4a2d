//! Applying a hook's sandbox (hook-sandbox) to the shell or program it starts, with the
//! messages both kinds of command hook give.

use std::{
    path::Path,
    sync::atomic::{AtomicBool, Ordering},
};

use hook_protocol::config::SandboxPolicy;
use hook_sandbox::{Places, confine, scratch_dir};
use tokio::process::Command;

/// Confines `command` by `policy` (nothing when `None`). `project` is the directory the hook
/// runs in; `program` what it starts. A `best-effort` sandbox the kernel cannot fully enforce
/// is logged as a warning once per hook (`warned`). An error is the message to report.
pub(crate) fn apply(
    command: &mut Command,
    policy: Option<&SandboxPolicy>,
    name: &str,
    project: Option<&Path>,
    program: &Path,
    warned: &AtomicBool,
) -> Result<(), String> {
    let Some(policy) = policy else { return Ok(()) };
    let places = Places {
        project: project.map(Path::to_path_buf).or_else(|| std::env::current_dir().ok()),
        scratch: scratch_dir(name),
        program: Some(program.to_path_buf()),
    };
    match confine(command.as_std_mut(), policy, &places, name) {
        Ok(Some(applied)) if !applied.missing.is_empty() => {
            if !warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    hook = %name,
                    abi = applied.abi,
                    missing = %applied.missing.join(", "),
                    "hook runs with `sandbox: best-effort`, and this kernel does not enforce all of it"
                );
            }
            Ok(())
        }
        Ok(applied) => {
            tracing::trace!(hook = %name, abi = applied.map(|a| a.abi), "hook sandboxed");
            Ok(())
        }
        Err(error) => Err(error.to_string()),
    }
}
