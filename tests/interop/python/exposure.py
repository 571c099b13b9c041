"""Drives per-action exposure (`--exposure auto`) with the official Python MCP
SDK: the manage_files example over stdio (the built-in server), in both eras,
and examples/rmcp_server over rmcp's Streamable HTTP.

Usage: exposure.py <rmcp_server-binary> <manage_files-binary> <schemas-dir>

A client that does not advertise the tool-resolution extension is listed the
four per-action tools (`manage_files_read`, ...), `read` alone read-only and
none with the `action` field; a per-action call works, reaching the same
handler as a call of `manage_files` with the action; a per-action call that
names the action is refused. A client that advertises the extension is listed
the one resolvable `manage_files`. Every raw result is validated against the
vendored schemas. Ends with the line `exposure: N passed, N failed`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from jsonschema import Draft202012Validator

from common import EXTENSION, MODERN, RAW, Checks, Schemas, expect
from mcp import Client, StdioServerParameters, types
from mcp.client import advertise
from mcp.shared.exceptions import MCPError

PER_ACTION = ["manage_files_read", "manage_files_append", "manage_files_replace", "manage_files_delete"]
# The tool of one action beside them, with a declared output type.
STAT = "stat_file"


class Run(Checks):
    def __init__(self, schemas: Schemas) -> None:
        super().__init__()
        self.schemas = schemas

    async def exercise(self, label: str, connect, validate, sandbox: Path) -> None:
        async with connect(False) as client:

            async def per_action_listing() -> None:
                raw = await client.session.send_request(types.ListToolsRequest(), RAW)
                validate("ListToolsResult", raw)
                names = [tool["name"] for tool in raw["tools"]]
                expect(names == PER_ACTION + [STAT], f"{names}")
                read_only = [tool["name"] for tool in raw["tools"] if tool["annotations"].get("readOnlyHint") is True]
                expect(read_only == ["manage_files_read", STAT], f"{read_only}")
                for tool in raw["tools"]:
                    expect("action" not in tool["inputSchema"].get("properties", {}), f"{tool}")
                    expect("action" not in tool["inputSchema"].get("required", []), f"{tool}")

            async def per_action_calls() -> None:
                appended = await self.call(client, "manage_files_append",
                                           {"path": "notes.txt", "content": "per action\n"}, validate)
                expect(not appended.get("isError"), f"{appended}")
                read = await self.call(client, "manage_files_read", {"path": "notes.txt"}, validate)
                expect(read["content"][0]["text"] == "hello\nper action\n", f"{read}")
                expect((sandbox / "notes.txt").read_text() == "hello\nper action\n", "the file")
                same = await self.call(client, "manage_files", {"action": "read", "path": "notes.txt"}, validate)
                expect(same["content"] == read["content"], f"{same}")

            async def structured_output() -> None:
                listed = await client.list_tools()
                tool = next(tool for tool in listed.tools if tool.name == STAT)
                expect(tool.output_schema is not None and tool.output_schema["type"] == "object", f"{tool}")
                # The SDK validates structuredContent against the listed
                # outputSchema, and raises when it does not fit.
                result = await client.call_tool(STAT, {"path": "notes.txt"})
                expect(not result.is_error, f"{result}")
                text = (sandbox / "notes.txt").read_text()
                stats = {"path": "notes.txt", "bytes": len(text.encode()), "lines": len(text.splitlines())}
                expect(result.structured_content == stats, f"{result.structured_content}")
                Draft202012Validator(tool.output_schema).validate(result.structured_content)
                expect(json.loads(result.content[0].text) == stats, f"{result.content}")
                raw = await self.call(client, STAT, {"path": "notes.txt"}, validate)
                expect(raw["structuredContent"] == stats, f"{raw}")

            async def discriminator_refused() -> None:
                arguments = {"action": "delete", "path": "notes.txt"}
                try:
                    raw = await self.call(client, "manage_files_read", arguments, validate)
                except MCPError as error:  # before 2025-11-25: -32602
                    expect(error.code == -32602, f"{error.code} {error.message}")
                else:
                    expect(raw.get("isError") is True, f"{raw}")
                    expect("leave `action` out" in raw["content"][0]["text"], f"{raw}")
                expect((sandbox / "notes.txt").exists(), "the file was deleted")

            await self.check(f"exposure {label}: per-action tools without tool resolution", per_action_listing)
            await self.check(f"exposure {label}: per-action calls reach the handler", per_action_calls)
            await self.check(f"exposure {label}: stat_file's structuredContent fits its outputSchema",
                             structured_output)
            await self.check(f"exposure {label}: a per-action call naming the action is refused",
                             discriminator_refused)

        async with connect(True) as client:

            async def resolvable_listing() -> None:
                raw = await client.session.send_request(types.ListToolsRequest(), RAW)
                validate("ListToolsResult", raw)
                names = [tool["name"] for tool in raw["tools"]]
                expect(names == ["manage_files", STAT], f"{names}")

            await self.check(f"exposure {label}: one resolvable manage_files with tool resolution",
                             resolvable_listing)

    async def call(self, client: Client, name: str, arguments: dict[str, Any], validate) -> dict[str, Any]:
        request = types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=arguments))
        raw = await client.session.send_request(request, RAW)
        validate("CallToolResult", raw)
        return raw


def fresh_sandbox(prefix: str) -> Path:
    sandbox = Path(tempfile.mkdtemp(prefix=prefix))
    (sandbox / "notes.txt").write_text("hello\n")
    return sandbox


async def main() -> int:
    rmcp_binary, binary, schemas = sys.argv[1], sys.argv[2], Schemas(Path(sys.argv[3]))
    run = Run(schemas)
    sandboxes: list[Path] = []
    server: subprocess.Popen[str] | None = None
    try:
        for mode, validate in (("legacy", schemas.mcp_def), (MODERN, schemas.mcp_2026_def)):
            sandbox = fresh_sandbox("annot-exposure-")
            sandboxes.append(sandbox)
            parameters = StdioServerParameters(command=binary, args=["--exposure", "auto", str(sandbox)])

            def stdio(extension: bool, parameters=parameters, mode=mode) -> Client:
                return Client(parameters, mode=mode, extensions=[advertise(EXTENSION)] if extension else None)

            await run.exercise(f"stdio {mode}", stdio, validate, sandbox)

        # examples/rmcp_server over Streamable HTTP: the first stdout line is its URL.
        root = fresh_sandbox("annot-exposure-rmcp-")
        sandboxes.append(root)
        server = subprocess.Popen(
            [rmcp_binary, "--http", "127.0.0.1:0", "--root", str(root), "--exposure", "auto"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        expect(url.startswith("http://"), f"rmcp_server printed {url!r}")

        def http(extension: bool) -> Client:
            return Client(url, mode="legacy", extensions=[advertise(EXTENSION)] if extension else None)

        await run.exercise("rmcp Streamable HTTP", http, schemas.mcp_def, root)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        for sandbox in sandboxes:
            shutil.rmtree(sandbox, ignore_errors=True)
    print(f"exposure: {run.passed} passed, {run.failed} failed")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
