// Drives per-action exposure (`--exposure auto`) with the official TypeScript
// MCP SDK: the manage_files example over stdio (the built-in server) and
// examples/rmcp_server over rmcp's Streamable HTTP.
//
// Usage: node typescript/exposure.mjs <rmcp_server-binary> <manage_files-binary> <schemas-dir>
//
// A client without the tool-resolution extension is listed the four
// per-action tools, `manage_files_read` alone read-only and none with the
// `action` field, and a per-action call works; one that advertises the
// extension is listed the one resolvable `manage_files`. The SDK parses every
// result with its own schemas. Ends with the line `exposure: N passed, N failed`.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const EXTENSION = 'io.modelcontextprotocol/tool-resolution';
const PER_ACTION = ['manage_files_read', 'manage_files_append', 'manage_files_replace', 'manage_files_delete'];

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

function sandbox() {
  const directory = mkdtempSync(join(tmpdir(), 'annot-exposure-ts-'));
  writeFileSync(join(directory, 'notes.txt'), 'hello\n');
  return directory;
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

  /** `connect(extension)` gives a connected Client; `directory` is its sandbox. */
  async exercise(label, connect, directory) {
    const plain = await connect(false);
    try {
      await this.check(`exposure ${label}: per-action tools without tool resolution`, async () => {
        const { tools } = await plain.listTools();
        const names = tools.map((tool) => tool.name);
        expect(JSON.stringify(names) === JSON.stringify([...PER_ACTION, 'stat_file']), `listed ${names}`);
        const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name);
        expect(JSON.stringify(readOnly) === '["manage_files_read","stat_file"]', `read-only ${readOnly}`);
        for (const tool of tools) {
          expect(!('action' in (tool.inputSchema.properties ?? {})), `${tool.name} has action`);
        }
      });
      await this.check(`exposure ${label}: a per-action call reaches the handler`, async () => {
        const appended = await plain.callTool({
          name: 'manage_files_append',
          arguments: { path: 'notes.txt', content: 'from ts\n' },
        });
        expect(!appended.isError, JSON.stringify(appended));
        const read = await plain.callTool({ name: 'manage_files_read', arguments: { path: 'notes.txt' } });
        expect(read.content[0].text === 'hello\nfrom ts\n', JSON.stringify(read));
        const file = readFileSync(join(directory, 'notes.txt'), 'utf8');
        expect(file === 'hello\nfrom ts\n', `the file holds ${JSON.stringify(file)}`);
      });
      await this.check(`exposure ${label}: stat_file's structuredContent fits its outputSchema`, async () => {
        // Listed (in the check above) with its outputSchema, which callTool
        // validates structuredContent against, throwing when it does not fit.
        const { tools } = await plain.listTools();
        const tool = tools.find((listed) => listed.name === 'stat_file');
        expect(tool?.outputSchema?.type === 'object', `outputSchema: ${JSON.stringify(tool)}`);
        const result = await plain.callTool({ name: 'stat_file', arguments: { path: 'notes.txt' } });
        expect(!result.isError, JSON.stringify(result));
        const text = readFileSync(join(directory, 'notes.txt'), 'utf8');
        const stats = { path: 'notes.txt', bytes: Buffer.byteLength(text), lines: text.split('\n').length - 1 };
        // Flat objects, compared whatever the order of their keys.
        const sorted = (object) => JSON.stringify(object, Object.keys(object ?? {}).sort());
        expect(sorted(result.structuredContent) === sorted(stats), JSON.stringify(result));
        expect(sorted(JSON.parse(result.content[0].text)) === sorted(stats), 'text block');
      });
      await this.check(`exposure ${label}: a per-action call naming the action is refused`, async () => {
        const refused = await plain.callTool({
          name: 'manage_files_read',
          arguments: { action: 'delete', path: 'notes.txt' },
        });
        expect(refused.isError === true, JSON.stringify(refused));
        expect(refused.content[0].text.includes('leave `action` out'), JSON.stringify(refused));
      });
    } finally {
      await plain.close();
    }
    const negotiated = await connect(true);
    try {
      await this.check(`exposure ${label}: one resolvable manage_files with tool resolution`, async () => {
        const { tools } = await negotiated.listTools();
        const names = tools.map((tool) => tool.name);
        expect(JSON.stringify(names) === '["manage_files","stat_file"]', `listed ${names}`);
      });
    } finally {
      await negotiated.close();
    }
  }
}

function capabilities(extension) {
  return extension ? { extensions: { [EXTENSION]: {} } } : {};
}

async function main() {
  const [rmcpBinary, binary] = process.argv.slice(2);
  const run = new Run();
  const directories = [];
  let server;
  try {
    const stdioSandbox = sandbox();
    directories.push(stdioSandbox);
    await run.exercise(
      'stdio',
      async (extension) => {
        const client = new Client({ name: 'annot-exposure-ts', version: '1' }, { capabilities: capabilities(extension) });
        await client.connect(
          new StdioClientTransport({ command: binary, args: ['--exposure', 'auto', stdioSandbox], stderr: 'ignore' }),
        );
        return client;
      },
      stdioSandbox,
    );

    // examples/rmcp_server over Streamable HTTP: the first stdout line is its URL.
    const root = sandbox();
    directories.push(root);
    server = spawn(rmcpBinary, ['--http', '127.0.0.1:0', '--root', root, '--exposure', 'auto'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const lines = createInterface({ input: server.stdout });
    const url = await new Promise((resolve, reject) => {
      lines.once('line', resolve);
      server.once('exit', (code) => reject(new Error(`rmcp_server exited with ${code}`)));
    });
    await run.exercise(
      'rmcp Streamable HTTP',
      async (extension) => {
        const client = new Client({ name: 'annot-exposure-ts', version: '1' }, { capabilities: capabilities(extension) });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        return client;
      },
      root,
    );
  } finally {
    server?.kill();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
  }
  console.log(`exposure: ${run.passed} passed, ${run.failed} failed`);
  process.exit(run.failed ? 1 : 0);
}

main().catch((error) => {
  console.log(`FAIL the run itself: ${error.stack}`);
  console.log('exposure: 0 passed, 1 failed');
  process.exit(1);
});
