#!/usr/bin/env bash
# The installed `hookwire` (what `cargo xtask install` puts on PATH, statically linked on
# GNU/Linux) on the documented day-one path, with the real Claude Code:
#
#   tests/agents/installed.sh /path/to/bin/hookwire
#
# (1) `hookwire demo` runs with no network, key or service; (2) `hookwire install claude --user
# --packs recommended` in a fresh HOME, then the real Claude Code (headless, scripted model on
# 127.0.0.1, `hookwire` found on PATH) asks for `rm -rf ~/keep` and `touch ran-ok`: the first is
# denied by the pack (~/keep survives, the model is told the rule), the second runs; (3) an
# `http` hook reached by the host name `localhost` (a static binary resolves names with the C
# library linked into it) denies a call. Needs the agents (tests/agents/install.sh; AGENTS_DIR
# or the default). Prints "N passed, M failed"; exits 1 on any failure.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
hookwire="${1:?usage: tests/agents/installed.sh /path/to/bin/hookwire}"
hookwire="$(cd "$(dirname "$hookwire")" && pwd)/$(basename "$hookwire")"
[[ -x "$hookwire" ]] || { echo "not an executable: $hookwire" >&2; exit 1; }
agents_dir_args=()
[[ -n "${AGENTS_DIR:-}" ]] && agents_dir_args=(--agents-dir "$AGENTS_DIR")

work="$(mktemp -d "${TMPDIR:-/tmp}/hookwire-installed.XXXXXX")"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
check() { # check NAME CONDITION-EXIT-CODE DETAIL
  if [[ "$2" == 0 ]]; then
    passed=$((passed + 1)); echo "ok   $1"
  else
    failed=$((failed + 1)); echo "FAIL $1"; echo "$3" | tail -n 30 | sed 's/^/     /'
  fi
}

if ldd "$hookwire" >/dev/null 2>&1; then echo "$hookwire: dynamically linked"; else echo "$hookwire: statically linked"; fi

# (1) The demo.
out="$(cd "$work" && HOME="$work/demo-home" "$hookwire" demo 2>&1)"
check "hookwire demo" $? "$out"

# (2) Install with the recommended pack, then the real Claude Code.
home="$work/home"
proj="$work/proj"
mkdir -p "$home/keep" "$proj"
echo precious > "$home/keep/file"
out="$(cd "$proj" && HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_STATE_HOME="$home/.local/state" \
  "$hookwire" install claude --user --packs recommended 2>&1)"
check "hookwire install claude --user --packs recommended" $? "$out"

cat > "$work/script.json" <<EOF
[{"tool": "shell", "input": {"command": "rm -rf $home/keep"}},
 {"tool": "shell", "input": {"command": "touch ran-ok"}},
 {"text": "done"}]
EOF
python3 "$here/run_agent.py" --agent claude --project "$proj" --home "$home" \
  --script "$work/script.json" --prompt "tidy up" "${agents_dir_args[@]}" \
  --env "PATH=$(dirname "$hookwire"):$PATH" --env "XDG_CONFIG_HOME=$home/.config" \
  --env "XDG_STATE_HOME=$home/.local/state" >"$work/report.json" 2>"$work/report.err"
out="$(python3 - "$work/report.json" "$home" "$proj" 2>&1 <<'EOF'
import json, os, sys
home, proj = sys.argv[2], sys.argv[3]
report = json.load(open(sys.argv[1]))
results = json.dumps(report.get("tool_results"))
problems = []
if report.get("timed_out") or report.get("exit_code") != 0:
    problems.append("claude exited %r (timed out: %r)" % (report.get("exit_code"), report.get("timed_out")))
if not os.path.exists(os.path.join(home, "keep", "file")):
    problems.append("rm -rf ~/keep ran: the pack did not deny it")
if "filesystem/" not in results:
    problems.append("the model was not told the rule that denied the call: %s" % results[:600])
if not os.path.exists(os.path.join(proj, "ran-ok")):
    problems.append("touch ran-ok did not run: the guard blocked a harmless call")
if problems:
    print("\n".join(problems))
    print(json.dumps({k: report.get(k) for k in ("exit_code", "final_text", "tool_results", "stderr_tail")})[:3000])
    sys.exit(1)
EOF
)"
check "the real Claude Code through the installed hookwire: rm -rf ~/keep denied, touch runs" $? "$out $(tail -c 2000 "$work/report.err")"

# (3) An http hook by host name.
port_file="$work/port"
python3 - "$port_file" <<'EOF' &
import http.server, json, sys
class Deny(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "denied over localhost"}}).encode()
        self.send_response(200); self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
server = http.server.HTTPServer(("127.0.0.1", 0), Deny)
open(sys.argv[1] + ".tmp", "w").write(str(server.server_port))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
EOF
server_pid=$!
for _ in $(seq 100); do [[ -s "$port_file" ]] && break; sleep 0.05; done
port="$(cat "$port_file" 2>/dev/null)"
cat > "$work/http.json" <<EOF
{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://localhost:$port/hook"}]}]}}
EOF
input='{"session_id":"s","transcript_path":"/dev/null","cwd":"'"$work"'","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}'
out="$(cd "$work" && HOME="$home" HOOKWIRE_STORE=off "$hookwire" hook claude --no-default-config --no-daemon \
  --settings "$work/http.json" <<<"$input" 2>&1)"
grep -q '"deny"' <<<"$out" && grep -q 'denied over localhost' <<<"$out"
check "an http hook at http://localhost:$port denies through the installed hookwire" $? "$out"

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
