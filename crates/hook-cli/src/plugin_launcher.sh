#!/bin/sh
# hookwire plugin launcher, written by `hookwire plugin build` (regenerate it, do not edit it).
#
#   hookwire-hook AGENT [ARGS...]   runs `hookwire hook AGENT ARGS...` with the hookwire on PATH.
#
# When no hookwire is on PATH it answers the agent itself, so that the plugin never fails
# silently: a tool call is denied with the reason (the hooks hookwire would run may be guards),
# and every other event gets a message for the user and lets the agent go on.

if command -v hookwire >/dev/null 2>&1; then
    exec hookwire hook "$@"
fi

agent=$1
event=
# Copilot names the event on the command line: its input carries no event name.
while [ "$#" -gt 0 ]; do
    case $1 in
        --event=*) event=${1#--event=} ;;
        --event) if [ "$#" -ge 2 ]; then event=$2; shift; fi ;;
    esac
    shift
done
payload=$(cat)
if [ -z "$event" ]; then
    event=$(printf '%s\n' "$payload" | sed -n 's/.*"hook_event_name"[[:space:]]*:[[:space:]]*"\([A-Za-z]*\)".*/\1/p' | head -n 1)
fi

case $agent in
    claude) disable='claude plugin disable hookwire@hookwire' ;;
    gemini) disable='gemini extensions disable hookwire' ;;
    codex) disable='codex plugin remove hookwire@hookwire' ;;
    copilot) disable='copilot plugin disable hookwire@hookwire' ;;
    *)
        echo "hookwire-hook: unknown agent '$agent' (claude, gemini, codex or copilot), and hookwire is not installed" >&2
        exit 1
        ;;
esac
# No double quote or backslash in it: it goes into JSON strings as it is.
message="hookwire is not installed (no hookwire command on PATH), so the hooks of the hookwire plugin, guards included, are not running. Install hookwire (cargo install hook-cli) and put it on PATH, or disable the plugin: $disable"

case $agent:$event in
    claude:PreToolUse | codex:PreToolUse)
        printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "%s"}, "systemMessage": "%s"}\n' "$message" "$message"
        ;;
    gemini:BeforeTool)
        printf '{"decision": "deny", "reason": "%s", "systemMessage": "%s"}\n' "$message" "$message"
        ;;
    copilot:preToolUse)
        printf '{"permissionDecision": "deny", "permissionDecisionReason": "%s"}\n' "$message"
        ;;
    copilot:sessionStart | copilot:userPromptSubmitted)
        # Copilot shows a hook no message of its own: the model is told, and tells the user.
        printf '{"additionalContext": "%s"}\n' "$message"
        ;;
    copilot:*)
        printf '%s\n' "$message" >&2
        ;;
    *)
        printf '{"systemMessage": "%s"}\n' "$message"
        ;;
esac
exit 0
