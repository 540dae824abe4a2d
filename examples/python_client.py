#!/usr/bin/env python3
"""Fire hookwire events from Python through the project's daemon (`hookwire serve`).

    python3 python_client.py EVENT [CONTEXT_JSON | -]

prints the outcome: the JSON object `hookwire fire EVENT --format json` prints. Standard library
only; copy `HookwireClient` into an agent and call `fire` at each point of its life. The daemon
keeps the configured hooks (and their processes) running between calls; this client starts it
when none runs. Set HOOKWIRE to the hookwire executable when it is not on PATH.
"""
import json
import os
import socket
import subprocess
import sys
import time


class HookwireError(Exception):
    """The daemon answered a call with an error."""


class HookwireClient:
    """One connection to the daemon of the project of `cwd`."""

    def __init__(self, hookwire=None, cwd=None, start_timeout=5.0):
        self.hookwire = hookwire or os.environ.get("HOOKWIRE", "hookwire")
        self.cwd = cwd or os.getcwd()
        # hookwire knows where the project's daemon listens.
        self.path = subprocess.run(
            [self.hookwire, "serve", "--print-socket"], cwd=self.cwd, check=True, capture_output=True, text=True
        ).stdout.strip()
        self.sock = self._connect(start_timeout)
        self.stream = self.sock.makefile("rwb")
        self.next_id = 1

    def _open(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.path)
        except OSError:
            sock.close()
            raise
        return sock

    def _connect(self, start_timeout):
        try:
            return self._open()
        except OSError:
            pass
        # No daemon yet: start one, detached from this process, and wait for its socket.
        subprocess.Popen(
            [self.hookwire, "serve"],
            cwd=self.cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + start_timeout
        while True:
            try:
                return self._open()
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def call(self, method, params=None):
        """One JSON-RPC request; returns its result."""
        request_id = self.next_id
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}
        self.stream.write(json.dumps(request).encode("utf-8") + b"\n")
        self.stream.flush()
        line = self.stream.readline()
        if not line:
            raise ConnectionError("the hookwire daemon closed the connection")
        answer = json.loads(line)
        if "error" in answer:
            error = answer["error"]
            raise HookwireError(f"{error.get('message')} (code {error.get('code')})")
        return answer["result"]

    def fire(self, event, context=None):
        """Fires `event` with `context` (HookContext fields) and returns the outcome."""
        return self.call("fire", {"event": event, "context": context or {}, "cwd": self.cwd})

    def close(self):
        self.stream.close()
        self.sock.close()


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    text = argv[2] if len(argv) > 2 else "{}"
    context = json.loads(sys.stdin.read() if text == "-" else text)
    client = HookwireClient()
    try:
        print(json.dumps(client.fire(argv[1], context)))
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
