"""The official Python MCP SDK as the host of annot-gateway, in front of real
servers.

Usage: gateway.py <annot-gateway> <manage_files> <npm-bin-dir> <mcp-server-git>

- server-filesystem (npm) under `--profile read-only`: tools/list keeps the
  reads, a read succeeds, write_file and move_file are refused with an
  `isError` result naming readOnlyHint, the directory is byte-identical, and
  `annot-gateway export` shows every call with its decision;
- server-memory (npm) under read-only: read_graph works, create_entities is
  refused, the memory file is untouched;
- server-everything (npm), no profile, `--confirm host`: initialize, prompts,
  resources, completion, logging/setLevel, tools/list (after the server's
  list_changed) and tool calls (with progress notifications, and with the
  server's own sampling, elicitation and roots requests to the client in the
  middle) through the gateway equal what the same client gets from the
  server directly; a call the client cancels is logged as cancelled and
  holds nothing up;
- mcp-server-git (PyPI) on a scratch repository under read-only: git_status
  and git_log work, git_add and git_commit are refused, the repository is
  unchanged;
- sdk_server.py (a server of the Python SDK's own) under read-only, then
  `--confirm deny`, then `--confirm host`;
- annot's manage_files (which resolves per call): a delete is confirmed
  through the host's elicitation (the question shows `delete notes.txt` and
  the call's digest) and runs; declined, the file stays; `mcp.Client` in its
  auto mode (server/discover first) reads and is refused a delete;
- `mcp.Client` in auto mode in front of server-filesystem, which speaks the
  handshake era only: the gateway bridges the eras, a read runs, a write is
  refused.

Ends with the line `python-gateway: N passed, N failed`.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import anyio

from common import RAW, Checks, expect
from mcp import Client, ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
# What the gateway adds by design: its own extensions in `initialize` (it
# answers resolutions, display templates and trust annotations itself) and
# trust-annotation claims under a result's `_meta`.
GATEWAY_EXTENSIONS = {
    "io.modelcontextprotocol/display-templates",
    "io.modelcontextprotocol/tool-resolution",
    "io.modelcontextprotocol/trust-annotations",
}
GATEWAY_META = {"io.modelcontextprotocol/trust-annotations"}


def without_gateway_additions(method: str, answer: Any) -> Any:
    """`answer` less what the gateway adds by design; raises if it added
    anything else there."""
    if not isinstance(answer, dict):
        return answer
    answer = json.loads(json.dumps(answer))
    if method == "initialize":
        extensions = answer.get("capabilities", {}).pop("extensions", {})
        expect(set(extensions) <= GATEWAY_EXTENSIONS, f"extensions {sorted(extensions)}")
    if "content" in answer and "_meta" in answer:
        meta = answer.pop("_meta")
        expect(set(meta) <= GATEWAY_META, f"_meta {meta}")
    return answer
WRITE_TOOLS = {"write_file", "edit_file", "create_directory", "move_file"}


def tree_digest(root: Path) -> dict[str, str]:
    """Every file under `root` (the repository's .git included) by its sha256."""
    digests = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            digests[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def text_of(result: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in result.get("content", []))


def raw_call(name: str, arguments: dict[str, Any]) -> types.CallToolRequest:
    return types.CallToolRequest(params=types.CallToolRequestParams(name=name, arguments=arguments))


class Run(Checks):
    def __init__(self, gateway: str, manage_files: str, npm_bin: str, git_server: str) -> None:
        super().__init__()
        self.gateway = gateway
        self.manage_files = manage_files
        self.npm_bin = Path(npm_bin)
        self.git_server = git_server
        self.root = Path(tempfile.mkdtemp(prefix="annot-gateway-interop-"))

    def scratch(self, name: str) -> Path:
        directory = self.root / name
        directory.mkdir()
        return directory

    @asynccontextmanager
    async def connect(self, command: str, args: list[str], env: dict[str, str] | None = None,
                      **options: Any) -> AsyncIterator[ClientSession]:
        server = StdioServerParameters(command=command, args=args, env=env)
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30, **options) as session:
                with anyio.fail_after(30):
                    await session.initialize()
                yield session

    def through(self, log: Path, options: list[str], upstream: list[str], env: dict[str, str] | None = None,
                **session_options: Any):
        """A session with annot-gateway OPTIONS -- UPSTREAM as its server."""
        args = [*options, "--log", str(log), "--", *upstream]
        return self.connect(self.gateway, args, env, **session_options)

    def export(self, log: Path) -> list[dict[str, Any]]:
        output = subprocess.run([self.gateway, "export", "--log", str(log)], capture_output=True, text=True,
                                check=True, timeout=30)
        return [json.loads(line) for line in output.stdout.splitlines() if line.strip()]

    async def scenario(self, name: str, body) -> None:
        """A scenario whose session could not even start counts as one failure."""
        try:
            await body()
        except Exception as error:  # noqa: BLE001 - every failure is reported
            self.failed += 1
            print(f"FAIL {name}: the scenario stopped: {error!r}")
            traceback.print_exc(limit=4, file=sys.stdout)

    # --- server-filesystem ------------------------------------------------

    async def filesystem(self) -> None:
        directory = self.scratch("filesystem")
        (directory / "notes.txt").write_text("hello\n")
        (directory / "sub").mkdir()
        (directory / "sub" / "data.bin").write_bytes(bytes(range(256)))
        log = self.root / "filesystem.sqlite3"
        before = tree_digest(directory)
        upstream = [str(self.npm_bin / "mcp-server-filesystem"), str(directory)]
        async with self.through(log, ["--profile", "read-only"], upstream) as session:
            async def listing() -> None:
                raw = await session.send_request(types.ListToolsRequest(), RAW)
                names = {tool["name"] for tool in raw["tools"]}
                expect({"read_text_file", "list_directory"} <= names, f"{sorted(names)}")
                expect(not names & WRITE_TOOLS, f"write tools listed under read-only: {sorted(names & WRITE_TOOLS)}")
                for tool in raw["tools"]:
                    expect(tool["annotations"].get("readOnlyHint") is True, f"{tool['name']}: {tool['annotations']}")

            async def read() -> None:
                result = await session.call_tool("read_text_file", {"path": str(directory / "notes.txt")})
                expect(not result.is_error, f"{result}")
                expect(result.content[0].text == "hello\n", f"{result}")
                listing = await session.send_request(raw_call("list_directory", {"path": str(directory)}), RAW)
                expect("notes.txt" in text_of(listing) and "sub" in text_of(listing), f"{listing}")

            async def write_refused() -> None:
                arguments = {"path": str(directory / "notes.txt"), "content": "overwritten\n"}
                raw = await session.send_request(raw_call("write_file", arguments), RAW)
                expect(raw.get("isError") is True, f"{raw}")
                message = text_of(raw)
                expect("refused `write_file`" in message and "readOnlyHint" in message, message)
                print(f"     the refusal reads: {message}")
                moved = await session.send_request(
                    raw_call("move_file", {"source": str(directory / "notes.txt"),
                                           "destination": str(directory / "moved.txt")}), RAW)
                expect(moved.get("isError") is True and "readOnlyHint" in text_of(moved), f"{moved}")
                expect(tree_digest(directory) == before, "the directory changed")

            await self.check("filesystem read-only: tools/list keeps the reads, no write tool", listing)
            async def in_flight() -> None:
                answers: dict[int, str] = {}

                async def one(number: int) -> None:
                    result = await session.call_tool("read_text_file", {"path": str(directory / "notes.txt")})
                    answers[number] = result.content[0].text

                async with anyio.create_task_group() as group:
                    for number in range(50):
                        group.start_soon(one, number)
                expect(sorted(answers) == list(range(50)) and set(answers.values()) == {"hello\n"}, f"{answers}")

            await self.check("filesystem read-only: read_text_file and list_directory succeed", read)
            await self.check("filesystem read-only: 50 reads in flight at once, each answered", in_flight)
            await self.check("filesystem read-only: write_file and move_file refused (isError, readOnlyHint)",
                             write_refused)

        async def identical() -> None:
            expect(tree_digest(directory) == before, f"{tree_digest(directory)} != {before}")

        async def exported() -> None:
            calls = [(call["tool"], call["decision"], call["outcome"]) for call in self.export(log)]
            expect(calls.count(("read_text_file", "allow", "ok")) == 51, f"{calls}")
            expect(("write_file", "deny", "refused") in calls, f"{calls}")
            expect(("move_file", "deny", "refused") in calls, f"{calls}")

        await self.check("filesystem read-only: the directory is byte-identical afterwards", identical)
        await self.check("filesystem read-only: export shows the read (allow, ok) and the writes (deny, refused)",
                         exported)

    # --- server-memory ------------------------------------------------------

    async def memory(self) -> None:
        directory = self.scratch("memory")
        memory = directory / "memory.json"
        memory.write_text(json.dumps({"type": "entity", "name": "Ada", "entityType": "person",
                                      "observations": ["wrote the first program"]}) + "\n")
        before = tree_digest(directory)
        log = self.root / "memory.sqlite3"
        upstream = [str(self.npm_bin / "mcp-server-memory")]
        env = {"MEMORY_FILE_PATH": str(memory)}
        async with self.through(log, ["--profile", "read-only"], upstream, env) as session:
            async def read_graph() -> None:
                names = {tool.name for tool in (await session.list_tools()).tools}
                expect("read_graph" in names and "create_entities" not in names, f"{sorted(names)}")
                raw = await session.send_request(raw_call("read_graph", {}), RAW)
                expect(not raw.get("isError") and "Ada" in text_of(raw), f"{raw}")

            async def create_refused() -> None:
                entity = {"name": "Bob", "entityType": "person", "observations": []}
                raw = await session.send_request(raw_call("create_entities", {"entities": [entity]}), RAW)
                expect(raw.get("isError") is True and "readOnlyHint" in text_of(raw), f"{raw}")
                graph = await session.send_request(raw_call("read_graph", {}), RAW)
                expect("Bob" not in text_of(graph), f"{graph}")

            await self.check("memory read-only: read_graph works, create_entities not listed", read_graph)
            await self.check("memory read-only: create_entities refused (isError, readOnlyHint)", create_refused)

        async def untouched() -> None:
            expect(tree_digest(directory) == before, "the memory file changed")

        await self.check("memory read-only: the memory file is untouched", untouched)

    # --- server-everything, directly and through the gateway -----------------

    async def everything_answers(self, session: ClientSession) -> dict[str, Any]:
        answers: dict[str, Any] = {}
        answers["initialize"] = session.initialize_result.model_dump(mode="json", by_alias=True, exclude_none=True)
        # The tools that need the client's sampling, elicitation and roots
        # come with a notifications/tools/list_changed after the handshake.
        with anyio.move_on_after(10):
            while True:
                answers["tools/list"] = await session.send_request(types.ListToolsRequest(), RAW)
                if "trigger-sampling-request" in {tool["name"] for tool in answers["tools/list"]["tools"]}:
                    break
                await anyio.sleep(0.05)
        answers["prompts/list"] = await session.send_request(types.ListPromptsRequest(), RAW)
        answers["prompts/get simple-prompt"] = await session.send_request(
            types.GetPromptRequest(params=types.GetPromptRequestParams(name="simple-prompt")), RAW)
        answers["prompts/get args-prompt"] = await session.send_request(
            types.GetPromptRequest(params=types.GetPromptRequestParams(
                name="args-prompt", arguments={"city": "Lyon", "state": "Rhone"})), RAW)
        answers["resources/list"] = await session.send_request(types.ListResourcesRequest(), RAW)
        answers["resources/templates/list"] = await session.send_request(types.ListResourceTemplatesRequest(), RAW)
        uri = answers["resources/list"]["resources"][0]["uri"]
        answers["resources/read"] = await session.send_request(
            types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri=uri)), RAW)
        answers["completion/complete"] = await session.send_request(
            types.CompleteRequest(params=types.CompleteRequestParams(
                ref=types.PromptReference(type="ref/prompt", name="completable-prompt"),
                argument=types.CompletionArgument(name="department", value="E"))), RAW)
        answers["logging/setLevel"] = await session.send_request(
            types.SetLevelRequest(params=types.SetLevelRequestParams(level="debug")), RAW)
        answers["echo"] = await session.send_request(raw_call("echo", {"message": "through the gateway"}), RAW)
        answers["get-sum"] = await session.send_request(raw_call("get-sum", {"a": 2, "b": 40}), RAW)
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append((value, total, message))

        answers["trigger-long-running-operation"] = await session.send_request(
            raw_call("trigger-long-running-operation", {"duration": 1, "steps": 3}), RAW,
            progress_callback=on_progress)
        # The SDK runs each progress callback in a task of its own, which may
        # start after the response is in: give the last one a moment.
        with anyio.move_on_after(2):
            while len(progress) < 3:
                await anyio.sleep(0.02)
        answers["notifications/progress"] = progress
        # The server's own requests to the client, in the middle of a call.
        answers["sampling/createMessage in a call"] = await session.send_request(
            raw_call("trigger-sampling-request", {"prompt": "Say hello", "maxTokens": 10}), RAW)
        answers["elicitation/create in a call"] = await session.send_request(
            raw_call("trigger-elicitation-request", {}), RAW)
        answers["roots/list in a call"] = await session.send_request(raw_call("get-roots-list", {}), RAW)
        return answers

    async def everything(self) -> None:
        upstream = [str(self.npm_bin / "mcp-server-everything"), "stdio"]
        direct: dict[str, Any] = {}
        gatewayed: dict[str, Any] = {}
        asked: dict[str, list[str]] = {"direct": [], "gateway": []}

        def client(seen: list[str]) -> dict[str, Any]:
            """A client that samples, answers elicitations and has roots, noting each request."""

            async def sampling(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
                seen.append("sampling/createMessage")
                return types.CreateMessageResult(role="assistant", model="interop",
                                                 content=types.TextContent(type="text", text="hello"))

            async def elicitation(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
                seen.append("elicitation/create")
                return types.ElicitResult(action="decline")

            async def roots(context: Any) -> types.ListRootsResult:
                seen.append("roots/list")
                return types.ListRootsResult(roots=[types.Root(uri="file:///interop/root", name="interop")])

            return {"sampling_callback": sampling, "elicitation_callback": elicitation,
                    "list_roots_callback": roots}

        async def collect_direct() -> None:
            async with self.connect(upstream[0], upstream[1:], **client(asked["direct"])) as session:
                direct.update(await self.everything_answers(session))

        async def collect_gatewayed() -> None:
            log = self.root / "everything.sqlite3"
            async with self.through(log, ["--confirm", "host"], upstream, **client(asked["gateway"])) as session:
                gatewayed.update(await self.everything_answers(session))

        await self.check("everything: every method answered directly", collect_direct)
        await self.check("everything: every method answered through the gateway (no profile, --confirm host)",
                         collect_gatewayed)
        if not direct or not gatewayed:
            return
        for method in direct:
            async def same(method: str = method) -> None:
                mine = without_gateway_additions(method, gatewayed.get(method))
                expect(mine == without_gateway_additions(method, direct[method]),
                       f"through the gateway {json.dumps(gatewayed.get(method))[:600]}\n"
                       f"     directly {json.dumps(direct[method])[:600]}")
            await self.check(f"everything: {method} through the gateway equals the direct answer", same)

        async def progressed() -> None:
            steps = gatewayed["notifications/progress"]
            expect(len(steps) == 3 and steps[-1][0] == 3, f"progress through the gateway: {steps}")

        async def completed() -> None:
            values = gatewayed["completion/complete"]["completion"]["values"]
            expect(values == ["Engineering"], f"{values}")

        async def server_requests() -> None:
            for method in ("sampling/createMessage", "elicitation/create", "roots/list"):
                expect(method in asked["gateway"], f"{method} never reached the client: {asked['gateway']}")
            expect("hello" in text_of(gatewayed["sampling/createMessage in a call"]), f"{gatewayed}")

        await self.check("everything: 3 notifications/progress reach the client through the gateway", progressed)
        await self.check("everything: the server's sampling, elicitation and roots requests reach the client "
                         "through the gateway and its answers go back", server_requests)
        await self.check("everything: completion/complete offers Engineering for `E`", completed)

    async def cancellation(self) -> None:
        """A call the client gives up on: the SDK sends notifications/cancelled,
        the gateway passes it on, answers nothing, logs the call as cancelled
        and, the session over, exits by itself (in the SDK's grace period)."""
        upstream = [str(self.npm_bin / "mcp-server-everything"), "stdio"]
        log = self.root / "cancel.sqlite3"
        closing = 0.0
        async with self.through(log, ["--confirm", "host"], upstream) as session:
            async def cancelled() -> None:
                with anyio.move_on_after(1) as scope:
                    await session.call_tool("trigger-long-running-operation", {"duration": 30, "steps": 30})
                expect(scope.cancelled_caught, "the long call finished")
                echo = await session.send_request(raw_call("echo", {"message": "still here"}), RAW)
                expect(text_of(echo) == "Echo: still here", f"{echo}")

            await self.check("everything: a call the client cancels; the session goes on", cancelled)
            closing = anyio.current_time()

        async def exited() -> None:
            took = anyio.current_time() - closing
            expect(took < 1.5, f"the session took {took:.1f} s to close (the SDK's grace is 2 s)")
            calls = [(call["tool"], call["outcome"]) for call in self.export(log)]
            expect(calls == [("trigger-long-running-operation", "cancelled"), ("echo", "ok")], f"{calls}")

        await self.check("everything: the gateway exits at once after a cancelled call, its log complete "
                         "(cancelled, ok)", exited)

    # --- mcp-server-git -----------------------------------------------------

    async def git(self) -> None:
        repository = self.scratch("repository")
        git = ["git", "-C", str(repository), "-c", "user.name=interop", "-c", "user.email=interop@example.invalid"]
        subprocess.run([*git, "init", "-q"], check=True)
        (repository / "README").write_text("a repository\n")
        subprocess.run([*git, "add", "README"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "the first commit"], check=True)
        (repository / "new.txt").write_text("untracked\n")
        before = tree_digest(repository)
        head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout
        log = self.root / "git.sqlite3"
        upstream = [self.git_server, "--repository", str(repository)]
        async with self.through(log, ["--profile", "read-only"], upstream) as session:
            async def reads() -> None:
                names = {tool.name for tool in (await session.list_tools()).tools}
                expect({"git_status", "git_log"} <= names, f"{sorted(names)}")
                expect(not names & {"git_add", "git_commit", "git_reset", "git_checkout"}, f"{sorted(names)}")
                status = await session.send_request(raw_call("git_status", {"repo_path": str(repository)}), RAW)
                expect(not status.get("isError") and "new.txt" in text_of(status), f"{status}")
                history = await session.send_request(raw_call("git_log", {"repo_path": str(repository)}), RAW)
                expect(not history.get("isError") and "the first commit" in text_of(history), f"{history}")

            async def writes_refused() -> None:
                added = await session.send_request(
                    raw_call("git_add", {"repo_path": str(repository), "files": ["new.txt"]}), RAW)
                expect(added.get("isError") is True and "readOnlyHint" in text_of(added), f"{added}")
                committed = await session.send_request(
                    raw_call("git_commit", {"repo_path": str(repository), "message": "sneaky"}), RAW)
                expect(committed.get("isError") is True and "readOnlyHint" in text_of(committed), f"{committed}")

            await self.check("git read-only: git_status and git_log work, no write tool listed", reads)
            await self.check("git read-only: git_add and git_commit refused (isError, readOnlyHint)", writes_refused)

        async def unchanged() -> None:
            now = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout
            expect(now == head, f"HEAD moved: {head} -> {now}")
            expect(tree_digest(repository) == before, "the repository (work tree or .git) changed")

        await self.check("git read-only: the repository is unchanged (HEAD, index, work tree)", unchanged)

    # --- a server of the Python SDK -------------------------------------------

    async def sdk_server(self) -> None:
        directory = self.scratch("sdk-notes")
        (directory / "todo").write_text("buy milk\n")
        log = self.root / "sdk.sqlite3"
        upstream = [sys.executable, str(HERE / "sdk_server.py"), str(directory)]

        async with self.through(log, ["--profile", "read-only"], upstream) as session:
            async def read_only() -> None:
                names = [tool.name for tool in (await session.list_tools()).tools]
                expect(names == ["read_note"], f"{names}")
                read = await session.send_request(raw_call("read_note", {"name": "todo"}), RAW)
                expect(not read.get("isError") and text_of(read) == "buy milk\n", f"{read}")
                deleted = await session.send_request(raw_call("delete_note", {"name": "todo"}), RAW)
                expect(deleted.get("isError") is True and "readOnlyHint" in text_of(deleted), f"{deleted}")
                expect((directory / "todo").exists(), "the refused delete ran")

            await self.check("sdk server read-only: read_note works, delete_note refused", read_only)

        async with self.through(log, ["--confirm", "deny"], upstream) as session:
            async def denied() -> None:
                deleted = await session.send_request(raw_call("delete_note", {"name": "todo"}), RAW)
                expect(deleted.get("isError") is True and 'confirm = "deny"' in text_of(deleted), f"{deleted}")
                expect((directory / "todo").exists(), "the refused delete ran")

            await self.check("sdk server --confirm deny: a destructive call is refused", denied)

        async with self.through(log, ["--confirm", "host"], upstream) as session:
            async def left_to_host() -> None:
                deleted = await session.send_request(raw_call("delete_note", {"name": "todo"}), RAW)
                expect(not deleted.get("isError") and text_of(deleted) == "deleted todo", f"{deleted}")
                expect(not (directory / "todo").exists(), "the delete did not run")

            await self.check("sdk server --confirm host: the delete is forwarded and runs", left_to_host)

        async def exported() -> None:
            calls = [(call["tool"], call["decision"], call["outcome"], call["confirmation"])
                     for call in self.export(log)]
            expect(calls == [("read_note", "allow", "ok", None),
                             ("delete_note", "deny", "refused", None),
                             ("delete_note", "confirm", "refused", None),
                             ("delete_note", "confirm", "ok", "left to the host")], f"{calls}")

        await self.check("sdk server: export shows the four calls with their decisions", exported)

    # --- manage_files: confirmations through the host's elicitation ---------

    async def confirmations(self) -> None:
        directory = self.scratch("manage-files")
        (directory / "notes.txt").write_text("hello\n")
        log = self.root / "confirm.sqlite3"
        questions: list[types.ElicitRequestParams] = []

        def answering(action: str):
            async def callback(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
                questions.append(params)
                if action == "accept":
                    return types.ElicitResult(action="accept", content={"approve": True})
                return types.ElicitResult(action=action)
            return callback

        async with self.through(log, [], [self.manage_files, str(directory)],
                                elicitation_callback=answering("decline")) as session:
            async def declined() -> None:
                raw = await session.send_request(raw_call("manage_files", {"action": "delete", "path": "notes.txt"}),
                                                 RAW)
                expect(raw.get("isError") is True and "declined" in text_of(raw), f"{raw}")
                expect((directory / "notes.txt").read_text() == "hello\n", "the declined delete ran")
                expect(len(questions) == 1, f"{len(questions)} questions")

            await self.check("manage_files: a declined confirmation refuses the delete, the file stays", declined)

        questions.clear()
        async with self.through(log, [], [self.manage_files, str(directory)],
                                elicitation_callback=answering("accept")) as session:
            async def accepted() -> None:
                raw = await session.send_request(raw_call("manage_files", {"action": "delete", "path": "notes.txt"}),
                                                 RAW)
                expect(not raw.get("isError"), f"{raw}")
                expect(not (directory / "notes.txt").exists(), "the confirmed delete did not run")
                expect(len(questions) == 1, f"{len(questions)} questions")
                message = questions[0].message
                print("     the question reads: " + message.replace("\n", " | "))
                expect("delete notes.txt" in message, message)
                expect("Call digest: sha256:" in message, message)

            await self.check("manage_files: an accepted confirmation (elicitation, digest shown) runs the delete",
                             accepted)

        async def exported() -> None:
            calls = self.export(log)
            outcomes = [(call["decision"], call["outcome"]) for call in calls]
            expect(outcomes == [("confirm", "refused"), ("confirm", "ok")], f"{outcomes}")
            expect(calls[0]["confirmation"] == "the person declined it", f"{calls[0]}")
            expect(calls[1]["confirmation"].startswith("accepted for sha256:"), f"{calls[1]}")
            expect(calls[1]["confirmation"].removeprefix("accepted for ") in questions[0].message,
                   "the logged digest is the one the question showed")

        await self.check("manage_files: export keeps the refusal and the digest the accept was for", exported)

    async def auto_client(self) -> None:
        """`mcp.Client` in its default auto mode probes `server/discover` first
        and settles on the era the gateway offers."""
        directory = self.scratch("auto-client")
        (directory / "notes.txt").write_text("hello\n")
        log = self.root / "auto.sqlite3"
        args = ["--profile", "read-only", "--confirm", "host", "--log", str(log), "--", self.manage_files,
                str(directory)]
        async with Client(StdioServerParameters(command=self.gateway, args=args)) as client:
            async def settled() -> None:
                print(f"     mcp.Client settled on {client.session.protocol_version} through the gateway")
                names = [tool.name for tool in (await client.list_tools()).tools]
                expect("manage_files" in names, f"{names}")
                read = await client.call_tool("manage_files", {"action": "read", "path": "notes.txt"})
                expect(not read.is_error and read.content[0].text == "hello\n", f"{read}")
                delete = await client.call_tool("manage_files", {"action": "delete", "path": "notes.txt"})
                expect(delete.is_error and "readOnlyHint" in delete.content[0].text, f"{delete}")
                expect((directory / "notes.txt").exists(), "the refused delete ran")

            await self.check("mcp.Client (auto mode, server/discover first) through the gateway; manage_files "
                             "read-only: a resolved read runs, a delete is refused", settled)

    async def auto_client_legacy_upstream(self) -> None:
        """`mcp.Client` in auto mode through the gateway in front of a server of
        the handshake era only (server-filesystem): the gateway bridges the eras."""
        directory = self.scratch("auto-client-filesystem")
        (directory / "notes.txt").write_text("hello\n")
        before = tree_digest(directory)
        log = self.root / "auto-filesystem.sqlite3"
        args = ["--profile", "read-only", "--log", str(log), "--",
                str(self.npm_bin / "mcp-server-filesystem"), str(directory)]
        async with Client(StdioServerParameters(command=self.gateway, args=args)) as client:
            async def bridged() -> None:
                print(f"     mcp.Client settled on {client.session.protocol_version} through the gateway")
                names = [tool.name for tool in (await client.list_tools()).tools]
                expect("read_text_file" in names and "write_file" not in names, f"{names}")
                read = await client.call_tool("read_text_file", {"path": str(directory / "notes.txt")})
                expect(not read.is_error and read.content[0].text == "hello\n", f"{read}")
                write = await client.call_tool("write_file", {"path": str(directory / "notes.txt"), "content": "x"})
                expect(write.is_error and "readOnlyHint" in write.content[0].text, f"{write}")
                expect(tree_digest(directory) == before, "the directory changed")

            await self.check("mcp.Client (auto mode) through the gateway in front of server-filesystem (handshake "
                             "era only): a read runs, write_file is refused, the directory is unchanged", bridged)

    async def run(self) -> None:
        await self.scenario("filesystem", self.filesystem)
        await self.scenario("memory", self.memory)
        await self.scenario("everything", self.everything)
        await self.scenario("cancellation", self.cancellation)
        await self.scenario("git", self.git)
        await self.scenario("sdk server", self.sdk_server)
        await self.scenario("manage_files", self.confirmations)
        await self.scenario("auto client", self.auto_client)
        await self.scenario("auto client, handshake-era upstream", self.auto_client_legacy_upstream)


async def main() -> int:
    if len(sys.argv) < 5:
        print(__doc__)
        print("python-gateway: 0 passed, 1 failed")
        return 1
    run = Run(*sys.argv[1:5])
    try:
        await run.run()
    finally:
        shutil.rmtree(run.root, ignore_errors=True)
    print(f"python-gateway: {run.passed} passed, {run.failed} failed")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
