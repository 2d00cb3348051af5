#!/usr/bin/env python3
"""Keystrokes on loaded searches, for a callgrind count of instructions per keystroke
(loaded_instructions.sh): SESSIONS sessions, each with one search page loaded from the embedded fake upstream,
then ROUNDS `search/text` commands each, one at a time on one keep-alive connection (no streams). Traffic
only to 127.0.0.1.

Usage: loaded_keystrokes.py PORT SESSIONS ROUNDS
"""

import http.client
import json
import sys


def main() -> None:
    port, sessions, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def post(path: str, body: object = None, headers: dict[str, str] | None = None) -> object:
        data = json.dumps(body) if body is not None else ""
        connection.request("POST", path, data, {"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        text = response.read()
        if response.status not in (200, 201):
            raise SystemExit(f"{path}: {response.status} {text[:200]!r}")
        return json.loads(text) if text else None

    ids = [post("/v1/sessions")["id"] for _ in range(sessions)]
    for session in ids:
        post(f"/v1/sessions/{session}/search/execute", {"text": "kittens"}, {"Prefer": "wait=30"})
    for round_number in range(rounds):
        for session in ids:
            post(f"/v1/sessions/{session}/search/text", {"text": f"kittens {round_number}"})
    print(f"sessions: {len(ids)} keystrokes: {len(ids) * rounds}")


if __name__ == "__main__":
    main()
