"""Drives the manage_files example under `--read-only` with the official Python
MCP SDK, in both eras.

Usage: profile.py <server-binary> <schemas-dir>

The listing keeps `read` alone, listed read-only with an `inputSchema` whose
action enum is `["read"]`; a read runs; an append is refused with an `isError`
result naming the profile and the hint, and the file is left as it was; a
resolution of an append is refused with -32602. Every raw result is validated
against the vendored schemas. Ends with the line `profile: N passed, N failed`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import anyio

from common import (
    EXTENSION,
    HINTS,
    MODERN,
    RAW,
    Checks,
    ResolveParams,
    ResolveRequest,
    Schemas,
    expect,
    expect_error,
)
from mcp import Client, StdioServerParameters, types
from mcp.client import advertise

REFUSAL = (
    "refused: this call of `manage_files` is outside the server's profile `read_only`: "
    "readOnlyHint is false, and read_only needs true"
)


class Run(Checks):
    def __init__(self, binary: str, schemas: Schemas) -> None:
        super().__init__()
        self.sandbox = Path(tempfile.mkdtemp(prefix="annot-profile-"))
        (self.sandbox / "notes.txt").write_text("hello\n")
        self.server = StdioServerParameters(command=binary, args=["--read-only", str(self.sandbox)])
        self.schemas = schemas

    async def run(self, mode: str, validate, extensions) -> None:
        options = {"extensions": extensions} if extensions else {}
        async with Client(self.server, mode=mode, **options) as client:
            async def listing() -> None:
                raw = await client.session.send_request(types.ListToolsRequest(), RAW)
                validate("ListToolsResult", raw)
                # `manage_files` narrowed to its read, and the read-only `stat_file`.
                expect([tool["name"] for tool in raw["tools"]] == ["manage_files", "stat_file"], f"{raw}")
                tool = raw["tools"][0]
                expect(tool["inputSchema"]["properties"]["action"]["enum"] == ["read"], f"{tool}")
                hints = tuple(tool["annotations"][hint] for hint in HINTS)
                expect(hints == (True, False, True, False), f"{tool}")

            async def read() -> None:
                raw = await self.call(client, {"action": "read", "path": "notes.txt"}, validate)
                expect(not raw.get("isError") and raw["content"][0]["text"] == "hello\n", f"{raw}")

            async def append_refused() -> None:
                arguments = {"action": "append", "path": "notes.txt", "content": "more\n"}
                raw = await self.call(client, arguments, validate)
                expect(raw.get("isError") is True and raw["content"][0]["text"] == REFUSAL, f"{raw}")
                expect((self.sandbox / "notes.txt").read_text() == "hello\n", "the handler ran")

            async def resolution_refused() -> None:
                arguments = {"action": "delete", "path": "notes.txt"}
                request = ResolveRequest(params=ResolveParams(name="manage_files", arguments=arguments))
                error = await expect_error(client.session.send_request(request, RAW), -32602)
                expect("`read_only`" in error.message, error.message)

            await self.check(f"profile {mode}: tools/list keeps read alone, read-only", listing)
            await self.check(f"profile {mode}: a read runs", read)
            await self.check(f"profile {mode}: an append is refused, the handler never runs", append_refused)
            await self.check(f"profile {mode}: a delete's resolution is refused (-32602)", resolution_refused)

    async def call(self, client: Client, arguments, validate) -> dict:
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name="manage_files", arguments=arguments)
        )
        raw = await client.session.send_request(request, RAW)
        validate("CallToolResult", raw)
        return raw


async def main() -> int:
    binary, schemas = sys.argv[1], Schemas(Path(sys.argv[2]))
    run = Run(binary, schemas)
    try:
        await run.run("legacy", schemas.mcp_def, [])
        await run.run(MODERN, schemas.mcp_2026_def, [advertise(EXTENSION)])
    finally:
        shutil.rmtree(run.sandbox, ignore_errors=True)
    print(f"profile: {run.passed} passed, {run.failed} failed")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
