#!/bin/sh
# The j-cli seed's example 4, for hookwire's `bash` tool: skip `rm -rf`, allow the rest.
input=$(cat)
tool=$(printf '%s' "$input" | python3 -c "import sys,json; print(json.load(sys.stdin).get('tool_name',''))")
args=$(printf '%s' "$input" | python3 -c "import sys,json; print(json.load(sys.stdin).get('tool_arguments',''))")
if [ "$tool" = "bash" ] && printf '%s' "$args" | grep -q "rm -rf"; then
  echo '{"action": "skip", "system_message": "no-rm-rf: skipped a recursive delete"}'
else
  echo '{}'
fi
