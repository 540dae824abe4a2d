//! Shared pieces of hookwire's fuzz targets (see `docs/fuzzing.md`).
//!
//! Each target in `fuzz_targets/` is a plain `fn fuzz(data: &[u8])` closed by [`target!`]:
//! under `cargo fuzz` (`--cfg fuzzing`) that is libFuzzer's entry point; on any other build it
//! is a `main` that replays files and folders of inputs ([`replay`]), so the targets compile and
//! their seed corpora run on the stable toolchain.

use std::{
    panic::{self, AssertUnwindSafe},
    path::{Path, PathBuf},
    process::ExitCode,
    sync::{Mutex, OnceLock},
    time::Instant,
};

use hook_protocol::{
    Agent, Context, Event,
    serde_json::{self, Value},
};
use serde::Serialize;

/// Ends a fuzz target file: libFuzzer's entry point under `cargo fuzz`, a seed replay `main`
/// otherwise. The file must start with `#![cfg_attr(fuzzing, no_main)]`.
#[macro_export]
macro_rules! target {
    ($fuzz:path) => {
        #[cfg(fuzzing)]
        libfuzzer_sys::fuzz_target!(|data: &[u8]| $fuzz(data));

        #[cfg(not(fuzzing))]
        fn main() -> std::process::ExitCode {
            $crate::replay(env!("CARGO_BIN_NAME"), $fuzz)
        }
    };
}

/// Runs `fuzz` on every file named on the command line (a folder: each file in it), or on
/// `fuzz/corpus/<target>/` when none is named; arguments starting with `-` (libFuzzer's
/// options) are ignored. Each input is also run cut short at a few lengths. Returns failure, and
/// names the file, at the first panic.
pub fn replay(target: &str, fuzz: fn(&[u8])) -> ExitCode {
    let mut roots: Vec<PathBuf> =
        std::env::args_os().skip(1).filter(|a| !a.to_string_lossy().starts_with('-')).map(PathBuf::from).collect();
    if roots.is_empty() {
        roots.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target));
    }
    let mut files = Vec::new();
    for root in &roots {
        if let Err(e) = collect(root, &mut files) {
            eprintln!("{target}: cannot read {}: {e}", root.display());
            return ExitCode::FAILURE;
        }
    }
    files.sort();
    let start = Instant::now();
    let mut runs = 0usize;
    for file in &files {
        let data = match std::fs::read(file) {
            Ok(data) => data,
            Err(e) => {
                eprintln!("{target}: cannot read {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
        };
        let mut lengths: Vec<usize> = (0..8).map(|i| data.len() * i / 8).collect();
        lengths.push(data.len());
        lengths.dedup();
        for len in lengths {
            runs += 1;
            if panic::catch_unwind(AssertUnwindSafe(|| fuzz(&data[..len]))).is_err() {
                remove_scratch();
                eprintln!("{target}: PANIC on {} (first {len} of {} bytes)", file.display(), data.len());
                return ExitCode::FAILURE;
            }
        }
    }
    remove_scratch();
    eprintln!("{target}: {} seeds, {runs} runs, no panic ({:.2?})", files.len(), start.elapsed());
    ExitCode::SUCCESS
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        for entry in std::fs::read_dir(path)? {
            collect(&entry?.path(), files)?;
        }
    } else {
        files.push(path.to_owned());
    }
    Ok(())
}

/// The input as text (lossy: parsers take `&str`).
pub fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// Splits off the first byte, to choose among variants, and the rest as text.
pub fn split_choice(data: &[u8]) -> (u8, String) {
    match data.split_first() {
        Some((first, rest)) => (*first, text(rest)),
        None => (0, String::new()),
    }
}

/// One of the agents, chosen by a byte.
pub fn agent(byte: u8) -> Agent {
    Agent::ALL[usize::from(byte) % Agent::ALL.len()]
}

/// One of the events, chosen by a byte.
pub fn event(byte: u8) -> Event {
    Event::ALL[usize::from(byte) % Event::ALL.len()]
}

/// Whether a JSON value holds a floating-point number anywhere. serde_json (without its
/// `float_roundtrip` feature) may move a float by one ulp when it reads back what it wrote, so
/// round trips are asserted only on values without one.
pub fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64(),
        Value::Array(items) => items.iter().any(has_float),
        Value::Object(members) => members.values().any(has_float),
        _ => false,
    }
}

/// The round-trip property: `value`, written as JSON and read back with `read`, equals itself
/// (after `normalize`, for members that are not written). Skipped when the JSON holds a float.
pub fn assert_json_round_trip<T, E>(value: &T, read: impl Fn(&str) -> Result<T, E>, normalize: impl Fn(&mut T))
where
    T: Serialize + Clone + PartialEq + std::fmt::Debug,
    E: std::fmt::Display,
{
    let json = serde_json::to_value(value).expect("a parsed value serializes");
    if has_float(&json) {
        return;
    }
    let written = json.to_string();
    let mut again = match read(&written) {
        Ok(again) => again,
        Err(e) => panic!("what was written does not read back: {e}\n{written}"),
    };
    let mut first = value.clone();
    normalize(&mut first);
    normalize(&mut again);
    assert_eq!(first, again, "round trip changed the value\n{written}");
}

/// Folders made by [`scratch_dir`], removed when a replay ends.
static SCRATCH: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A fresh folder of this process's own under the temporary folder, named after `name` (a
/// replay removes it when it ends; a fuzzing run, which is stopped, leaves it).
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hookwire-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("make a temporary folder");
    SCRATCH.lock().unwrap_or_else(|e| e.into_inner()).push(dir.clone());
    dir
}

fn remove_scratch() {
    for dir in SCRATCH.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A context with the members hooks read most (a session, a working folder, a user message,
/// a tool call with its arguments and result), for targets that need one.
pub fn sample_context() -> &'static Context {
    static CONTEXT: OnceLock<Context> = OnceLock::new();
    CONTEXT.get_or_init(|| {
        hook_protocol::from_json_str(
            r#"{
                "session_id": "s-1",
                "cwd": "/work/project",
                "user_input": "list the files",
                "system_prompt": "be brief",
                "model": "gpt-4o-mini",
                "assistant_output": "done",
                "messages": [{"role": "user", "content": "list the files"}],
                "tool_name": "Bash",
                "tool_arguments": {"command": "ls -la", "description": "list"},
                "tool_call_id": "call_1",
                "tool_result": "a\nb",
                "tool_error": "exit 1"
            }"#,
        )
        .expect("the sample context parses")
    })
}

/// The context a target uses: none, or [`sample_context`], chosen by a byte.
pub fn context(byte: u8) -> Context {
    if byte & 0x80 == 0 { Context::default() } else { sample_context().clone() }
}
