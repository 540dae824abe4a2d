#!/usr/bin/env python3
"""Run a REAL agent (Claude Code, Codex CLI, Gemini CLI or Copilot CLI) headless against a scripted model.

    python3 tests/agents/run_agent.py --agent claude|codex|gemini|copilot --project DIR --home DIR \
        --script SCRIPT.json --prompt TEXT [--timeout 120] [--agents-dir DIR] [--env K=V ...]

Starts the matching fake server from fake_models.py on 127.0.0.1, runs the agent in DIR with
HOME=--home (user settings written there), waits (killing every process it started on timeout),
and prints ONE JSON object on stdout (see README.md):

    {"agent", "exit_code", "timed_out", "final_text", "requests", "tool_results",
     "extra_messages", "agent_output", "stdout_tail", "stderr_tail", "elapsed_s", "cmd"}

The project's hooks are whatever the caller put in DIR (.claude/settings.json,
.codex/hooks.json, .gemini/settings.json, .github/hooks/*.json); this driver only adds what each
agent needs to trust and run them. Permissions: a tool call that no hook decides on runs:
  claude:  --allowedTools Bash (change with --allowed-tools)
  codex:   --dangerously-bypass-approvals-and-sandbox
  gemini:  --yolo
  copilot: --allow-all-tools --trust-folder
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)

import fake_models  # noqa: E402

TAIL = 4000

# Env vars of the calling environment that must not leak into the agent (real credentials,
# real endpoints, settings of an outer agent session).
SCRUB_PREFIXES = (
    "ANTHROPIC_",
    "CLAUDE",
    "OPENAI_",
    "CODEX_",
    "GEMINI_",
    "GOOGLE_",
    "VERTEX",
    "OTEL_",
    "XDG_",
    "COPILOT_",
    "GH_",
    "GITHUB_",
    "NODE_OPTIONS",
    "npm_",
)


def default_agents_dir():
    tgt = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")
    return os.path.join(tgt, "agents")


def agent_binary(agent, agents_dir):
    paths = {
        "claude": ["claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude"],
        "codex": ["codex/node_modules/@openai/codex/bin/codex.js"],
        "gemini": ["gemini/node_modules/@google/gemini-cli/bundle/gemini.js"],
        "copilot": ["copilot/node_modules/@github/copilot/npm-loader.js"],
    }[agent]
    for rel in paths:
        p = os.path.join(agents_dir, rel)
        if os.path.exists(p):
            return ["node", p] if p.endswith(".js") else [p]
    raise SystemExit(f"run_agent: {agent} not installed under {agents_dir} (run tests/agents/install.sh)")


def deep_merge(base, extra):
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            deep_merge(base[k], v)
        else:
            base[k] = v
    return base


def write_json_merged(path, extra):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = {}
    if os.path.exists(path):
        try:
            with open(path) as f:
                data = json.load(f)
        except ValueError:
            data = {}
    deep_merge(data, extra)
    with open(path, "w") as f:
        json.dump(data, f, indent=2)


# ---------------------------------------------------------------------------------------------
# per-agent command lines


def setup_claude(a, base_url, env):
    env.update(
        {
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "sk-ant-fake-key",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
        }
    )
    cmd = a.bin + ["-p", a.prompt, "--output-format", "json"]
    if a.model:
        cmd += ["--model", a.model]
    if a.allowed_tools:
        cmd += ["--allowedTools", a.allowed_tools]
    return cmd


def setup_codex(a, base_url, env):
    codex_home = os.path.join(a.home, ".codex")
    os.makedirs(codex_home, exist_ok=True)
    env.update({"CODEX_HOME": codex_home, "FAKE_OPENAI_KEY": "sk-fake-key", "SHELL": "/bin/bash"})
    provider = (
        '{name="fake", base_url="%s/v1", env_key="FAKE_OPENAI_KEY", wire_api="responses", '
        "request_max_retries=0, stream_max_retries=0}" % base_url
    )
    cmd = a.bin + [
        "exec",
        "--json",
        "--color",
        "never",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--trust",
        "--dangerously-bypass-hook-trust",
        "-C",
        a.project,
        "-c",
        "model_provider=fake",
        "-c",
        "model_providers.fake=" + provider,
        "-m",
        a.model or "gpt-test",
        *a.agent_arg,
        "--",
        a.prompt,
    ]
    return cmd


def setup_gemini(a, base_url, env):
    write_json_merged(
        os.path.join(a.home, ".gemini", "settings.json"),
        {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        },
    )
    env.update(
        {
            "GEMINI_API_KEY": "fake-gemini-key",
            "GOOGLE_GEMINI_BASE_URL": base_url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
    )
    cmd = a.bin + ["-p", a.prompt, "--yolo", "--output-format", "json"]
    model = "gemini-2.5-flash" if a.model is None else a.model
    if model:  # --model '' leaves the choice (and the router's classifier call) to Gemini CLI
        cmd += ["-m", model]
    return cmd


def setup_copilot(a, base_url, env):
    env.update(
        {
            # bring-your-own-model, offline: the only request made is the conversation
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": base_url + "/v1",
            "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "sk-fake-key",
            # a known model name gets the usual tool set (create/edit/grep); an unknown GPT-like
            # one (gpt-test) gets apply_patch (a freeform "custom" tool) and rg instead
            "COPILOT_MODEL": a.model or "claude-sonnet-4.5",
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_HOME": os.path.join(a.home, ".copilot"),
            # the native binary unpacks itself (~235 MB) here on first run: one shared cache
            # next to the install (install.sh uses the same), never one per HOME
            "XDG_CACHE_HOME": os.path.join(a.agents_dir, "copilot-cache"),
        }
    )
    os.makedirs(env["COPILOT_HOME"], exist_ok=True)
    # --trust-folder: repository hooks (.github/hooks/*.json) load in -p only in a trusted folder
    return a.bin + [
        "-p",
        a.prompt,
        "--output-format",
        "json",
        "--allow-all-tools",
        "--trust-folder",
        "--no-auto-update",
        "--no-ask-user",
    ]


SETUP = {"claude": setup_claude, "codex": setup_codex, "gemini": setup_gemini, "copilot": setup_copilot}


# ---------------------------------------------------------------------------------------------
# normalising what the model was told


def _text_of(content):
    """Flatten an Anthropic/Responses content value (string or list of blocks) to text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for b in content:
            if isinstance(b, str):
                out.append(b)
            elif isinstance(b, dict):
                if "text" in b:
                    out.append(b["text"])
                elif b.get("type") in ("image", "input_image"):
                    out.append("[image]")
        return "\n".join(out)
    if isinstance(content, dict):
        return content.get("text") or json.dumps(content)
    return str(content)


# Context every run of the pinned agent versions carries (not caused by hooks): left out of
# "extra_messages" (still visible in "requests"). Matched as prefixes of the message text.
BOILERPLATE = {
    "claude": (
        "<system-reminder>\nAttribution for git commits",
        "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# gitStatus",
    ),
    "codex": (
        "You are a coding agent running in the Codex CLI",
        "<skills_instructions>",
        "<environment_context>",
        "<permissions instructions>",
        "<collaboration_mode>",
        "<apps_instructions>",
    ),
    "gemini": ("<session_context>",),
    "copilot": ("You are the GitHub Copilot CLI",),
}

# Claude Code 2.1.328 sends one mid-conversation "system" message per turn that joins, with
# blank lines, hook texts ("SessionStart:startup hook success: ...", "UserPromptSubmit hook
# additional context: ...") and its environment blurb. Paragraphs starting like these belong to
# the blurb; a hook text runs from its header up to the next blurb paragraph or header.
CLAUDE_BLURB_PARAS = (
    "# Environment\n",
    "You are powered by the model",
    "The following deferred tools",
    "Available agent types",
    "When you launch multiple agents",
    "The following skills are available",
    "Today's date is",
    "gitStatus:",
    "Current branch:",
    "Main branch",
    "Status:",
    "Recent commits:",
)
CLAUDE_HOOK_HEADER = re.compile(r"^[A-Za-z]+(?::\S+)? hook [A-Za-z ]+: ")


def claude_split_system(text):
    """The hook texts inside a Claude Code system message (the whole text if it has no blurb)."""
    paras = text.split("\n\n")
    if not any(p.startswith(CLAUDE_BLURB_PARAS) for p in paras):
        return [text]
    out, cur = [], None
    for p in paras:
        if CLAUDE_HOOK_HEADER.match(p):
            if cur is not None:
                out.append("\n\n".join(cur))
            cur = [p]
        elif p.startswith(CLAUDE_BLURB_PARAS):
            if cur is not None:
                out.append("\n\n".join(cur))
            cur = None
        elif cur is not None:
            cur.append(p)
    if cur is not None:
        out.append("\n\n".join(cur))
    return out


def _add_extra(extras, seen, role, text, prompt, agent):
    text = text if isinstance(text, str) else json.dumps(text)
    if not text.strip() or text.strip() == prompt.strip():
        return
    if agent == "claude" and role == "system":
        parts = claude_split_system(text)
        if parts != [text]:
            for part in parts:
                _add_extra(extras, seen, "system", part, prompt, "claude-part")
            return
    if text.lstrip().startswith(BOILERPLATE.get(agent, ())):
        return
    key = (role, text)
    if key in seen:
        return
    seen.add(key)
    extras.append({"role": role, "text": text})


def normalise_claude(main_reqs, prompt):
    results, by_id, extras, seen = [], {}, [], set()
    for r in main_reqs:
        names = {}
        for m in r["body"].get("messages", []):
            content = m.get("content")
            if m.get("role") == "assistant":
                for b in content if isinstance(content, list) else []:
                    if isinstance(b, dict) and b.get("type") == "tool_use":
                        names[b["id"]] = b.get("name")
                continue
            if isinstance(content, str):
                _add_extra(extras, seen, m.get("role"), content, prompt, "claude")
                continue
            for b in content or []:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "tool_result":
                    tid = b.get("tool_use_id")
                    if tid in by_id:
                        continue
                    res = {
                        "tool": names.get(tid),
                        "content": _text_of(b.get("content")),
                        "is_error": bool(b.get("is_error", False)),
                        "id": tid,
                    }
                    by_id[tid] = res
                    results.append(res)
                elif b.get("type") == "text":
                    _add_extra(extras, seen, m.get("role"), b.get("text", ""), prompt, "claude")
    return results, extras


def normalise_codex(main_reqs, prompt):
    results, by_id, extras, seen = [], {}, [], set()
    for r in main_reqs:
        names = {}
        for it in r["body"].get("input", []) or []:
            if not isinstance(it, dict):
                continue
            t = it.get("type", "message")
            if t in ("function_call", "custom_tool_call", "local_shell_call"):
                names[it.get("call_id")] = it.get("name") or t
            elif t in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
                cid = it.get("call_id")
                if cid in by_id:
                    continue
                out = it.get("output")
                if isinstance(out, dict):  # {"content": ..., "success": ...} (older payload shape)
                    is_err = out.get("success") is False if "success" in out else None
                    out = out.get("content", out)
                else:
                    is_err = None
                res = {"tool": names.get(cid), "content": _text_of(out), "is_error": is_err, "id": cid}
                by_id[cid] = res
                results.append(res)
            elif t == "message" and it.get("role") in ("user", "developer", "system"):
                text = _text_of(it.get("content"))
                _add_extra(extras, seen, it.get("role"), text, prompt, "codex")
    return results, extras


def normalise_gemini(main_reqs, prompt):
    results, extras, seen = [], [], set()
    seen_calls = set()
    for r in main_reqs:
        k_call = 0
        for c in r["body"].get("contents", []) or []:
            if not isinstance(c, dict) or c.get("role") == "model":
                continue
            for p in c.get("parts", []) or []:
                if not isinstance(p, dict):
                    continue
                if "functionResponse" in p:
                    fr = p["functionResponse"]
                    key = fr.get("id") or (fr.get("name"), k_call)
                    k_call += 1
                    if key in seen_calls:
                        continue
                    seen_calls.add(key)
                    resp = fr.get("response")
                    if isinstance(resp, dict) and set(resp) == {"output"}:
                        content, is_err = _text_of(resp["output"]), False
                    elif isinstance(resp, dict) and "error" in resp:
                        content, is_err = _text_of(resp["error"]), True
                    else:
                        content, is_err = json.dumps(resp), False
                    results.append({"tool": fr.get("name"), "content": content, "is_error": is_err, "id": fr.get("id")})
                elif "text" in p:
                    _add_extra(extras, seen, c.get("role", "user"), p["text"], prompt, "gemini")
    return results, extras


# Copilot CLI 1.0.102 starts every user message it sends with the time of day.
COPILOT_DATETIME = re.compile(r"^<current_datetime>[^<]*</current_datetime>\n*")


def normalise_copilot(main_reqs, prompt):
    results, by_id, extras, seen = [], {}, [], set()
    for r in main_reqs:
        names = {}
        for m in r["body"].get("messages", []) or []:
            if not isinstance(m, dict):
                continue
            role = m.get("role")
            if role == "assistant":
                for c in m.get("tool_calls") or []:
                    names[c.get("id")] = (c.get("function") or c.get("custom") or {}).get("name")
                continue
            if role == "tool":
                tid = m.get("tool_call_id")
                if tid in by_id:
                    continue
                # Chat Completions has no error flag; Copilot puts the outcome in the text
                res = {"tool": names.get(tid), "content": _text_of(m.get("content")), "is_error": None, "id": tid}
                by_id[tid] = res
                results.append(res)
                continue
            text = COPILOT_DATETIME.sub("", _text_of(m.get("content")), count=1)
            if role == "user" and text.startswith(prompt) and text != prompt:
                # a userPromptSubmitted hook's context is appended to the prompt's message
                text = text[len(prompt) :].lstrip("\n")
            _add_extra(extras, seen, role, text, prompt, "copilot")
    return results, extras


NORMALISE = {"claude": normalise_claude, "codex": normalise_codex, "gemini": normalise_gemini, "copilot": normalise_copilot}


def parse_final(agent, stdout):
    """(final_text, agent_output) from the agent's stdout."""
    if agent in ("codex", "copilot"):  # JSONL events
        events, final = [], None
        for line in stdout.splitlines():
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            events.append(ev)
            item = ev.get("item") or {}
            if ev.get("type") == "item.completed" and item.get("type") == "agent_message":
                final = item.get("text")
            elif ev.get("type") == "assistant.message" and (ev.get("data") or {}).get("content"):
                final = ev["data"]["content"]
        return final, events
    # claude / gemini: one JSON object (possibly after some noise lines)
    s = stdout.strip()
    obj = None
    for start in [0] + [i for i, ch in enumerate(s) if ch == "{" and (i == 0 or s[i - 1] == "\n")]:
        try:
            obj = json.loads(s[start:])
            break
        except ValueError:
            continue
    if not isinstance(obj, dict):
        return None, None
    if agent == "claude":
        return obj.get("result"), obj
    return obj.get("response"), obj



# ---------------------------------------------------------------------------------------------
# process cleanup: agents start hooks and tool commands in their own process groups/sessions
# (Codex does), so killing the agent's group is not enough. The driver makes itself a child
# subreaper, so whatever the agent leaves behind is re-parented to it, and at the end kills
# every process below it.

PR_SET_CHILD_SUBREAPER = 36


def set_child_subreaper():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root):
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        # "pid (comm) state ppid ..." -- comm may contain spaces/parens
        rest = stat[stat.rfind(")") + 2 :].split()
        if len(rest) < 2:
            continue
        children.setdefault(int(rest[1]), []).append(int(name))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def kill_all_below(root):
    """SIGKILL every descendant of root (repeatedly, until none is left), reaping zombies."""
    for _ in range(20):
        pids = descendants(root)
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        while True:  # reap (we are the subreaper of orphans)
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        if not pids:
            return
        time.sleep(0.05)


def run(a):
    a.project = os.path.abspath(a.project)
    a.home = os.path.abspath(a.home)
    a.agents_dir = os.path.abspath(a.agents_dir)
    os.makedirs(a.home, exist_ok=True)
    a.bin = agent_binary(a.agent, a.agents_dir)
    with open(a.script) as f:
        script = json.load(f)
    log_path = os.path.abspath(a.log or os.path.join(a.home, "fake-model-requests.jsonl"))
    open(log_path, "w").close()  # one run per log
    server = fake_models.make_server(a.agent, script, log_path=log_path)
    base_url = server.start()

    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUB_PREFIXES)}
    env.update({"HOME": a.home, "NO_COLOR": "1", "TERM": "dumb", "CI": "1", "SHELL": "/bin/bash"})
    # never reach a real proxy; 127.0.0.1 must be direct
    for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        env.pop(k, None)
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    cmd = SETUP[a.agent](a, base_url, env)
    if a.agent != "codex":  # codex puts them before its "-- PROMPT"
        cmd += a.agent_arg
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v

    set_child_subreaper()
    t0 = time.monotonic()
    timed_out = False
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, cwd=a.project, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)
        try:
            rc = proc.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            for pid in descendants(os.getpid()):  # the agent and all below it, not reaped yet
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            rc = proc.wait()
        # anything the agent left behind (hooks, tool commands, their children) goes too
        kill_all_below(os.getpid())
        elapsed = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    server.stop()

    main_reqs = [r for r in server.requests if r["kind"] == "main"]
    tool_results, extras = NORMALISE[a.agent](main_reqs, a.prompt)
    final_text, agent_output = parse_final(a.agent, stdout)
    if a.requests == "main":
        reqs = main_reqs
    elif a.requests == "none":
        reqs = []
    else:
        reqs = server.requests
    return {
        "agent": a.agent,
        "exit_code": rc,
        "timed_out": timed_out,
        "final_text": final_text,
        "tool_results": tool_results,
        "extra_messages": [e["text"] for e in extras],
        "extra_messages_roles": [e["role"] for e in extras],
        "agent_output": agent_output,
        "requests": reqs,
        "requests_log": log_path,
        "stdout_tail": stdout[-TAIL:],
        "stderr_tail": stderr[-TAIL:],
        "elapsed_s": round(elapsed, 2),
        "cmd": cmd,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agent", required=True, choices=["claude", "codex", "gemini", "copilot"])
    ap.add_argument("--project", required=True, help="project directory (cwd of the agent; holds its hooks file)")
    ap.add_argument("--home", required=True, help="fresh HOME for the agent (created; user settings written here)")
    ap.add_argument("--script", required=True, help="JSON file: list of model turns (see fake_models.py)")
    ap.add_argument("--prompt", required=True)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--agents-dir", default=default_agents_dir())
    ap.add_argument("--env", action="append", default=[], metavar="K=V", help="extra env for the agent (repeatable)")
    ap.add_argument("--model", help="model name passed to the agent (default: claude none, codex gpt-test, gemini gemini-2.5-flash, copilot claude-sonnet-4.5)")
    ap.add_argument("--allowed-tools", default="Bash", help="claude --allowedTools value ('' for none); default Bash")
    ap.add_argument("--agent-arg", action="append", default=[], metavar="ARG", help="extra argument appended to the agent command (repeatable)")
    ap.add_argument("--log", help="JSONL file for the recorded requests (default HOME/fake-model-requests.jsonl)")
    ap.add_argument("--requests", choices=["all", "main", "none"], default="all", help="which recorded requests to include in the report")
    a = ap.parse_args(argv)
    report = run(a)
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
