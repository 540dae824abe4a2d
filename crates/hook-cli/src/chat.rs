//! `hookwire chat`: an agent with hooks, over an OpenAI-compatible model: a REPL, or one turn
//! with `-p`.

use std::{path::PathBuf, sync::Arc};

use agent_loop::{Agent, SessionConfig, ToolRegistry};
use clap::Args;

use crate::{ConfigArgs, engine, session};

#[derive(Debug, Args)]
pub(crate) struct ChatArgs {
    /// Run one turn with this message and exit.
    #[arg(short = 'p', long = "prompt", value_name = "PROMPT")]
    prompt: Option<String>,
    /// The model (default `HOOKWIRE_MODEL`).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// OpenAI-compatible base URL (default `OPENAI_BASE_URL`); the key is `OPENAI_API_KEY`.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    #[command(flatten)]
    config: ConfigArgs,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// Show every event, also those no hook took part in.
    #[arg(long)]
    all_events: bool,
}

pub(crate) async fn run(args: ChatArgs) -> u8 {
    let (engine, model) = match engine::start(&args.config, args.base_url.as_deref(), args.model.as_deref()).await {
        Ok(started) => started,
        Err(code) => return code,
    };
    let agent = match Agent::builder()
        .model(model)
        .engine(engine.clone())
        .tools(ToolRegistry::with_builtins())
        .system_prompt("You are a helpful assistant. Use the tools when they help.")
        .build()
    {
        Ok(agent) => Arc::new(agent),
        Err(e) => {
            eprintln!("error: {e}");
            engine.shutdown().await;
            return 2;
        }
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let session_id = format!("chat-{}", std::process::id());
    let mut session = agent.session(SessionConfig::new(session_id, cwd)).await;
    session::watch(&mut session, args.all_events, args.audit.clone());
    if let Some(started) = session.start_event().filter(|s| args.all_events || !s.hooks.is_empty()) {
        session::show(started);
    }
    let mut code = 0;
    let turn = async |session: &mut agent_loop::Session, message: String| match session.send(message).await {
        Ok(report) => {
            outln!("assistant: {}", report.reply);
            0
        }
        Err(e) => {
            outln!("turn failed: {e}");
            1
        }
    };
    match args.prompt {
        Some(prompt) => code = turn(&mut session, prompt).await,
        None => {
            eprintln!("hookwire chat: type a message, or an empty line / Ctrl-D to leave");
            // Read on a blocking thread, so Ctrl-C is noticed while waiting for a line.
            while let Ok(Some(line)) = tokio::task::spawn_blocking(|| std::io::stdin().lines().next()?.ok()).await {
                if line.trim().is_empty() {
                    break;
                }
                turn(&mut session, line).await;
            }
        }
    }
    session.close().await;
    engine.shutdown().await;
    code
}
