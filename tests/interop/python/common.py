"""What the Python interop clients share: wire names, the custom methods as a
client of the SDK declares them, the vendored schemas, the conservative
bound of docs/PROTOCOL.md section 4, and the tally of named checks."""

from __future__ import annotations

import json
import sys
import traceback
from pathlib import Path
from typing import Any, Awaitable, Callable, Literal

import anyio

from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from mcp import types
from mcp.shared.exceptions import MCPError

EXTENSION = "io.modelcontextprotocol/tool-resolution"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
MODERN = "2026-07-28"
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
RAW = TypeAdapter(dict[str, Any])

# Seed 003's table: (readOnly, destructive, idempotent, openWorld) of each action.
TABLE = {
    "read": (True, False, True, False),
    "append": (False, False, False, False),
    "replace": (False, True, True, False),
    "delete": (False, True, True, False),
}


def arguments(action: str) -> dict[str, Any]:
    if action in ("read", "delete"):
        return {"action": action, "path": "notes.txt"}
    return {"action": action, "path": "notes.txt", "content": "more\n"}


# --- The custom methods, as a client of the SDK declares them -------------


class ResolveParams(types.RequestParams):
    name: str
    arguments: dict[str, Any]


class AnnotationsRequest(types.Request[ResolveParams, Literal["tools/annotations"]]):
    method: Literal["tools/annotations"] = "tools/annotations"
    params: ResolveParams


class ResolveRequest(types.Request[ResolveParams, Literal["tools/resolve"]]):
    method: Literal["tools/resolve"] = "tools/resolve"
    params: ResolveParams


class AnnotationsResult(BaseModel):
    """Dialect A: `{ annotations }`."""

    model_config = ConfigDict(extra="forbid")
    annotations: types.ToolAnnotations


class ResolvedToolResult(BaseModel):
    """Dialect B (SEP-1862): `{ tool }`."""

    model_config = ConfigDict(extra="forbid")
    tool: types.Tool


class ResolvedAnnotations(BaseModel):
    model_config = ConfigDict(extra="forbid")
    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class ExtensionResolveResult(BaseModel):
    """Dialect C: `{ resultType, name, annotations, _meta? }`."""

    model_config = ConfigDict(extra="forbid")
    resultType: Literal["complete"]
    name: str
    annotations: ResolvedAnnotations
    meta: dict[str, Any] | None = Field(default=None, alias="_meta")


# --- Schemas and the conservative bound -------------------------------------


class Schemas:
    def __init__(self, directory: Path) -> None:
        self.mcp = json.loads((directory / "mcp-2025-11-25.schema.json").read_text())
        self.mcp_2026 = json.loads((directory / "mcp-2026-07-28.schema.json").read_text())
        self.extension = json.loads((directory / "tool-resolution.schema.json").read_text())

    @staticmethod
    def _check(document: dict[str, Any], name: str, instance: Any) -> None:
        schema = {"$ref": f"#/$defs/{name}", "$defs": document["$defs"]}
        validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
        errors = sorted(validator.iter_errors(instance), key=str)
        if errors:
            raise AssertionError(f"{name}: {errors[0].message} in {json.dumps(instance)}")

    def mcp_def(self, name: str, instance: Any) -> None:
        self._check(self.mcp, name, instance)

    def mcp_2026_def(self, name: str, instance: Any) -> None:
        self._check(self.mcp_2026, name, instance)

    def extension_def(self, name: str, instance: Any) -> None:
        self._check(self.extension, name, instance)


def effective(hints: dict[str, Any]) -> tuple[bool, bool, bool, bool]:
    """The four core hints with the specification's defaults applied."""
    read_only = hints.get("readOnlyHint", False)
    destructive = hints.get("destructiveHint", True)
    idempotent = hints.get("idempotentHint", False)
    open_world = hints.get("openWorldHint", True)
    if read_only:
        destructive, idempotent = False, True
    return read_only, destructive, idempotent, open_world


# The SEP-1984 hints and the value of each that claims the risk.
SEP_1984_RISKY = {
    "aiProcessingHint": True,
    "slowExecutionHint": True,
    "resourceIntensiveHint": True,
    "sensitiveDataHint": True,
    "privilegedAccessHint": True,
    "reversibleHint": False,
}


def risk(value: Any, risky: bool) -> int:
    """Ruling the risk out < making no claim < claiming the risk."""
    return 1 if value is None else (2 if value == risky else 0)


def check_bound(static: dict[str, Any], resolved: dict[str, Any]) -> None:
    """docs/PROTOCOL.md section 4: a resolution claims no more risk than tools/list,
    for the core hints and, the same way, the SEP-1984 hints."""
    s_ro, s_d, s_i, s_o = effective(static)
    r_ro, r_d, r_i, r_o = effective(resolved)
    if s_ro and not r_ro:
        raise AssertionError(f"static read-only, resolved writes: {resolved}")
    if not s_ro and not s_d and not r_ro and r_d:
        raise AssertionError(f"static not destructive, resolved destructive: {resolved}")
    if s_i and not r_ro and not r_i:
        raise AssertionError(f"static idempotent, resolved not: {resolved}")
    if not s_o and r_o:
        raise AssertionError(f"static closed world, resolved open: {resolved}")
    for hint, risky in SEP_1984_RISKY.items():
        if hint == "reversibleHint" and r_ro:
            continue  # reversibility means nothing for a read
        if risk(resolved.get(hint), risky) > risk(static.get(hint), risky):
            raise AssertionError(f"{hint} claims more than tools/list: {resolved}")


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


async def expect_error(call: Awaitable[Any], code: int) -> MCPError:
    try:
        await call
    except MCPError as error:
        expect(error.code == code, f"expected error {code}, got {error.code}: {error.message}")
        return error
    raise AssertionError(f"expected error {code}, got a result")


class Checks:
    """Runs named checks, each within 20 seconds, and counts the outcomes;
    a failure is printed with its traceback and the run goes on."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    async def check(self, name: str, body: Callable[[], Awaitable[None]]) -> None:
        try:
            with anyio.fail_after(20):
                await body()
        except Exception as error:  # noqa: BLE001 - every failure is reported
            self.failed += 1
            print(f"FAIL {name}: {error}")
            traceback.print_exc(limit=3, file=sys.stdout)
        else:
            self.passed += 1
            print(f"ok   {name}")
