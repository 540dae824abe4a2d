#!/usr/bin/env bash
# Install the pinned real agents (Claude Code, Codex CLI, Gemini CLI, GitHub Copilot CLI) from the
# npm registry.
#
#   tests/agents/install.sh [DIR]
#
# DIR defaults to ${CARGO_TARGET_DIR:-<repo>/target}/agents. Each agent goes to DIR/<agent>
# (npm install --prefix DIR/<agent> <pkg>@<version>). Idempotent: an agent whose binary already
# answers --version with the pinned version is skipped. Prints the four binary paths at the end
# (lines "claude=PATH", "codex=PATH", "gemini=PATH", "copilot=PATH").
#
# Copilot CLI's native binary unpacks itself (~235 MB) into $XDG_CACHE_HOME/copilot/pkg on its
# first run; every run here (this script's version check and run_agent.py) points XDG_CACHE_HOME
# at the one shared DIR/copilot-cache, so that happens once per agents dir, not once per run.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
if [[ $# -ge 1 && -n "$1" ]]; then
  dir="$1"
else
  tgt="${CARGO_TARGET_DIR:-$repo/target}"
  dir="$tgt/agents"
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

CLAUDE_VERSION=2.1.328
CODEX_VERSION=0.169.0
GEMINI_VERSION=0.61.0
COPILOT_VERSION=1.0.102

claude_bin="$dir/claude/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
codex_bin="$dir/codex/node_modules/@openai/codex/bin/codex.js"
gemini_bin="$dir/gemini/node_modules/@google/gemini-cli/bundle/gemini.js"
# the node launcher; it starts the native binary of @github/copilot-<platform>
copilot_bin="$dir/copilot/node_modules/@github/copilot/npm-loader.js"
copilot_cache="$dir/copilot-cache"

# version_ok BIN VERSION: the binary runs and its --version output mentions VERSION.
version_ok() {
  local bin="$1" want="$2" out
  [[ -e "$bin" ]] || return 1
  local run=(env HOME="$dir/.vhome" XDG_CACHE_HOME="$copilot_cache" COPILOT_AUTO_UPDATE=false timeout 60)
  if [[ "$bin" == *.js ]]; then
    out="$("${run[@]}" node "$bin" --version </dev/null 2>/dev/null)" || return 1
  else
    out="$("${run[@]}" "$bin" --version </dev/null 2>/dev/null)" || return 1
  fi
  [[ "$out" == *"$want"* ]]
}

install_one() {
  local name="$1" pkg="$2" version="$3" bin="$4"; shift 4
  if version_ok "$bin" "$version"; then
    echo "[install] $name $version already installed" >&2
    return 0
  fi
  echo "[install] npm install --prefix $dir/$name $pkg@$version $*" >&2
  local t0=$SECONDS
  mkdir -p "$dir/$name"
  npm install --prefix "$dir/$name" --no-audit --no-fund --loglevel=error \
    "$@" "$pkg@$version" </dev/null >&2
  if ! version_ok "$bin" "$version"; then
    echo "[install] ERROR: $name installed but '$bin --version' does not report $version" >&2
    return 1
  fi
  echo "[install] $name $version installed in $((SECONDS - t0))s" >&2
}

mkdir -p "$dir/.vhome" "$copilot_cache"
# Claude Code: the native binary is in the platform package; the wrapper's postinstall is not needed.
install_one claude @anthropic-ai/claude-code "$CLAUDE_VERSION" "$claude_bin" --ignore-scripts
install_one codex @openai/codex "$CODEX_VERSION" "$codex_bin"
install_one gemini @google/gemini-cli "$GEMINI_VERSION" "$gemini_bin"
install_one copilot @github/copilot "$COPILOT_VERSION" "$copilot_bin"

echo "claude=$claude_bin"
echo "codex=$codex_bin"
echo "gemini=$gemini_bin"
echo "copilot=$copilot_bin"
