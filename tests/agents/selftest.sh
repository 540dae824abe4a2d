#!/usr/bin/env bash
# Self-test of the agent harness with plain shell hooks (no hookwire needed).
#
#   tests/agents/selftest.sh [AGENT...]        (default: claude codex gemini copilot)
#
# For each agent: (1) a project whose PreToolUse/BeforeTool/preToolUse hook denies `touch pwned`
# -- the file must not exist and the tool result the model got must contain "no touching"; (2) a
# project whose hook allows (exit 0, no output) -- `pwned` must exist and the hook must have
# seen the call. For copilot also: (3) preToolUse exit 2 denies; (4) a userPromptSubmitted
# additionalContext reaches the model; (5) an agentStop block makes the agent take another turn. Needs the agents installed (tests/agents/install.sh; AGENTS_DIR or the default
# ${CARGO_TARGET_DIR:-target}/agents). Prints "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agents=("$@")
[[ ${#agents[@]} -eq 0 ]] && agents=(claude codex gemini copilot)
agents_dir_args=()
[[ -n "${AGENTS_DIR:-}" ]] && agents_dir_args=(--agents-dir "$AGENTS_DIR")
timeout="${AGENT_TIMEOUT:-120}"

work="$(mktemp -d "${TMPDIR:-/tmp}/hookwire-agents-selftest.XXXXXX")"
keep="${KEEP_SELFTEST_DIR:-}"
cleanup() { [[ -z "$keep" ]] && rm -rf "$work"; }
trap cleanup EXIT

passed=0
failed=0

# write_hooks AGENT PROJECT MODE(deny|allow) INPUT_FILE
write_hooks() {
  local agent="$1" proj="$2" mode="$3" input="$4" cmd
  case "$agent/$mode" in
    claude/deny) cmd="cat > '$input'; echo no touching >&2; exit 2" ;;
    codex/deny) cmd="cat > '$input'; echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no touching\"}}'" ;;
    gemini/deny) cmd="cat > '$input'; echo '{\"decision\":\"deny\",\"reason\":\"no touching\"}'" ;;
    copilot/deny) cmd="cat > '$input'; echo '{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no touching\"}'" ;;
    */allow) cmd="cat > '$input'; exit 0" ;;
  esac
  python3 - "$agent" "$proj" "$cmd" <<'EOF'
import json, os, sys
agent, proj, cmd = sys.argv[1:]
if agent == "claude":
    path, event, matcher, hook = ".claude/settings.json", "PreToolUse", "Bash", {"type": "command", "command": cmd}
elif agent == "codex":
    path, event, matcher, hook = ".codex/hooks.json", "PreToolUse", "Bash", {"type": "command", "command": cmd, "timeout": 30}
elif agent == "copilot":  # no matcher: every entry runs for its event
    full = os.path.join(proj, ".github/hooks/selftest.json")
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        json.dump({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": cmd, "timeoutSec": 30}]}}, f, indent=2)
    sys.exit(0)
else:
    path, event, matcher, hook = ".gemini/settings.json", "BeforeTool", "run_shell_command", {"type": "command", "name": "selftest", "command": cmd, "timeout": 30000}
full = os.path.join(proj, path)
os.makedirs(os.path.dirname(full), exist_ok=True)
with open(full, "w") as f:
    json.dump({"hooks": {event: [{"matcher": matcher, "hooks": [hook]}]}}, f, indent=2)
EOF
}

# check REPORT PROJECT MODE INPUT_FILE -> prints failures, exit status 0 = pass
check() {
  python3 - "$@" <<'EOF'
import json, os, sys
report_path, proj, mode, input_path = sys.argv[1:]
fails = []
try:
    r = json.load(open(report_path))
except Exception as e:  # noqa: BLE001
    print(f"    report unreadable: {e}")
    sys.exit(1)
pwned = os.path.exists(os.path.join(proj, "pwned"))
if r.get("timed_out"):
    fails.append("agent timed out")
if r.get("exit_code") != 0:
    fails.append(f"exit_code {r.get('exit_code')}")
if r.get("final_text") != "finished":
    fails.append(f"final_text {r.get('final_text')!r}")
if not os.path.exists(input_path):
    fails.append("the hook never ran (no hook input recorded)")
else:
    raw = open(input_path).read()
    try:
        hin = json.loads(raw)
        # Copilot: toolArgs (camelCase events)
        if "touch pwned" not in json.dumps(hin.get("tool_input") or hin.get("toolArgs")):
            fails.append(f"hook input has no 'touch pwned': {raw[:300]}")
    except ValueError:
        fails.append(f"hook input not JSON: {raw[:300]!r}")
trs = r.get("tool_results") or []
if len(trs) != 1:
    fails.append(f"expected 1 tool result, got {len(trs)}")
told = trs[0]["content"] if trs else ""
if mode == "deny":
    if pwned:
        fails.append("pwned was created despite the deny")
    if "no touching" not in told:
        fails.append(f"tool result lacks the reason: {told!r}")
else:
    if not pwned:
        fails.append("pwned was NOT created although the hook allowed")
    if "no touching" in told:
        fails.append(f"tool result mentions a deny: {told!r}")
print(f"    tool_result: {json.dumps(trs[0] if trs else None)}")
print(f"    elapsed_s: {r.get('elapsed_s')}")
for f in fails:
    print(f"    FAIL: {f}")
if fails:
    print("    stderr_tail: " + json.dumps(r.get("stderr_tail", "")[-1500:]))
    print("    stdout_tail: " + json.dumps(r.get("stdout_tail", "")[-1500:]))
sys.exit(1 if fails else 0)
EOF
}

script="$work/script.json"
echo '[{"tool": "shell", "input": {"command": "touch pwned"}}, {"text": "finished"}]' >"$script"

for agent in "${agents[@]}"; do
  for mode in deny allow; do
    case_dir="$work/$agent-$mode"
    proj="$case_dir/project"
    mkdir -p "$proj" "$case_dir/home"
    input="$case_dir/hook-input.json"
    write_hooks "$agent" "$proj" "$mode" "$input"
    event=PreToolUse; [[ $agent == gemini ]] && event=BeforeTool; [[ $agent == copilot ]] && event=preToolUse
    echo "== $agent: $event hook $mode on 'touch pwned'"
    python3 "$here/run_agent.py" --agent "$agent" --project "$proj" --home "$case_dir/home" \
      --script "$script" --prompt "Create a file named pwned." --timeout "$timeout" \
      --requests none "${agents_dir_args[@]}" >"$case_dir/report.json" 2>"$case_dir/driver.err"
    if [[ $? -ne 0 ]]; then
      echo "    FAIL: run_agent.py failed: $(tail -c 1500 "$case_dir/driver.err")"
      failed=$((failed + 1))
      continue
    fi
    if check "$case_dir/report.json" "$proj" "$mode" "$input"; then
      echo "    ok"
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
    fi
  done
done

# Copilot CLI: more of what its hook answers do (no matcher; camelCase events; .github/hooks).
# copilot_case NAME EVENT HOOK_CMD SCRIPT_JSON -- runs one case; the checker below knows NAME.
copilot_case() {
  local name="$1" event="$2" cmd="$3" script_json="$4"
  local case_dir="$work/copilot-$name" proj
  proj="$case_dir/project"
  mkdir -p "$proj/.github/hooks" "$case_dir/home"
  python3 -c 'import json, sys; json.dump({"version": 1, "hooks": {sys.argv[2]: [{"type": "command", "bash": sys.argv[3], "timeoutSec": 30}]}}, open(sys.argv[1], "w"), indent=2)' \
    "$proj/.github/hooks/selftest.json" "$event" "$cmd"
  echo "$script_json" >"$case_dir/script.json"
  echo "== copilot: $event $name"
  python3 "$here/run_agent.py" --agent copilot --project "$proj" --home "$case_dir/home" \
    --script "$case_dir/script.json" --prompt "Create a file named pwned." --timeout "$timeout" \
    --requests main "${agents_dir_args[@]}" >"$case_dir/report.json" 2>"$case_dir/driver.err"
  if [[ $? -ne 0 ]]; then
    echo "    FAIL: run_agent.py failed: $(tail -c 1500 "$case_dir/driver.err")"
    failed=$((failed + 1))
    return
  fi
  if python3 - "$name" "$case_dir" <<'EOF'
import json, os, sys
name, case_dir = sys.argv[1:]
r = json.load(open(os.path.join(case_dir, "report.json")))
proj = os.path.join(case_dir, "project")
log = os.path.join(case_dir, "hook-input.jsonl")
inputs = [json.loads(l) for l in open(log) if l.strip()] if os.path.exists(log) else []
fails = []
if r.get("timed_out") or r.get("exit_code") != 0:
    fails.append(f"exit_code {r.get('exit_code')} timed_out {r.get('timed_out')}")
if r.get("final_text") != "finished":
    fails.append(f"final_text {r.get('final_text')!r}")
if not inputs:
    fails.append("the hook never ran (no hook input recorded)")
trs = r.get("tool_results") or []
extras = r.get("extra_messages") or []
if name == "exit2":
    told = trs[0]["content"] if trs else ""
    if os.path.exists(os.path.join(proj, "pwned")):
        fails.append("pwned was created despite exit 2")
    if not told.startswith("Denied by preToolUse hook"):
        fails.append(f"tool result is not a preToolUse denial: {told!r}")
    print(f"    tool_result: {told!r}")
elif name == "prompt-context":
    if not any("CTX-7781" in e for e in extras):
        fails.append(f"additionalContext not in what the model was told: {extras!r}")
    if inputs and inputs[0].get("prompt") != "Create a file named pwned.":
        fails.append(f"hook input prompt {inputs[0].get('prompt')!r}")
    print(f"    extra_messages: {json.dumps(extras)}")
elif name == "stop-block":
    if not any("KEEP-GOING-42" in e for e in extras):
        fails.append(f"the block reason did not reach the model: {extras!r}")
    turns = [q["turn"] for q in r.get("requests", [])]
    if turns != [0, 1]:
        fails.append(f"expected model turns [0, 1] (one more after the block), got {turns}")
    if [i.get("stop_hook_active") for i in inputs] != [False, True]:
        fails.append(f"agentStop inputs' stop_hook_active: {[i.get('stop_hook_active') for i in inputs]}")
    print(f"    extra_messages: {json.dumps(extras)}")
print(f"    elapsed_s: {r.get('elapsed_s')}")
for f in fails:
    print(f"    FAIL: {f}")
if fails:
    print("    stderr_tail: " + json.dumps(r.get("stderr_tail", "")[-1500:]))
sys.exit(1 if fails else 0)
EOF
  then
    echo "    ok"
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
}

for agent in "${agents[@]}"; do
  [[ $agent == copilot ]] || continue
  log="$work/copilot-exit2/hook-input.jsonl"
  copilot_case exit2 preToolUse "cat >> '$log'; echo >> '$log'; echo no touching >&2; exit 2" \
    '[{"tool": "shell", "input": {"command": "touch pwned"}}, {"text": "finished"}]'
  log="$work/copilot-prompt-context/hook-input.jsonl"
  copilot_case prompt-context userPromptSubmitted \
    "cat >> '$log'; echo >> '$log'; echo '{\"additionalContext\":\"CTX-7781\"}'" '[{"text": "finished"}]'
  log="$work/copilot-stop-block/hook-input.jsonl"
  # blocks the first stop only (a marker file, not the input's formatting, says which one)
  copilot_case stop-block agentStop \
    "cat >> '$log'; echo >> '$log'; [ -e '$log.blocked' ] && exit 0; : > '$log.blocked'; echo '{\"decision\":\"block\",\"reason\":\"KEEP-GOING-42\"}'" \
    '[{"text": "first"}, {"text": "finished"}]'
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
