#!/usr/bin/env python3
"""Walks each screen once on a running vmhost, as its web client does: a search, the counts of the photos in
view, a photo opened (detail and comments) and closed, the product list refreshed; each step waits for its
loads (`Prefer: wait=30`). For scripts/generate-link-order, whose profile should cover every view model.
Exits non-zero when a step does not answer as API.md says.

Usage: screens.py PORT
Only 127.0.0.1 is contacted. No third-party modules.
"""
import asyncio
import json
import sys

from loopback import request


async def main():
    port = int(sys.argv[1])
    wait = {"Prefer": "wait=30"}
    status, body = await request(port, "POST", "/v1/sessions")
    if status != 201:
        sys.exit(f"screens: create answered {status}")
    base = f"/v1/sessions/{json.loads(body)['id']}"
    status, body = await request(port, "POST", f"{base}/search/execute", {"text": "kittens"}, wait)
    if status != 200:
        sys.exit(f"screens: search/execute answered {status}")
    photos = json.loads(body)["results"]["value"]["photos"]
    if not photos:
        sys.exit("screens: the search found no photos")
    ids = [photo["id"] for photo in photos[:10]]
    steps = [
        ("search/visible", {"photoIds": ids}),
        ("photo/open", {"photoId": ids[0]}),
        ("photo/close", None),
        ("products/refresh", None),
    ]
    for command, payload in steps:
        status, _ = await request(port, "POST", f"{base}/{command}", payload, wait)
        if status not in (200, 202):
            sys.exit(f"screens: {command} answered {status}")
    for view_model in ("search", "photo", "products"):
        status, _ = await request(port, "GET", f"{base}/{view_model}")
        if status != 200:
            sys.exit(f"screens: GET {view_model} answered {status}")


if __name__ == "__main__":
    asyncio.run(main())
