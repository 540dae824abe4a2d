#!/usr/bin/env bash
# Self-test of the agent harness with plain shell hooks (no hookwire needed).
#
#   tests/agents/selftest.sh [AGENT...]        (default: claude codex gemini)
#
# For each agent: (1) a project whose PreToolUse/BeforeTool hook denies `touch pwned` -- the
# file must not exist and the tool result the model got must contain "no touching"; (2) a
# project whose hook allows (exit 0, no output) -- `pwned` must exist and the hook must have
# seen the call. Needs the agents installed (tests/agents/install.sh; AGENTS_DIR or the default
# ${CARGO_TARGET_DIR:-target}/agents). Prints "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
agents=("$@")
[[ ${#agents[@]} -eq 0 ]] && agents=(claude codex gemini)
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
    */allow) cmd="cat > '$input'; exit 0" ;;
  esac
  python3 - "$agent" "$proj" "$cmd" <<'EOF'
import json, os, sys
agent, proj, cmd = sys.argv[1:]
if agent == "claude":
    path, event, matcher, hook = ".claude/settings.json", "PreToolUse", "Bash", {"type": "command", "command": cmd}
elif agent == "codex":
    path, event, matcher, hook = ".codex/hooks.json", "PreToolUse", "Bash", {"type": "command", "command": cmd, "timeout": 30}
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
        if "touch pwned" not in json.dumps(hin.get("tool_input")):
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
    event=PreToolUse; [[ $agent == gemini ]] && event=BeforeTool
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

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
