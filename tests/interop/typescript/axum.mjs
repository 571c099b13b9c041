// Drives examples/rmcp_axum (an rmcp server in an axum router, with the
// annotated `notes` beside its own `count_notes`) over rmcp's Streamable HTTP
// with the official TypeScript MCP SDK.
//
// Usage: node typescript/axum.mjs <rmcp_axum-binary> <schemas-dir>
//
// `GET /health` answers beside MCP; `tools/list` lists `notes` with its lifted
// markers, then the router's `count_notes`; `tools/resolve` gives a write of a
// note its destructive hints and a read its read-only ones; calls of both
// tools share the server's notes. The SDK parses every result with its own
// schemas. Ends with the line `axum: N passed, N failed`.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';

const ResolvedToolResult = z.strictObject({ tool: z.looseObject({ name: z.string(), annotations: z.looseObject({}) }) });

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

class Run {
  constructor() {
    this.passed = 0;
    this.failed = 0;
  }

  async check(name, body) {
    let timer;
    try {
      await Promise.race([
        body(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out after 20 s')), 20_000);
        }),
      ]);
      this.passed += 1;
      console.log(`ok   ${name}`);
    } catch (error) {
      this.failed += 1;
      console.log(`FAIL ${name}: ${error.message}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

async function listing(client) {
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  expect(JSON.stringify(names) === '["notes","count_notes"]', `listed ${names}`);
  const [notes, count] = tools;
  expect(notes.annotations.readOnlyHint === false, JSON.stringify(notes));
  expect(count.annotations.readOnlyHint === true, JSON.stringify(count));
}

async function resolve(client) {
  const resolved = async (args) => {
    const raw = await client.request({ method: 'tools/resolve', params: { name: 'notes', arguments: args } }, ResolvedToolResult);
    return raw.tool.annotations;
  };
  const write = await resolved({ action: 'write', title: 'a', text: 'x' });
  expect(write.destructiveHint === true && write.readOnlyHint === false, JSON.stringify(write));
  const read = await resolved({ action: 'read', title: 'a' });
  expect(read.readOnlyHint === true, JSON.stringify(read));
}

async function calls(client) {
  const call = async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    expect(!result.isError, `${name}: ${JSON.stringify(result)}`);
    return result.content[0].text;
  };
  const before = Number(await call('count_notes', {}));
  const wrote = await call('notes', { action: 'write', title: 'typescript', text: 'from the SDK' });
  expect(wrote === 'wrote `typescript`', wrote);
  const text = await call('notes', { action: 'read', title: 'typescript' });
  expect(text === 'from the SDK', text);
  const after = Number(await call('count_notes', {}));
  expect(after === before + 1, `count_notes: ${before} then ${after}`);
}

async function main() {
  const [binary] = process.argv.slice(2);
  const run = new Run();
  const server = spawn(binary, ['127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const lines = createInterface({ input: server.stdout });
    const url = await new Promise((resolve, reject) => {
      lines.once('line', resolve);
      server.once('exit', (code) => reject(new Error(`rmcp_axum exited with ${code}`)));
    });
    await run.check('axum: GET /health answers beside MCP', async () => {
      const response = await fetch(url.replace(/\/mcp$/, '/health'));
      const body = await response.text();
      expect(response.status === 200 && body === 'ok', `${response.status} ${body}`);
    });
    const client = new Client({ name: 'annot-axum-ts', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await run.check("axum: tools/list lists notes, then the router's count_notes", () => listing(client));
      await run.check('axum: tools/resolve of notes per call', () => resolve(client));
      await run.check("axum: notes and count_notes share the server's state", () => calls(client));
    } finally {
      await client.close();
    }
  } finally {
    server.kill();
  }
  console.log(`axum: ${run.passed} passed, ${run.failed} failed`);
  process.exit(run.failed ? 1 : 0);
}

main().catch((error) => {
  console.log(`FAIL the run itself: ${error.stack}`);
  console.log('axum: 0 passed, 1 failed');
  process.exit(1);
});
