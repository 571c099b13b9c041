"""Drives examples/rmcp_axum (an rmcp server in an axum router, with the
annotated `notes` beside its own `count_notes`) over rmcp's Streamable HTTP
with the official Python MCP SDK.

Usage: axum.py <rmcp_axum-binary> <schemas-dir>

`GET /health` answers beside MCP; `tools/list` lists `notes` with its lifted
markers, then the router's `count_notes`; `tools/resolve` gives a write of a
note its destructive hints and a read its read-only ones; calls of both tools
share the server's notes. Every raw result is validated against the vendored
schema. Ends with the line `axum: N passed, N failed`.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import anyio

from common import RAW, Checks, ResolveParams, ResolveRequest, Schemas, expect
from mcp import Client, types


class Run(Checks):
    def __init__(self, url: str, schemas: Schemas) -> None:
        super().__init__()
        self.url = url
        self.schemas = schemas

    async def health(self) -> None:
        def get() -> tuple[int, str]:
            health = self.url.removesuffix("/mcp") + "/health"
            with urllib.request.urlopen(health, timeout=10) as response:
                return response.status, response.read().decode()

        status, body = await anyio.to_thread.run_sync(get)
        expect((status, body) == (200, "ok"), f"{status} {body!r}")

    async def listing(self, client: Client) -> None:
        raw = await client.session.send_request(types.ListToolsRequest(), RAW)
        self.schemas.mcp_def("ListToolsResult", raw)
        names = [tool["name"] for tool in raw["tools"]]
        expect(names == ["notes", "count_notes"], f"{names}")
        notes, count = raw["tools"]
        expect(notes.get("resolve") is True and notes.get("dynamicAnnotations") is True, f"{notes}")
        expect(notes["annotations"].get("readOnlyHint") is False, f"{notes}")
        expect(count["annotations"].get("readOnlyHint") is True, f"{count}")

    async def resolve(self, client: Client) -> None:
        async def resolved(arguments: dict[str, Any]) -> dict[str, Any]:
            request = ResolveRequest(params=ResolveParams(name="notes", arguments=arguments))
            raw = await client.session.send_request(request, RAW)
            self.schemas.mcp_def("Tool", raw["tool"])
            return raw["tool"]["annotations"]

        write = await resolved({"action": "write", "title": "a", "text": "x"})
        expect(write.get("destructiveHint") is True and write.get("readOnlyHint") is False, f"{write}")
        read = await resolved({"action": "read", "title": "a"})
        expect(read.get("readOnlyHint") is True, f"{read}")

    async def calls(self, client: Client) -> None:
        async def call(name: str, arguments: dict[str, Any]) -> str:
            request = types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=arguments))
            raw = await client.session.send_request(request, RAW)
            self.schemas.mcp_def("CallToolResult", raw)
            expect(not raw.get("isError"), f"{name}: {raw}")
            return raw["content"][0]["text"]

        before = int(await call("count_notes", {}))
        wrote = await call("notes", {"action": "write", "title": "python", "text": "from the SDK"})
        expect(wrote == "wrote `python`", wrote)
        text = await call("notes", {"action": "read", "title": "python"})
        expect(text == "from the SDK", text)
        after = int(await call("count_notes", {}))
        expect(after == before + 1, f"count_notes: {before} then {after}")


async def main() -> int:
    binary, schemas = sys.argv[1], Schemas(Path(sys.argv[2]))
    server = subprocess.Popen([binary, "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        run = Run(url, schemas)
        await run.check("axum: GET /health answers beside MCP", run.health)
        async with Client(url, mode="legacy") as client:
            await run.check("axum: tools/list lists notes, lifted, then the router's count_notes",
                            lambda: run.listing(client))
            await run.check("axum: tools/resolve of notes per call", lambda: run.resolve(client))
            await run.check("axum: notes and count_notes share the server's state", lambda: run.calls(client))
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"axum: {run.passed} passed, {run.failed} failed")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
