//! Guard rules: declarative, shell-aware hooks evaluated in-process — no child process, no
//! network — and the packs of rules compiled into hookwire (`packs: [recommended]`).
//!
//! A rules file (a hookwire configuration file with a top-level `rules:`, `packs:` or
//! `allow:`; its types are [`hook_protocol::rules`]) becomes one hook of kind `rules`, built
//! by [`RulesFactory`]. On each event its rules apply to (before a tool runs, by default) the
//! hook reads the tool call once: a shell call's script is split into the simple commands it
//! would run by hook-shell's [`hook_shell::invocations`] (wrappers such as `sudo`/`env`/
//! `timeout` unwrapped, `sh -c`, `eval`, `$(…)` and backquotes entered), each command's
//! program reduced to its basename (`/bin/rm`, `\rm`, `'rm'` are `rm`) and its flags
//! normalized (`-rf` = `-fr` = `-r -f` = `--recursive --force`); interpreter one-liners
//! (`python -c "os.system('…')"`) give the commands they hand to a shell. File tools give their
//! normalized absolute paths and the text they write; fetch tools their URL.
//!
//! The strongest decision wins: `deny` > `ask` > `context`; an `allow` rule (or an entry of
//! `allow:`) matching the same command cancels the file's denials of it. A denial refuses the
//! tool call with the rule's reason, naming the rule (`git/reset-hard`) and its safer
//! alternative; `ask` asks the person where the event supports it and denies elsewhere. A
//! `shadow` rule decides nothing and logs what it would have decided. A command whose program
//! cannot be known before it runs (`$X -rf /`, `curl … | sh`) follows the rules'
//! `undetermined:` policy (default: ask).
//!
//! ```
//! use hook_protocol::{Event, rules::{PackName, RulesFile}};
//! use hook_rules::{Call, RuleSet};
//! use std::path::Path;
//!
//! let file = RulesFile { packs: vec![PackName::Recommended], ..RulesFile::default() };
//! let rules = RuleSet::compile(&file).unwrap();
//! let call = |command| Call {
//!     event: Event::PreToolExecution, tool: Some("Bash"), command: Some(command),
//!     paths: vec![], content: None, url: None, cwd: Path::new("/p"), home: Some(Path::new("/home/u")), input: None,
//! };
//! assert!(rules.evaluate(&call("sudo rm -rf ~")).decision.is_some());
//! assert!(rules.evaluate(&call("echo 'rm -rf ~'")).decision.is_none());
//! ```

mod command;
pub mod explain;
mod glob;
mod hook;
pub mod packs;
mod rules;
pub mod when;

pub use command::{SimpleCommand, normalize_path, simple_commands};
pub use hook::{RulesFactory, RulesHook, call_of, output_of};
pub use rules::{Call, CompiledRule, Hit, Origin, RuleError, RuleSet, Verdict};
