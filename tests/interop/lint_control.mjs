// A stdio MCP server with one tool whose inputSchema has a bare `true`
// sub-schema: inspector.sh lists it to show the lint is on (it must fail).
import { createInterface } from "node:readline";

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const tool = {
    name: "control",
    inputSchema: { type: "object", properties: { anything: true } },
};
createInterface({ input: process.stdin }).on("line", (line) => {
    const message = JSON.parse(line);
    if (message.id === undefined) return;
    if (message.method === "initialize") {
        send({
            jsonrpc: "2.0",
            id: message.id,
            result: {
                protocolVersion: message.params.protocolVersion,
                capabilities: { tools: {} },
                serverInfo: { name: "lint-control", version: "0" },
            },
        });
    } else if (message.method === "tools/list") {
        send({ jsonrpc: "2.0", id: message.id, result: { tools: [tool] } });
    } else {
        send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "unknown method" } });
    }
});
