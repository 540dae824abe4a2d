//! Bash and llm rows: a bash hook through the Engine against `sh -c` spawned by hand
//! (std::process) with the same stdin, and an llm hook through the Engine against a bare
//! reqwest POST of the same body, both to a local ScriptedServer.
//!
//! The bare sides serialize their input (from a JSON value they already hold) and parse the
//! reply, as any host must.

use std::{
    io::Write,
    process::{Command, Stdio},
    sync::Arc,
    time::{Duration, Instant},
};

use hook_bash::{BashHook, BashOptions};
use hook_core::{Context, Engine, Event, FireOutcome, HookInput, Level, Registration, SerializedCache};
use hook_llm::{LlmHook, OpenAiClient, OpenAiConfig, Reply, ScriptedServer};
use serde_json::Value;

use crate::{
    Error, Plan,
    report::{Row, Target, fmt_time, median, since},
};

const SCRIPT: &str = "cat >/dev/null; echo '{}'";

fn check(outcome: &FireOutcome, what: &str) -> Result<(), Error> {
    match outcome.trace.first() {
        None => Err(format!("{what}: the hook did not run").into()),
        Some(entry) => match &entry.error {
            Some(error) => Err(format!("{what}: the hook failed: {error}").into()),
            None => Ok(()),
        },
    }
}

/// `sh -c SCRIPT` with `payload` on stdin; the parsed stdout.
fn bare_sh(payload: &[u8]) -> Result<Value, Error> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    stdin.write_all(payload)?;
    drop(stdin);
    let output = child.wait_with_output()?;
    Ok(serde_json::from_slice(&output.stdout)?)
}

pub(crate) async fn bash_rows(plan: &Plan) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    for (label, size, pairs, target) in [("1 KiB", 1usize << 10, (1000, 40), 1.05), ("1 MiB", 1 << 20, (400, 20), 1.3)]
    {
        let engine = Engine::default();
        let hook = Arc::new(BashHook::new(SCRIPT, BashOptions { name: "bench".into(), ..BashOptions::default() }));
        engine.register(Registration::new("bench", Level::User, [Event::PreSendMessage], hook));
        let mut context = Context { user_input: Some("x".repeat(size.saturating_sub(64))), ..Context::default() };
        // The bare side's stdin: the same HookContext JSON the hook gets, held as a value.
        let cache = SerializedCache::default();
        let json = HookInput::new(Event::PreSendMessage, &context, Instant::now(), 1, &cache).hook_context_json();
        let value: Value = serde_json::from_slice(&json)?;
        let name = format!("bash hook `{SCRIPT}`, {label} context, through the Engine vs bare `sh -c` (std::process)");
        check(&engine.fire(Event::PreSendMessage, &mut context).await, &name)?;
        bare_sh(&serde_json::to_vec(&value)?)?;
        let mut failures = 0usize;
        let mut bare_error: Option<Error> = None;
        let times = crate::alternate!(
            plan.pick(5, 2),
            plan.pick(pairs.0, pairs.1),
            {
                let started = Instant::now();
                let outcome = engine.fire(Event::PreSendMessage, &mut context).await;
                let took = since(started);
                if outcome.trace.iter().any(|t| t.error.is_some()) {
                    failures += 1;
                }
                took
            },
            {
                let started = Instant::now();
                let result = serde_json::to_vec(&value).map_err(Error::from).and_then(|payload| bare_sh(&payload));
                let took = since(started);
                if let Err(e) = result {
                    bare_error.get_or_insert(e);
                }
                took
            },
        );
        if let Some(e) = bare_error {
            return Err(e);
        }
        if failures > 0 {
            return Err(format!("{name}: {failures} fires failed").into());
        }
        rows.push(Row::new(name, times, Target::RatioAtMost(target)));
    }
    Ok(rows)
}

/// How many bash hooks the chained row runs on one event.
const CHAIN: usize = 5;

/// [`CHAIN`] bash hooks on one event (`pre_send_message`, whose hooks run one after another)
/// through the Engine, against one bare `sh -c` with the same stdin (the target: at most
/// 5.25 times one bare spawn; j-cli takes 5.3 times) and against [`CHAIN`] bare `sh -c` run one
/// after the other. The three sides run in turn, A B C A B C ...
pub(crate) async fn chained_bash_rows(plan: &Plan) -> Result<Vec<Row>, Error> {
    let engine = Engine::default();
    for n in 1..=CHAIN {
        let name = format!("bench-{n}");
        let hook = Arc::new(BashHook::new(SCRIPT, BashOptions { name: name.clone(), ..BashOptions::default() }));
        engine.register(Registration::new(name, Level::User, [Event::PreSendMessage], hook));
    }
    let mut context = Context { user_input: Some("x".repeat((1usize << 10) - 64)), ..Context::default() };
    let cache = SerializedCache::default();
    let json = HookInput::new(Event::PreSendMessage, &context, Instant::now(), 1, &cache).hook_context_json();
    let value: Value = serde_json::from_slice(&json)?;
    let what = format!("{CHAIN} chained bash hooks `{SCRIPT}` on one event, 1 KiB context, through the Engine");
    let ran_all =
        |outcome: &FireOutcome| outcome.trace.len() == CHAIN && outcome.trace.iter().all(|t| t.error.is_none());
    if !ran_all(&engine.fire(Event::PreSendMessage, &mut context).await) {
        return Err(format!("{what}: not every hook ran without error").into());
    }
    let bare = |times: usize| -> Result<(), Error> {
        for _ in 0..times {
            bare_sh(&serde_json::to_vec(&value)?)?;
        }
        Ok(())
    };
    bare(1)?;
    let (warmup, pairs) = (plan.pick(5, 2), plan.pick(400, 30));
    let (mut chained, mut one, mut five) =
        (Vec::with_capacity(pairs), Vec::with_capacity(pairs), Vec::with_capacity(pairs));
    let mut failures = 0usize;
    for round in 0..warmup + pairs {
        let started = Instant::now();
        let outcome = engine.fire(Event::PreSendMessage, &mut context).await;
        let a = since(started);
        if !ran_all(&outcome) {
            failures += 1;
        }
        let started = Instant::now();
        bare(1)?;
        let b = since(started);
        let started = Instant::now();
        bare(CHAIN)?;
        let c = since(started);
        if round >= warmup {
            chained.push(a);
            one.push(b);
            five.push(c);
        }
    }
    if failures > 0 {
        return Err(format!("{what}: {failures} fires failed").into());
    }
    Ok(vec![
        Row::new(
            format!("{what} vs ONE bare `sh -c` (std::process)"),
            (chained.clone(), one),
            Target::RatioAtMost(5.25),
        ),
        Row::new(format!("{what} vs {CHAIN} bare `sh -c` one after the other"), (chained, five), Target::Info),
    ])
}

/// A bare POST of `body` (serialized here), the reply read and parsed.
async fn post(client: &reqwest::Client, endpoint: &str, body: &Value) -> Result<Value, Error> {
    let response = client
        .post(endpoint)
        .header("content-type", "application/json")
        .header("authorization", "Bearer sk-bench")
        .body(serde_json::to_vec(body)?)
        .send()
        .await?
        .error_for_status()?;
    Ok(serde_json::from_slice(&response.bytes().await?)?)
}

pub(crate) async fn llm_rows(plan: &Plan) -> Result<Vec<Row>, Error> {
    let server = ScriptedServer::always(Reply::Content("{}".into()))?;
    let config = OpenAiConfig { base_url: server.base_url(), api_key: Some("sk-bench".into()), model: "bench".into() };
    let client = OpenAiClient::new(config)?;
    let hook = Arc::new(LlmHook::new("bench", "Check {{user_input}} for secrets.", Arc::new(client.clone())));
    let engine = Engine::default();
    engine.register(Registration::new("bench", Level::User, [Event::PreSendMessage], hook.clone()));
    let mut context =
        Context { user_input: Some("hello world".into()), cwd: Some("/tmp".into()), ..Context::default() };

    // The body the hook sends, held as a value; the bare POST serializes it each time.
    let cache = SerializedCache::default();
    let input = HookInput::new(Event::PreSendMessage, &context, Instant::now() + Duration::from_secs(30), 1, &cache);
    let body = client.request_body(&hook.request(&input));
    let endpoint = client.endpoint().to_owned();
    hook_llm::install_tls_provider();
    let bare = reqwest::Client::builder().tcp_nodelay(true).build()?;
    let name = "llm hook through the Engine vs bare reqwest POST, local ScriptedServer";
    check(&engine.fire(Event::PreSendMessage, &mut context).await, name)?;
    post(&bare, &endpoint, &body).await?;
    let mut failures = 0usize;
    let mut bare_error: Option<Error> = None;
    let times = crate::alternate!(
        plan.pick(20, 5),
        plan.pick(3000, 150),
        {
            let started = Instant::now();
            let outcome = engine.fire(Event::PreSendMessage, &mut context).await;
            let took = since(started);
            if outcome.trace.iter().any(|t| t.error.is_some()) {
                failures += 1;
            }
            took
        },
        {
            let started = Instant::now();
            let result = post(&bare, &endpoint, &body).await;
            let took = since(started);
            if let Err(e) = result {
                bare_error.get_or_insert(e);
            }
            took
        },
    );
    if let Some(e) = bare_error {
        return Err(e);
    }
    if failures > 0 {
        return Err(format!("{name}: {failures} fires failed").into());
    }
    drop(server);
    Ok(vec![Row::new(name, times, Target::RatioAtMost(1.2))])
}

/// `program` found on `PATH`, as `Command` would run it.
fn on_path(program: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|path| path.is_file())
}

/// What starting a process costs here: the floor under every bash hook run, paid once by a
/// process hook. A markdown table.
pub(crate) fn spawn_costs(plan: &Plan, python: Option<&str>) -> String {
    let mut commands: Vec<(String, Vec<String>, usize)> = vec![
        ("/bin/true".into(), vec!["/bin/true".into()], plan.pick(40, 8)),
        ("sh -c true".into(), vec!["sh".into(), "-c".into(), "true".into()], plan.pick(40, 8)),
        (
            format!("sh -c '{SCRIPT}' (the bash hook's script, empty stdin)"),
            vec!["sh".into(), "-c".into(), SCRIPT.into()],
            plan.pick(40, 8),
        ),
    ];
    if let Some(python) = python {
        commands.push((
            format!("{python} -c pass (the real interpreter)"),
            vec![python.into(), "-c".into(), "pass".into()],
            plan.pick(15, 4),
        ));
    }
    if let Some(path) = on_path("python3") {
        let shown = path.display().to_string();
        if python != Some(shown.as_str()) {
            commands.push((
                format!("python3 -c pass via PATH ({shown})"),
                vec!["python3".into(), "-c".into(), "pass".into()],
                plan.pick(8, 2),
            ));
        }
    }
    let mut out = String::from("| command | runs | median | min | max |\n|---|---:|---:|---:|---:|\n");
    for (label, argv, runs) in commands {
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let started = Instant::now();
            let status = Command::new(&argv[0])
                .args(&argv[1..])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            if status.is_err() {
                break;
            }
            times.push(since(started));
        }
        if times.is_empty() {
            out.push_str(&format!("| {label} | 0 | could not run | | |\n"));
            continue;
        }
        let min = times.iter().copied().fold(f64::INFINITY, f64::min);
        let max = times.iter().copied().fold(0.0, f64::max);
        out.push_str(&format!(
            "| {label} | {} | {} | {} | {} |\n",
            times.len(),
            fmt_time(median(&times)),
            fmt_time(min),
            fmt_time(max)
        ));
    }
    out
}
