#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs: the repository's fixtures that each target reads,
# and a few hand-written inputs where no fixture has that shape. Re-run after fixtures change;
# the result is committed (small: a few dozen files). Targets whose first byte(s) choose an
# agent, event or file place get those bytes prepended (see docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out=fuzz/corpus
rm -rf "$out"
mkdir -p "$out"

# seed TARGET NAME [PREFIX_HEX] < content  — PREFIX_HEX: bytes put before the content.
seed() {
    local dir="$out/$1" prefix="${3:-}"
    mkdir -p "$dir"
    { [ -n "$prefix" ] && printf "$(printf '%s' "$prefix" | sed 's/../\\x&/g')"; cat; } >"$dir/$2"
}
# copy TARGET FILE [PREFIX_HEX]  — a fixture, named after its path.
copy() {
    seed "$1" "$(echo "$2" | sed 's|^crates/||; s|tests/fixtures/||; s|/|_|g')" "${3:-}" <"$2"
}

p=crates/hook-protocol/tests/fixtures
c=crates/hook-core/tests/fixtures/config

# j-cli hooks.yaml / hooks.json and HOOK.yaml (the error fixtures are the interesting ones).
for f in "$c"/good/*.yaml "$c"/errors/*.yaml "$c"/errors/hooks.json "$p"/jcli/example*.yaml examples/demo/hooks/*/HOOK.yaml; do
    copy config_hooks_file "$f"
done

# PicoClaw configs.
for f in examples/demo/picoclaw.json "$c"/errors/picoclaw.json "$p"/plugin/config.json "$p"/jcli/config_example.yaml; do
    copy config_picoclaw "$f"
done

# Claude Code / Gemini CLI / Codex settings.
for f in crates/hook-cli/tests/fixtures/install/*.json; do
    copy agent_settings "$f"
done

# The whole loader: byte 0 = place (0 hooks.yaml, 1 hooks.json, 2 hooks/guard/HOOK.yaml,
# 3 picoclaw.json, 4 picoclaw.yaml, 5 .claude/settings.json, 6 .gemini/, 7 .codex/hooks.json).
copy config_load "$c"/good/hooks.yaml 00
copy config_load "$c"/errors/duplicate_name.yaml 00
copy config_load "$c"/errors/hooks.json 01
copy config_load examples/demo/hooks/no-rm-rf/HOOK.yaml 02
copy config_load examples/demo/picoclaw.json 03
copy config_load "$p"/jcli/config_example.yaml 04
copy config_load crates/hook-cli/tests/fixtures/install/claude_settings.json 05
copy config_load crates/hook-cli/tests/fixtures/install/gemini_settings.json 06
copy config_load crates/hook-cli/tests/fixtures/install/codex_hooks.json 07

# j-cli HookResult: byte 0 = event (index in Event::ALL) | 0x80 for a full context.
copy hook_result "$p"/jcli/hook_result_all_fields.json 86
echo '{"action":"stop","reason":"no"}' | seed hook_result stop.json 06
echo '{"abort":true}' | seed hook_result legacy_abort.json 00
echo '{"tool_arguments":{"command":"ls"},"approved":false}' | seed hook_result tool_args.json 86
echo '{"messages":[{"role":"system","content":"x"}],"inject_messages":[],"unknown":1}' | seed hook_result messages.json 84

# Agent answers: byte 0 = agent (mod 3: 0 Claude, 1 Gemini, 2 Codex) | 0x80 full context,
# byte 1 = event, byte 2 = exit code (mod 6: 0, 1, 2, signal, -1, the byte); stdout, NUL, stderr.
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}' | seed agent_answer claude_pretool_deny.json 810600
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}' | seed agent_answer claude_pretool_update.json 810600
echo '{"decision":"block","reason":"keep going"}' | seed agent_answer claude_stop_block.json 000a00
echo '{"continue":false,"stopReason":"halt","systemMessage":"bye"}' | seed agent_answer claude_continue_false.json 000200
printf 'plain context text\n' | seed agent_answer claude_session_start_text.txt 000000
printf '\0blocked by policy\n' | seed agent_answer claude_exit2_stderr.txt 810602
echo '{"decision":"deny","reason":"no","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"ls"}}}' | seed agent_answer gemini_beforetool.json 010600
echo '{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"note"}}' | seed agent_answer gemini_aftertool.json 820800
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"x"}}' | seed agent_answer codex_pretool.json 020600
printf 'not json {\0oops\n' | seed agent_answer codex_garbage.txt 020101

# Agent hook inputs: byte 0 = agent (mod 3).
echo '{"session_id":"s","transcript_path":"/tmp/t.jsonl","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"t1"}' | seed agent_input claude_pretooluse.json 00
echo '{"session_id":"s","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"hi"}' | seed agent_input claude_prompt.json 00
echo '{"session_id":"s","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"a"},"tool_response":{"ok":true}}' | seed agent_input claude_posttooluse.json 00
echo '{"session_id":"s","cwd":"/w","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"},"timestamp":"2026-01-01T00:00:00Z"}' | seed agent_input gemini_beforetool.json 01
echo '{"session_id":"s","cwd":"/w","hook_event_name":"Stop","stop_hook_active":false,"model":"gpt-5","turn_id":"t"}' | seed agent_input codex_stop.json 02

# JSON-RPC lines and PicoClaw params and results.
for f in "$p"/protocol/*.json "$p"/protocol/flow.jsonl "$p"/plugin/respond_format.json "$p"/plugin/weather_respond_beijing.json; do
    copy jsonrpc "$f"
done

# A model's replies to an llm hook.
copy llm_extract "$p"/jcli/hook_result_all_fields.json
printf 'Here is my verdict:\n```json\n{"action":"stop","reason":"unsafe"}\n```\n' | seed llm_extract fenced.txt
printf 'Sure. {"user_input":"rewritten"} Hope that helps {"x":1}' | seed llm_extract prose.txt
printf '{}' | seed llm_extract empty_object.txt
printf '```\n{"approved": true,\n "reason": "fine"}\n```' | seed llm_extract fence_no_lang.txt

# Prompt templates: byte 0 = event | 0x80 full context.
printf 'Review {{tool_name}} {{tool_arguments}} in {{cwd}} for {{session_id}}; result {{tool_result}} {{tool_error}}' | seed template tool.txt 86
printf '{{event}}: {{user_input}} / {{assistant_output}} / {{model}} / {{system_prompt}} {{unknown}} {{ {{' | seed template all.txt 82
printf 'no placeholders at all' | seed template plain.txt 00
copy template "$p"/jcli/example2_review.yaml 85

# Matchers: line 1 = pattern (and if rule), further lines = names to test.
printf 'Bash' | seed matcher exact.txt
printf 'Edit|Write|MultiEdit\nEdit' | seed matcher alternation.txt
printf 'mcp__.*__create.*\nmcp__github__create_issue' | seed matcher regex.txt
printf '*' | seed matcher star.txt
printf 'Bash(git push *)\ngit push origin main' | seed matcher if_bash.txt
printf 'Read(./secrets/**)\n./secrets/key.pem' | seed matcher if_read.txt
printf 'WebFetch(domain:example.com)' | seed matcher if_domain.txt
printf '(unclosed[\nx' | seed matcher bad_regex.txt
printf 'run_shell_command|write_file' | seed matcher gemini.txt

# hook-shell: command lines, the shapes its grammar and its walks take.
printf 'sudo FOO=1 '"'"'r'"'"'m -rf build && echo "$(git log)" `ls` | tee log 2>&1' | seed shell lists.txt
printf 'bash <<'"'"'EOF'"'"'\ncd hooks && ./check.sh\nEOF\ncat <<X\n$(id)\nX\n' | seed shell heredoc.txt
printf 'case $x in a) rm -rf a;; *) f() { ( ( ls ) ); }; esac; for i in $(seq 3); do eval "echo $i"; done' | seed shell compound.txt
printf 'echo ${X:-$(rm -rf ~)} $(( $(id -u) + 1 )) $'"'"'\x72m'"'"' <(ls) [[ -n $(whoami) ]]' | seed shell expansions.txt
printf 'sh -c "bash -c '"'"'env -S \"rm -rf ~\"'"'"'"; find . -exec rm {} \\; ; python3 -m pkg.tool' | seed shell nested.txt
printf 'echo $($($(x' | seed shell unclosed.txt

echo "seeds: $(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1)"
