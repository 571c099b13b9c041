"""Drives the manage_files example server with the official Python MCP SDK.

Usage: client.py <server-binary> <schemas-dir>

Launches the server over stdio with a fresh sandbox directory, runs every
method through `mcp.ClientSession` (custom methods through `send_request` with
this file's own result models), validates every raw result against the
vendored JSON Schemas, checks every resolution against the conservative bound,
and ends with the line `python: N passed, N failed`. Exits 1 on any failure.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from jsonschema import Draft202012Validator

from mcp import Client, ClientSession, StdioServerParameters, types
from mcp.client import advertise
from mcp.client.stdio import stdio_client

from common import (
    CLIENT_CAPABILITIES,
    EXTENSION,
    HINTS,
    MODERN,
    RAW,
    SERVER_INFO,
    TABLE,
    AnnotationsRequest,
    AnnotationsResult,
    Checks,
    ExtensionResolveResult,
    ResolvedToolResult,
    ResolveParams,
    ResolveRequest,
    Schemas,
    arguments,
    check_bound,
    effective,
    expect,
    expect_error,
)


# The example's tools: `manage_files`, and `stat_file` with its declared output.
TOOLS = ["manage_files", "stat_file"]


class Tap:
    """Wraps the transport's read stream and keeps every message the server
    sends, dumped back to JSON before the session layer sees it."""

    def __init__(self, stream: Any, received: list[dict[str, Any]]) -> None:
        self.stream = stream
        self.received = received

    def _keep(self, item: Any) -> Any:
        message = getattr(item, "message", None)
        if message is not None:
            self.received.append(message.model_dump(by_alias=True, mode="json", exclude_none=True))
        return item

    async def receive(self) -> Any:
        return self._keep(await self.stream.receive())

    async def aclose(self) -> None:
        await self.stream.aclose()

    def __aiter__(self) -> Tap:
        return self

    async def __anext__(self) -> Any:
        return self._keep(await self.stream.__anext__())

    async def __aenter__(self) -> Tap:
        await self.stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self.stream.__aexit__(*exc)


# --- The run ------------------------------------------------------------------


class Run(Checks):
    def __init__(self, binary: str, schemas: Schemas) -> None:
        super().__init__()
        self.binary = binary
        self.schemas = schemas
        self.root = Path(tempfile.mkdtemp(prefix="annot-interop-"))
        self.sandbox = self.root / "sandbox"
        self.sandbox.mkdir()
        (self.root / "outside.txt").write_text("not yours\n")
        os.symlink(self.root / "outside.txt", self.sandbox / "escape")
        self.static: dict[str, Any] = {}
        self.received: list[dict[str, Any]] = []

    def server(self) -> StdioServerParameters:
        return StdioServerParameters(command=self.binary, args=[str(self.sandbox)])

    async def resolve_raw(self, session: ClientSession, request: Any) -> dict[str, Any]:
        return await session.send_request(request, RAW)

    async def plain_session(self) -> None:
        async with stdio_client(self.server()) as (read, write):
            async with ClientSession(Tap(read, self.received), write) as session:
                await self.check("server/discover (raw, not adopted) and -32022",
                                 lambda: self.discover_raw(session))
                await self.check("initialize", lambda: self.initialize(session))
                await self.check("ping", lambda: self.ping(session))
                await self.check("tools/list", lambda: self.list_tools(session))
                await self.check("tools/call reads and writes the sandbox", lambda: self.calls(session))
                await self.check("stat_file: outputSchema listed, structuredContent validated by the SDK",
                                 lambda: self.structured(session))
                await self.check("tools/call refuses escapes", lambda: self.escapes(session))
                await self.check("tools/call reports invalid arguments as a tool error",
                                 lambda: self.invalid_call(session))
                await self.check("tools/annotations (dialect A)", lambda: self.dialect_a(session))
                await self.check("tools/resolve without the extension (dialect B)",
                                 lambda: self.dialect_b(session))
                await self.check("tools/resolve with per-request capabilities (dialect C)",
                                 lambda: self.dialect_c_per_request(session))
                await self.check("a rule on the path refines the resolution", lambda: self.rule(session))
                await self.check("protocol errors", lambda: self.errors(session))

    async def auto_client(self) -> None:
        """The high-level `mcp.Client` probes `server/discover` first (its default
        `auto` mode) and settles on 2026-07-28, which the server offers; the
        legacy mode still gets the handshake."""

        async def body() -> None:
            started = anyio.current_time()
            async with Client(self.server()) as client:
                expect(client.protocol_version == MODERN, f"{client.protocol_version}")
                listed = await client.list_tools()
                expect([tool.name for tool in listed.tools] == TOOLS, f"{listed}")
            async with Client(self.server(), mode="legacy") as client:
                expect(client.protocol_version == "2025-11-25", f"{client.protocol_version}")
                listed = await client.list_tools()
                expect([tool.name for tool in listed.tools] == TOOLS, f"{listed}")
            elapsed = anyio.current_time() - started
            expect(elapsed < 10, f"connecting took {elapsed:.1f} s")

        await self.check("mcp.Client auto mode discovers 2026-07-28; legacy mode initializes", body)

    def modern(self, extension: bool) -> Client:
        return Client(
            self.server(),
            mode=MODERN,
            extensions=[advertise(EXTENSION)] if extension else None,
            client_info=types.Implementation(name="annot-interop-python", version="1"),
        )

    def check_modern_result(self, raw: dict[str, Any]) -> None:
        expect(raw["resultType"] == "complete", f"resultType: {raw}")
        expect(raw["_meta"][SERVER_INFO]["name"] == "annot-manage-files", f"serverInfo: {raw}")

    async def modern_sessions(self) -> None:
        """`mcp.Client(..., mode="2026-07-28")`: no handshake; the SDK stamps
        every request's `_meta` with its version, identity and capabilities
        (with the extension or without, per client)."""
        async with self.modern(extension=True) as client:
            await self.check("2026-07-28: tools/list (typed, and raw against the 2026-07-28 schema)",
                             lambda: self.modern_list(client, extension=True))
            await self.check("2026-07-28: tools/call", lambda: self.modern_call(client))
            await self.check("2026-07-28: tools/resolve with per-request capabilities",
                             lambda: self.modern_resolve(client))
        async with self.modern(extension=False) as client:
            await self.check("2026-07-28 without the extension: no marker",
                             lambda: self.modern_list(client, extension=False))
            await self.check("2026-07-28 without the extension: tools/resolve gets -32021",
                             lambda: self.modern_missing_capability(client))

    async def modern_list(self, client: Client, extension: bool) -> None:
        typed = await client.list_tools(cache_mode="bypass")
        expect([tool.name for tool in typed.tools] == TOOLS, f"{typed}")
        raw = await client.session.send_request(types.ListToolsRequest(), RAW)
        self.schemas.mcp_2026_def("ListToolsResult", raw)
        self.check_modern_result(raw)
        expect(isinstance(raw["ttlMs"], int) and raw["ttlMs"] >= 0, f"ttlMs: {raw}")
        tool = raw["tools"][0]
        if extension:
            self.schemas.extension_def("ResolvableTool", tool)
            expect(tool["_meta"][EXTENSION] == {"resolvable": True}, f"{tool}")
        else:
            expect(EXTENSION not in tool.get("_meta", {}), f"{tool}")
            expect("resolve" not in tool, f"SEP-1862 is for handshake sessions: {tool}")
        self.static = tool["annotations"]

    async def modern_call(self, client: Client) -> None:
        file = self.sandbox / "modern.txt"
        result = await client.call_tool("manage_files", {"action": "append", "path": "modern.txt", "content": "m\n"})
        expect(not result.is_error, f"{result}")
        expect(file.read_text() == "m\n", f"on disk: {file.read_text()!r}")
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name="manage_files", arguments={"action": "read", "path": "modern.txt"})
        )
        raw = await client.session.send_request(request, RAW)
        self.schemas.mcp_2026_def("CallToolResult", raw)
        self.check_modern_result(raw)
        expect(raw["content"][0]["text"] == "m\n", f"{raw}")

    async def modern_resolve(self, client: Client) -> None:
        for action, expected in TABLE.items():
            request = ResolveRequest(params=ResolveParams(name="manage_files", arguments=arguments(action)))
            raw = await client.session.send_request(request, RAW)
            self.schemas.extension_def("ResolveToolResult", raw)
            self.schemas.mcp_2026_def("Result", raw)
            self.check_modern_result(raw)
            # The raw hints exactly: all four present, nothing normalised first.
            expect(raw["annotations"] == dict(zip(HINTS, expected)), f"{action}: {raw}")
            expect(set(raw["_meta"]) == {SERVER_INFO}, f"{action}: {raw}")
            check_bound(self.static, raw["annotations"])

    async def modern_missing_capability(self, client: Client) -> None:
        request = ResolveRequest(params=ResolveParams(name="manage_files", arguments=arguments("read")))
        error = await expect_error(client.session.send_request(request, RAW), -32021)
        required = error.error.data["requiredCapabilities"]
        expect(required == {"extensions": {EXTENSION: {}}}, f"{error.error}")

    async def extension_session(self) -> None:
        async with stdio_client(self.server()) as (read, write):
            async with ClientSession(Tap(read, self.received), write, extensions={EXTENSION: {}}) as session:
                await self.check("initialize negotiating the extension",
                                 lambda: self.initialize_extension(session))
                await self.check("tools/resolve after negotiating (dialect C)",
                                 lambda: self.dialect_c_negotiated(session))
                await self.check("dropping the extension per request gets -32021",
                                 lambda: self.missing_capability(session))

    async def every_response(self) -> None:
        expect(len(self.received) > 40, f"only {len(self.received)} messages seen")
        for message in self.received:
            self.schemas.mcp_def("JSONRPCResponse", message)

    async def discover_raw(self, session: ClientSession) -> None:
        raw = await session.send_discover(MODERN)
        self.schemas.mcp_2026_def("DiscoverResult", raw)
        expect(MODERN in raw["supportedVersions"], f"{raw}")
        expect(raw["resultType"] == "complete" and raw["cacheScope"] in ("private", "public"), f"{raw}")
        expect(raw["_meta"][SERVER_INFO]["name"] == "annot-manage-files", f"{raw}")
        error = await expect_error(session.send_discover("2099-01-01"), -32022)
        expect(error.error.data["requested"] == "2099-01-01", f"{error.error}")
        expect(MODERN in error.error.data["supported"], f"{error.error}")

    async def initialize(self, session: ClientSession) -> None:
        request = types.InitializeRequest(
            params=types.InitializeRequestParams(
                protocol_version="2025-11-25",
                capabilities=types.ClientCapabilities(),
                client_info=types.Implementation(name="annot-interop-python", version="1"),
            )
        )
        raw = await session.send_request(request, RAW)
        self.schemas.mcp_def("InitializeResult", raw)
        expect(raw["protocolVersion"] == "2025-11-25", f"version {raw['protocolVersion']}")
        tools = raw["capabilities"]["tools"]
        expect(tools == {"dynamicAnnotations": True, "resolve": True}, f"tools capability {tools}")
        expect(raw["capabilities"]["extensions"].get(EXTENSION) == {}, f"{raw['capabilities']}")
        self.schemas.extension_def("ToolResolutionServerCapabilities", raw["capabilities"])
        session.adopt(types.InitializeResult.model_validate(raw))
        await session.send_notification(types.InitializedNotification())
        expect(session.server_info.name == "annot-manage-files", f"{session.server_info}")

    async def ping(self, session: ClientSession) -> None:
        raw = await session.send_request(types.PingRequest(), RAW)
        expect(raw == {}, f"ping result {raw}")
        await session.send_ping()

    async def list_tools(self, session: ClientSession) -> None:
        raw = await session.send_request(types.ListToolsRequest(), RAW)
        self.schemas.mcp_def("ListToolsResult", raw)
        typed = await session.list_tools()
        expect([tool.name for tool in typed.tools] == TOOLS, f"{typed.tools}")
        tool = raw["tools"][0]
        expect(tool.get("dynamicAnnotations") is True, "dialect A marker")
        expect(tool.get("resolve") is True, "dialect B marker")
        # The extension's marker only for clients that advertise the extension.
        expect(EXTENSION not in tool.get("_meta", {}), f"no dialect C marker: {tool}")
        self.static = tool["annotations"]
        expect(effective(self.static) == (False, True, False, False), f"static {self.static}")

    async def call(self, session: ClientSession, arguments: dict[str, Any]) -> dict[str, Any]:
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name="manage_files", arguments=arguments)
        )
        raw = await session.send_request(request, RAW)
        self.schemas.mcp_def("CallToolResult", raw)
        return raw

    async def calls(self, session: ClientSession) -> None:
        file = self.sandbox / "notes.txt"
        result = await session.call_tool("manage_files", {"action": "append", "path": "notes.txt", "content": "one\n"})
        expect(not result.is_error, f"{result}")
        await self.call(session, {"action": "append", "path": "notes.txt", "content": "two\n"})
        expect(file.read_text() == "one\ntwo\n", f"on disk: {file.read_text()!r}")
        raw = await self.call(session, {"action": "read", "path": "notes.txt"})
        expect(raw["content"][0]["text"] == "one\ntwo\n", f"{raw}")
        await self.call(session, {"action": "replace", "path": "notes.txt", "content": "fresh\n"})
        expect(file.read_text() == "fresh\n", "replace")
        await self.call(session, {"action": "delete", "path": "notes.txt"})
        expect(not file.exists(), "delete")
        raw = await self.call(session, {"action": "read", "path": "notes.txt"})
        expect(raw.get("isError") is True, f"reading a deleted file: {raw}")

    async def structured(self, session: ClientSession) -> None:
        (self.sandbox / "stats.txt").write_text("one\ntwo\n")
        listed = await session.list_tools()
        tool = next(tool for tool in listed.tools if tool.name == "stat_file")
        expect(tool.output_schema is not None and tool.output_schema["type"] == "object", f"{tool}")
        # The SDK validates structuredContent against the listed outputSchema
        # and raises when it does not fit.
        result = await session.call_tool("stat_file", {"path": "stats.txt"})
        expect(not result.is_error, f"{result}")
        stats = {"path": "stats.txt", "bytes": 8, "lines": 2}
        expect(result.structured_content == stats, f"{result.structured_content}")
        Draft202012Validator(tool.output_schema).validate(result.structured_content)
        # The same JSON as text, for clients that do not read structured content.
        expect(json.loads(result.content[0].text) == stats, f"{result.content}")
        raw = await session.send_request(
            types.CallToolRequest(
                params=types.CallToolRequestParams(name="stat_file", arguments={"path": "stats.txt"})
            ),
            RAW,
        )
        self.schemas.mcp_def("CallToolResult", raw)

    async def escapes(self, session: ClientSession) -> None:
        outside = self.root / "outside.txt"
        for path in ["../outside.txt", str(outside), "escape", "/etc/passwd"]:
            for action in ["read", "replace"]:
                arguments = {"action": action, "path": path}
                if action == "replace":
                    arguments["content"] = "overwritten"
                raw = await self.call(session, arguments)
                expect(raw.get("isError") is True, f"{action} {path}: {raw}")
        expect(outside.read_text() == "not yours\n", "the outside file is untouched")

    async def invalid_call(self, session: ClientSession) -> None:
        raw = await self.call(session, {"action": "append", "path": "notes.txt"})
        expect(raw.get("isError") is True, f"{raw}")
        expect("content" in raw["content"][0]["text"], f"{raw}")

    async def dialect_a(self, session: ClientSession) -> None:
        for action, expected in TABLE.items():
            request = AnnotationsRequest(params=ResolveParams(name="manage_files", arguments=arguments(action)))
            raw = await self.resolve_raw(session, request)
            typed = await session.send_request(request, AnnotationsResult)
            self.schemas.mcp_def("ToolAnnotations", raw["annotations"])
            expect(set(raw) == {"annotations"}, f"{raw}")
            expect(typed.annotations.read_only_hint == expected[0], f"{action}: {typed}")
            expect(effective(raw["annotations"]) == expected, f"{action}: {raw}")
            check_bound(self.static, raw["annotations"])

    async def dialect_b(self, session: ClientSession) -> None:
        for action, expected in TABLE.items():
            request = ResolveRequest(params=ResolveParams(name="manage_files", arguments=arguments(action)))
            raw = await self.resolve_raw(session, request)
            typed = await session.send_request(request, ResolvedToolResult)
            self.schemas.mcp_def("Tool", raw["tool"])
            expect(typed.tool.name == "manage_files", f"{typed}")
            expect(effective(raw["tool"]["annotations"]) == expected, f"{action}: {raw}")
            check_bound(self.static, raw["tool"]["annotations"])

    async def check_extension_result(self, session: ClientSession, request: Any, expected: tuple) -> None:
        raw = await self.resolve_raw(session, request)
        typed = await session.send_request(request, ExtensionResolveResult)
        self.schemas.extension_def("ResolveToolResult", raw)
        expect(typed.name == "manage_files" and typed.meta is None, f"{typed}")
        expect(effective(raw["annotations"]) == expected, f"{raw}")
        check_bound(self.static, raw["annotations"])

    def per_request(self, action: str, capabilities: dict[str, Any]) -> ResolveRequest:
        return ResolveRequest(
            params=ResolveParams(
                name="manage_files",
                arguments=arguments(action),
                _meta={CLIENT_CAPABILITIES: capabilities},
            )
        )

    async def dialect_c_per_request(self, session: ClientSession) -> None:
        for action, expected in TABLE.items():
            request = self.per_request(action, {"extensions": {EXTENSION: {}}})
            await self.check_extension_result(session, request, expected)

    async def rule(self, session: ClientSession) -> None:
        """The example's rule marks system paths privileged and sensitive: a
        combination no action declares, so the server renders it on the spot."""
        params = ResolveParams(name="manage_files", arguments={"action": "read", "path": "/etc/passwd"})
        for request in [AnnotationsRequest(params=params), ResolveRequest(params=params)]:
            raw = await self.resolve_raw(session, request)
            hints = raw.get("annotations") or raw["tool"]["annotations"]
            expect(hints.get("privilegedAccessHint") is True, f"{raw}")
            expect(hints.get("sensitiveDataHint") is True, f"{raw}")
            expect(effective(hints) == TABLE["read"], f"{raw}")
            check_bound(self.static, hints)
        plain = await self.resolve_raw(session, AnnotationsRequest(params=ResolveParams(name="manage_files", arguments=arguments("read"))))
        expect(plain["annotations"].get("privilegedAccessHint") is not True, f"{plain}")

    async def errors(self, session: ClientSession) -> None:
        unknown = ResolveRequest(params=ResolveParams(name="rm_rf", arguments={}))
        await expect_error(session.send_request(unknown, RAW), -32602)
        bad = AnnotationsRequest(params=ResolveParams(name="manage_files", arguments={"action": "shred", "path": "a"}))
        error = await expect_error(session.send_request(bad, RAW), -32602)
        expect(error.error.data["path"] == "action", f"{error.error}")
        missing = ResolveRequest(params=ResolveParams(name="manage_files", arguments={"action": "append", "path": "a"}))
        error = await expect_error(session.send_request(missing, RAW), -32602)
        expect(error.error.data["path"] == "content", f"{error.error}")
        await expect_error(session.list_resources(), -32601)
        await expect_error(session.list_tools(params=types.PaginatedRequestParams(cursor="bogus")), -32602)

    async def initialize_extension(self, session: ClientSession) -> None:
        result = await session.initialize()
        expect(result.protocol_version == "2025-11-25", f"{result}")
        expect(EXTENSION in (result.capabilities.extensions or {}), f"{result.capabilities}")
        raw = await session.send_request(types.ListToolsRequest(), RAW)
        self.static = raw["tools"][0]["annotations"]

    async def dialect_c_negotiated(self, session: ClientSession) -> None:
        for action, expected in TABLE.items():
            request = ResolveRequest(params=ResolveParams(name="manage_files", arguments=arguments(action)))
            await self.check_extension_result(session, request, expected)

    async def missing_capability(self, session: ClientSession) -> None:
        error = await expect_error(session.send_request(self.per_request("read", {}), RAW), -32021)
        required = error.error.data["requiredCapabilities"]
        expect(required == {"extensions": {EXTENSION: {}}}, f"{error.error}")


async def main() -> int:
    binary, schemas = sys.argv[1], Path(sys.argv[2])
    run = Run(binary, Schemas(schemas))
    await run.plain_session()
    await run.extension_session()
    await run.auto_client()
    await run.modern_sessions()
    await run.check("every response fits JSONRPCResponse", run.every_response)
    print(f"python: {run.passed} passed, {run.failed} failed")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
