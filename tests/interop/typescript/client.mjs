// Drives the manage_files example server with the official TypeScript MCP SDK.
//
// Usage: node typescript/client.mjs <server-binary> <schemas-dir>
//
// Launches the server over stdio with a fresh sandbox directory, runs every
// method through the SDK's `Client` (custom methods through `client.request`
// with loose zod schemas), validates every raw message against the vendored
// JSON Schemas with ajv, checks every resolution against the conservative
// bound, and ends with the line `typescript: N passed, N failed`. Exits 1 on
// any failure.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { z } from 'zod';

const EXTENSION = 'io.modelcontextprotocol/tool-resolution';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** Seed 003's table: [readOnly, destructive, idempotent, openWorld] of each action. */
const TABLE = {
  read: [true, false, true, false],
  append: [false, false, false, false],
  replace: [false, true, true, false],
  delete: [false, true, true, false],
};

function argumentsOf(action) {
  return action === 'read' || action === 'delete'
    ? { action, path: 'notes.txt' }
    : { action, path: 'notes.txt', content: 'more\n' };
}

// Loose result schemas: the SDK checks the envelope, this script checks the rest.
const Raw = z.looseObject({});
const AnnotationsResult = z.strictObject({ annotations: z.looseObject({}) });
const ResolvedToolResult = z.strictObject({ tool: z.looseObject({ name: z.string() }) });
const ExtensionResolveResult = z.strictObject({
  resultType: z.literal('complete'),
  name: z.string(),
  annotations: z.strictObject({
    readOnlyHint: z.boolean(),
    destructiveHint: z.boolean(),
    idempotentHint: z.boolean(),
    openWorldHint: z.boolean(),
  }),
  _meta: z.record(z.string(), z.looseObject({})).optional(),
});

// --- Schemas and the conservative bound -------------------------------------

class Schemas {
  constructor(directory) {
    this.mcp = JSON.parse(readFileSync(join(directory, 'mcp-2025-11-25.schema.json'), 'utf8'));
    this.extension = JSON.parse(readFileSync(join(directory, 'tool-resolution.schema.json'), 'utf8'));
    this.validators = new Map();
  }

  check(document, name, instance) {
    const key = `${document === this.mcp ? 'mcp' : 'extension'}:${name}`;
    let validate = this.validators.get(key);
    if (!validate) {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      validate = ajv.compile({ $ref: `#/$defs/${name}`, $defs: document.$defs });
      this.validators.set(key, validate);
    }
    if (!validate(instance)) {
      throw new Error(`${name}: ${ajvMessage(validate.errors)} in ${JSON.stringify(instance)}`);
    }
  }

  mcpDef(name, instance) {
    this.check(this.mcp, name, instance);
  }

  extensionDef(name, instance) {
    this.check(this.extension, name, instance);
  }
}

function ajvMessage(errors) {
  return errors.map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ');
}

/** The four core hints with the specification's defaults applied. */
function effective(hints) {
  const readOnly = hints.readOnlyHint ?? false;
  let destructive = hints.destructiveHint ?? true;
  let idempotent = hints.idempotentHint ?? false;
  const openWorld = hints.openWorldHint ?? true;
  if (readOnly) {
    destructive = false;
    idempotent = true;
  }
  return [readOnly, destructive, idempotent, openWorld];
}

/** The SEP-1984 hints and the value of each that claims the risk. */
const SEP_1984_RISKY = {
  aiProcessingHint: true,
  slowExecutionHint: true,
  resourceIntensiveHint: true,
  sensitiveDataHint: true,
  privilegedAccessHint: true,
  reversibleHint: false,
};

/** Ruling the risk out < making no claim < claiming the risk. */
function risk(value, risky) {
  if (value === undefined) return 1;
  return value === risky ? 2 : 0;
}

/**
 * docs/PROTOCOL.md section 4: a resolution claims no more risk than tools/list, for
 * the core hints and, the same way, the SEP-1984 hints.
 */
function checkBound(staticHints, resolved) {
  const [sReadOnly, sDestructive, sIdempotent, sOpenWorld] = effective(staticHints);
  const [rReadOnly, rDestructive, rIdempotent, rOpenWorld] = effective(resolved);
  const text = JSON.stringify(resolved);
  expect(!(sReadOnly && !rReadOnly), `static read-only, resolved writes: ${text}`);
  expect(!(!sReadOnly && !sDestructive && !rReadOnly && rDestructive), `resolved destructive: ${text}`);
  expect(!(sIdempotent && !rReadOnly && !rIdempotent), `resolved not idempotent: ${text}`);
  expect(!(!sOpenWorld && rOpenWorld), `static closed world, resolved open: ${text}`);
  for (const [hint, risky] of Object.entries(SEP_1984_RISKY)) {
    // Reversibility means nothing for a read.
    if (hint === 'reversibleHint' && rReadOnly) continue;
    expect(risk(resolved[hint], risky) <= risk(staticHints[hint], risky), `${hint} claims more: ${text}`);
  }
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

function same(actual, expected, what) {
  expect(JSON.stringify(actual) === JSON.stringify(expected), `${what}: ${JSON.stringify(actual)}`);
}

/** `same` for flat objects, whatever the order of their keys. */
function sameFlat(actual, expected, what) {
  const sorted = (object) => JSON.stringify(object, Object.keys(object ?? {}).sort());
  expect(sorted(actual) === sorted(expected), `${what}: ${JSON.stringify(actual)}`);
}

async function expectError(promise, code) {
  try {
    await promise;
  } catch (error) {
    expect(error instanceof McpError, `expected McpError ${code}, got ${error}`);
    expect(error.code === code, `expected error ${code}, got ${error.code}: ${error.message}`);
    return error;
  }
  throw new Error(`expected error ${code}, got a result`);
}

// --- The run ------------------------------------------------------------------

class Run {
  constructor(binary, schemas) {
    this.binary = binary;
    this.schemas = schemas;
    this.passed = 0;
    this.failed = 0;
    this.root = mkdtempSync(join(tmpdir(), 'annot-interop-'));
    this.sandbox = join(this.root, 'sandbox');
    mkdirSync(this.sandbox);
    writeFileSync(join(this.root, 'outside.txt'), 'not yours\n');
    symlinkSync(join(this.root, 'outside.txt'), join(this.sandbox, 'escape'));
    this.static = {};
    // Every message the server sent, as it came off the wire.
    this.received = [];
  }

  async check(name, body) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out after 20 s')), 20_000);
    });
    try {
      await Promise.race([body(), timeout]);
      this.passed += 1;
      console.log(`ok   ${name}`);
    } catch (error) {
      this.failed += 1;
      console.log(`FAIL ${name}: ${error.message}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async connect(capabilities) {
    const client = new Client({ name: 'annot-interop-ts', version: '1' }, { capabilities });
    const transport = new StdioClientTransport({
      command: this.binary,
      args: [this.sandbox],
      stderr: 'inherit',
    });
    this.tap(transport);
    await client.connect(transport);
    return client;
  }

  /** Records every message the server sends before the SDK parses it. */
  tap(transport) {
    let handler;
    const received = this.received;
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      get: () =>
        handler &&
        ((message, extra) => {
          received.push(structuredClone(message));
          handler(message, extra);
        }),
      set: (value) => {
        handler = value;
      },
    });
  }

  /** The raw result of the latest response with this id. */
  rawResult(id) {
    const response = this.received.findLast((message) => message.id === id);
    expect(response && response.result, `no result with id ${id}`);
    return response.result;
  }

  everyResponse() {
    expect(this.received.length > 40, `only ${this.received.length} messages seen`);
    for (const message of this.received) {
      this.schemas.mcpDef('JSONRPCResponse', message);
    }
  }

  async plainSession() {
    let client;
    await this.check('initialize', async () => {
      client = await this.connect({});
      expect(client.getServerVersion().name === 'annot-manage-files', 'server name');
      // The SDK's parsed capabilities drop fields it does not know: read the wire.
      const raw = this.rawResult(0);
      this.schemas.mcpDef('InitializeResult', raw);
      same(raw.protocolVersion, '2025-11-25', 'protocol version');
      const capabilities = raw.capabilities;
      same(capabilities.tools, { dynamicAnnotations: true, resolve: true }, 'tools capability');
      same(capabilities.extensions[EXTENSION], {}, 'the tool-resolution extension');
      this.schemas.extensionDef('ToolResolutionServerCapabilities', capabilities);
    });
    if (!client) return;
    try {
      await this.check('ping', () => this.ping(client));
      await this.check('tools/list', () => this.listTools(client));
      await this.check('tools/call reads and writes the sandbox', () => this.calls(client));
      await this.check('stat_file: outputSchema listed, structuredContent validated by the SDK', () =>
        this.structured(client),
      );
      await this.check('tools/call refuses escapes', () => this.escapes(client));
      await this.check('tools/call reports invalid arguments as a tool error', () => this.invalidCall(client));
      await this.check('tools/annotations (dialect A)', () => this.dialectA(client));
      await this.check('tools/resolve without the extension (dialect B)', () => this.dialectB(client));
      await this.check('tools/resolve with per-request capabilities (dialect C)', () =>
        this.dialectCPerRequest(client),
      );
      await this.check('a rule on the path refines the resolution', () => this.rule(client));
      await this.check('protocol errors', () => this.errors(client));
    } finally {
      await client.close();
    }
  }

  async extensionSession() {
    let client;
    await this.check('initialize negotiating the extension', async () => {
      client = await this.connect({ extensions: { [EXTENSION]: {} } });
      const raw = await client.request({ method: 'tools/list' }, Raw);
      same(raw.tools[0]._meta[EXTENSION], { resolvable: true }, 'dialect C marker');
      this.schemas.extensionDef('ResolvableTool', raw.tools[0]);
      this.static = raw.tools[0].annotations;
    });
    if (!client) return;
    try {
      await this.check('tools/resolve after negotiating (dialect C)', () => this.dialectCNegotiated(client));
      await this.check('dropping the extension per request gets -32021', () => this.missingCapability(client));
    } finally {
      await client.close();
    }
  }

  async ping(client) {
    const raw = await client.request({ method: 'ping' }, Raw);
    same(raw, {}, 'ping result');
    await client.ping();
  }

  async listTools(client) {
    const raw = await client.request({ method: 'tools/list' }, Raw);
    this.schemas.mcpDef('ListToolsResult', raw);
    const typed = await client.listTools();
    same(typed.tools.map((tool) => tool.name), ['manage_files', 'stat_file'], 'tool names');
    const tool = raw.tools[0];
    expect(tool.dynamicAnnotations === true, 'dialect A marker');
    expect(tool.resolve === true, 'dialect B marker');
    // The extension's marker only for clients that advertise the extension.
    expect(tool._meta?.[EXTENSION] === undefined, 'no dialect C marker without the extension');
    this.static = tool.annotations;
    same(effective(this.static), [false, true, false, false], 'static annotations');
  }

  async structured(client) {
    writeFileSync(join(this.sandbox, 'stats.txt'), 'one\ntwo\n');
    // Listing caches each tool's outputSchema, against which the SDK's
    // callTool validates structuredContent (it throws when it does not fit).
    const listed = await client.listTools();
    const tool = listed.tools.find((listedTool) => listedTool.name === 'stat_file');
    expect(tool?.outputSchema?.type === 'object', `outputSchema: ${JSON.stringify(tool)}`);
    const result = await client.callTool({ name: 'stat_file', arguments: { path: 'stats.txt' } });
    expect(!result.isError, JSON.stringify(result));
    const stats = { path: 'stats.txt', bytes: 8, lines: 2 };
    sameFlat(result.structuredContent, stats, 'structuredContent');
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const fits = ajv.compile(tool.outputSchema);
    const valid = fits(result.structuredContent);
    expect(valid, valid || `against its outputSchema: ${ajvMessage(fits.errors)}`);
    sameFlat(JSON.parse(result.content[0].text), stats, 'the text block is the same JSON');
    const raw = await client.request(
      { method: 'tools/call', params: { name: 'stat_file', arguments: { path: 'stats.txt' } } },
      Raw,
    );
    this.schemas.mcpDef('CallToolResult', raw);
  }

  async call(client, args) {
    const raw = await client.request({ method: 'tools/call', params: { name: 'manage_files', arguments: args } }, Raw);
    this.schemas.mcpDef('CallToolResult', raw);
    return raw;
  }

  async calls(client) {
    const file = join(this.sandbox, 'notes.txt');
    const typed = await client.callTool({
      name: 'manage_files',
      arguments: { action: 'append', path: 'notes.txt', content: 'one\n' },
    });
    expect(!typed.isError, JSON.stringify(typed));
    await this.call(client, { action: 'append', path: 'notes.txt', content: 'two\n' });
    same(readFileSync(file, 'utf8'), 'one\ntwo\n', 'file on disk');
    const read = await this.call(client, { action: 'read', path: 'notes.txt' });
    same(read.content[0].text, 'one\ntwo\n', 'read');
    await this.call(client, { action: 'replace', path: 'notes.txt', content: 'fresh\n' });
    same(readFileSync(file, 'utf8'), 'fresh\n', 'replace');
    await this.call(client, { action: 'delete', path: 'notes.txt' });
    expect(!existsSync(file), 'delete');
    const missing = await this.call(client, { action: 'read', path: 'notes.txt' });
    expect(missing.isError === true, `reading a deleted file: ${JSON.stringify(missing)}`);
  }

  async escapes(client) {
    const outside = join(this.root, 'outside.txt');
    for (const path of ['../outside.txt', outside, 'escape', '/etc/passwd']) {
      for (const action of ['read', 'replace']) {
        const args = action === 'replace' ? { action, path, content: 'overwritten' } : { action, path };
        const raw = await this.call(client, args);
        expect(raw.isError === true, `${action} ${path}: ${JSON.stringify(raw)}`);
      }
    }
    same(readFileSync(outside, 'utf8'), 'not yours\n', 'the outside file');
  }

  async invalidCall(client) {
    const raw = await this.call(client, { action: 'append', path: 'notes.txt' });
    expect(raw.isError === true, JSON.stringify(raw));
    expect(raw.content[0].text.includes('content'), JSON.stringify(raw));
  }

  async resolve(client, method, action, schema, meta) {
    const params = { name: 'manage_files', arguments: argumentsOf(action) };
    if (meta) params._meta = meta;
    return client.request({ method, params }, schema);
  }

  async dialectA(client) {
    for (const [action, expected] of Object.entries(TABLE)) {
      const raw = await this.resolve(client, 'tools/annotations', action, AnnotationsResult);
      this.schemas.mcpDef('ToolAnnotations', raw.annotations);
      same(effective(raw.annotations), expected, action);
      checkBound(this.static, raw.annotations);
    }
  }

  async dialectB(client) {
    for (const [action, expected] of Object.entries(TABLE)) {
      const raw = await this.resolve(client, 'tools/resolve', action, ResolvedToolResult);
      this.schemas.mcpDef('Tool', raw.tool);
      expect(raw.tool.name === 'manage_files', JSON.stringify(raw));
      same(effective(raw.tool.annotations), expected, action);
      checkBound(this.static, raw.tool.annotations);
    }
  }

  async checkExtensionResult(client, action, meta) {
    const raw = await this.resolve(client, 'tools/resolve', action, ExtensionResolveResult, meta);
    this.schemas.extensionDef('ResolveToolResult', raw);
    expect(raw.name === 'manage_files' && raw._meta === undefined, JSON.stringify(raw));
    same(effective(raw.annotations), TABLE[action], action);
    checkBound(this.static, raw.annotations);
  }

  async dialectCPerRequest(client) {
    const meta = { [CLIENT_CAPABILITIES]: { extensions: { [EXTENSION]: {} } } };
    for (const action of Object.keys(TABLE)) {
      await this.checkExtensionResult(client, action, meta);
    }
  }

  async dialectCNegotiated(client) {
    for (const action of Object.keys(TABLE)) {
      await this.checkExtensionResult(client, action, undefined);
    }
  }

  async missingCapability(client) {
    const error = await expectError(
      this.resolve(client, 'tools/resolve', 'read', Raw, { [CLIENT_CAPABILITIES]: {} }),
      -32021,
    );
    same(error.data.requiredCapabilities, { extensions: { [EXTENSION]: {} } }, 'requiredCapabilities');
  }

  /**
   * The example's rule marks system paths privileged and sensitive: a
   * combination no action declares, so the server renders it on the spot.
   */
  async rule(client) {
    const params = { name: 'manage_files', arguments: { action: 'read', path: '/etc/passwd' } };
    for (const method of ['tools/annotations', 'tools/resolve']) {
      const raw = await client.request({ method, params }, Raw);
      const hints = raw.annotations ?? raw.tool.annotations;
      expect(hints.privilegedAccessHint === true && hints.sensitiveDataHint === true, JSON.stringify(raw));
      same(effective(hints), TABLE.read, method);
      checkBound(this.static, hints);
    }
    const plain = await this.resolve(client, 'tools/annotations', 'read', AnnotationsResult);
    expect(plain.annotations.privilegedAccessHint !== true, JSON.stringify(plain));
  }

  async errors(client) {
    await expectError(
      client.request({ method: 'tools/resolve', params: { name: 'rm_rf', arguments: {} } }, Raw),
      -32602,
    );
    const shred = { name: 'manage_files', arguments: { action: 'shred', path: 'a' } };
    const bad = await expectError(client.request({ method: 'tools/annotations', params: shred }, Raw), -32602);
    same(bad.data.path, 'action', 'path of an unknown action');
    const half = { name: 'manage_files', arguments: { action: 'append', path: 'a' } };
    const missing = await expectError(client.request({ method: 'tools/resolve', params: half }, Raw), -32602);
    same(missing.data.path, 'content', 'path of a missing field');
    await expectError(client.request({ method: 'prompts/list' }, Raw), -32601);
    await expectError(client.request({ method: 'tools/list', params: { cursor: 'bogus' } }, Raw), -32602);
  }
}

async function main() {
  const [binary, schemas] = process.argv.slice(2);
  const run = new Run(binary, new Schemas(schemas));
  await run.plainSession();
  await run.extensionSession();
  await run.check('every response fits JSONRPCResponse', async () => run.everyResponse());
  console.log(`typescript: ${run.passed} passed, ${run.failed} failed`);
  process.exit(run.failed ? 1 : 0);
}

main().catch((error) => {
  console.log(`FAIL the run itself: ${error.stack}`);
  console.log('typescript: 0 passed, 1 failed');
  process.exit(1);
});
