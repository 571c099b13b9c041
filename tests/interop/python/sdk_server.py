"""A small server written with the official Python SDK (MCPServer, typed
functions, honest ToolAnnotations), for tests/interop/gateway.sh to put
annot-gateway in front of: notes are the files of one directory.

    python sdk_server.py DIRECTORY
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("interop-notes")
directory = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()


def note(name: str) -> Path:
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"`{name}` is not a note's name")
    return directory / name


@server.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False))
def read_note(name: str) -> str:
    """Reads a note."""
    return note(name).read_text()


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False))
def delete_note(name: str) -> str:
    """Deletes a note."""
    note(name).unlink()
    return f"deleted {name}"


if __name__ == "__main__":
    server.run()
