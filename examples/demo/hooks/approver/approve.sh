#!/bin/sh
input=$(cat)
tool=$(printf '%s' "$input" | python3 -c "import sys,json; print(json.load(sys.stdin).get('tool_name',''))")
if [ "$tool" = "write_file" ]; then
  echo '{"approved": false, "reason": "writing files needs a person at the keyboard"}'
else
  echo '{"approved": true}'
fi
