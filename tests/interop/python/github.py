"""Drives the github_api example server with the official Python MCP SDK.

Usage: github.py <server-binary> <schemas-dir>

The handshake (mode="legacy") and MCP 2026-07-28 (mode="2026-07-28", with the
tool-resolution and dev.annot/authorization extensions advertised on every
request): listing, resolution with exact raw hints, authorization under
`_meta`, and a call. Every raw result is validated against the vendored
schemas. Ends with the line `github: N passed, N failed`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

from common import EXTENSION, HINTS, MODERN, RAW, SERVER_INFO, Checks, ResolveParams, ResolveRequest, Schemas, expect
from mcp import Client, StdioServerParameters, types
from mcp.client import advertise

AUTHORIZATION = "dev.annot/authorization"
ALL_SCOPES = [{"type": "oauth2", "scopes": ["repo", "public_repo", "delete_repo", "admin:org"]}]


class Run(Checks):
    def __init__(self, binary: str, schemas: Schemas) -> None:
        super().__init__()
        self.server = StdioServerParameters(command=binary, args=[])
        self.schemas = schemas

    async def legacy(self) -> None:
        async with Client(self.server, mode="legacy") as client:
            async def listing() -> None:
                raw = await client.session.send_request(types.ListToolsRequest(), RAW)
                self.schemas.mcp_def("ListToolsResult", raw)
                tool = raw["tools"][0]
                expect(tool["securitySchemes"] == ALL_SCOPES, f"{tool}")
                expect(tool.get("resolve") is True, f"{tool}")
                expect(EXTENSION not in tool.get("_meta", {}), f"{tool}")

            await self.check("github legacy: tools/list with securitySchemes and SEP-1862's marker", listing)

    async def modern(self) -> None:
        extensions = [advertise(EXTENSION), advertise(AUTHORIZATION)]
        async with Client(self.server, mode=MODERN, extensions=extensions) as client:
            async def listing() -> None:
                raw = await client.session.send_request(types.ListToolsRequest(), RAW)
                self.schemas.mcp_2026_def("ListToolsResult", raw)
                expect(raw["resultType"] == "complete" and raw["_meta"][SERVER_INFO]["name"] == "annot-github", f"{raw}")
                tool = raw["tools"][0]
                self.schemas.extension_def("ResolvableTool", tool)
                expect(tool["_meta"][AUTHORIZATION] == {"securitySchemes": ALL_SCOPES}, f"{tool}")

            async def resolve() -> None:
                cases = [
                    # (method, path, public): the raw hints exactly, and the authorization.
                    ("GET", "/repos/octo/hello", True, (True, False, True, True), [{"type": "noauth"}]),
                    ("DELETE", "/repos/octo/hello", False, (False, True, True, True),
                     [{"type": "oauth2", "scopes": ["delete_repo"]}]),
                ]
                for method, path, public, hints, schemes in cases:
                    arguments = {"method": method, "path": path, "public": public}
                    request = ResolveRequest(params=ResolveParams(name="github_api", arguments=arguments))
                    raw = await client.session.send_request(request, RAW)
                    self.schemas.extension_def("ResolveToolResult", raw)
                    self.schemas.mcp_2026_def("Result", raw)
                    expect(raw["annotations"] == dict(zip(HINTS, hints)), f"{method}: {raw}")
                    expect(raw["_meta"][AUTHORIZATION] == {"securitySchemes": schemes}, f"{method}: {raw}")

            async def call() -> None:
                request = types.CallToolRequest(
                    params=types.CallToolRequestParams(
                        name="github_api", arguments={"method": "GET", "path": "/repos/octo/hello", "public": True}
                    )
                )
                raw = await client.session.send_request(request, RAW)
                self.schemas.mcp_2026_def("CallToolResult", raw)
                expect(raw["resultType"] == "complete" and not raw.get("isError"), f"{raw}")

            await self.check("github 2026-07-28: tools/list fits ResolvableTool, schemes under _meta", listing)
            await self.check("github 2026-07-28: tools/resolve, exact hints and authorization", resolve)
            await self.check("github 2026-07-28: tools/call", call)


async def main() -> int:
    binary, schemas = sys.argv[1], Path(sys.argv[2])
    run = Run(binary, Schemas(schemas))
    await run.legacy()
    await run.modern()
    print(f"github: {run.passed} passed, {run.failed} failed")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
