// The official TypeScript MCP SDK as the host of annot-gateway, in front of
// real servers.
//
// Usage: node typescript/gateway.mjs <annot-gateway> <manage_files> <npm-bin-dir>
//
// - server-filesystem under `--profile read-only`: tools/list keeps the reads,
//   read_text_file succeeds, write_file is refused with an `isError` result
//   naming readOnlyHint, the directory is byte-identical, and `annot-gateway
//   export` shows both calls with their decisions;
// - server-memory under read-only: read_graph works, create_entities refused;
// - server-everything, no profile, `--confirm host`: prompts, resources,
//   completion, logging/setLevel, echo and a long-running call whose
//   notifications/progress reach the client, each equal to the direct answer;
// - annot's manage_files: a delete confirmed through the SDK's elicitation
//   handler (the question shows `delete notes.txt` and the call's digest).
//
// Ends with the line `typescript-gateway: N passed, N failed`.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const WRITE_TOOLS = ['write_file', 'edit_file', 'create_directory', 'move_file'];

function expect(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

/** Every file under `root` by its sha256. */
function treeDigest(root) {
  const digests = {};
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else if (entry.isFile()) {
        digests[relative(root, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
      }
    }
  };
  walk(root);
  return digests;
}

const textOf = (result) => (result.content ?? []).map((block) => block.text ?? '').join('');

class Run {
  constructor(gateway, manageFiles, npmBin) {
    this.gateway = gateway;
    this.manageFiles = manageFiles;
    this.npmBin = npmBin;
    this.passed = 0;
    this.failed = 0;
    this.root = mkdtempSync(join(tmpdir(), 'annot-gateway-interop-ts-'));
  }

  scratch(name) {
    const directory = join(this.root, name);
    mkdirSync(directory);
    return directory;
  }

  async check(name, body) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out after 30 s')), 30_000);
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

  /** A scenario whose session could not even start counts as one failure. */
  async scenario(name, body) {
    try {
      await body();
    } catch (error) {
      this.failed += 1;
      console.log(`FAIL ${name}: the scenario stopped: ${error.stack}`);
    }
  }

  async connect(command, args, { env, capabilities = {}, elicit } = {}) {
    const client = new Client({ name: 'annot-interop-ts-gateway', version: '1' }, { capabilities });
    if (elicit) {
      client.setRequestHandler(ElicitRequestSchema, elicit);
    }
    const transport = new StdioClientTransport({ command, args, env: { ...process.env, ...env }, stderr: 'inherit' });
    await client.connect(transport);
    return client;
  }

  through(log, options, upstream, extra = {}) {
    return this.connect(this.gateway, [...options, '--log', log, '--', ...upstream], extra);
  }

  exported(log) {
    const output = execFileSync(this.gateway, ['export', '--log', log], { encoding: 'utf8' });
    return output
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line));
  }

  async filesystem() {
    const directory = this.scratch('filesystem');
    writeFileSync(join(directory, 'notes.txt'), 'hello\n');
    mkdirSync(join(directory, 'sub'));
    writeFileSync(join(directory, 'sub', 'data.bin'), Buffer.from([...Array(256).keys()]));
    const before = treeDigest(directory);
    const log = join(this.root, 'filesystem.sqlite3');
    const client = await this.through(log, ['--profile', 'read-only'], [join(this.npmBin, 'mcp-server-filesystem'), directory]);
    try {
      await this.check('filesystem read-only: tools/list keeps the reads, no write tool', async () => {
        const { tools } = await client.listTools();
        const names = tools.map((tool) => tool.name);
        expect(names.includes('read_text_file') && names.includes('list_directory'), names.join(', '));
        expect(!names.some((name) => WRITE_TOOLS.includes(name)), `write tools listed: ${names.join(', ')}`);
        expect(tools.every((tool) => tool.annotations?.readOnlyHint === true), JSON.stringify(tools));
      });
      await this.check('filesystem read-only: read_text_file succeeds', async () => {
        const result = await client.callTool({ name: 'read_text_file', arguments: { path: join(directory, 'notes.txt') } });
        expect(!result.isError && textOf(result) === 'hello\n', JSON.stringify(result));
      });
      await this.check('filesystem read-only: write_file refused (isError, readOnlyHint)', async () => {
        const result = await client.callTool({
          name: 'write_file',
          arguments: { path: join(directory, 'notes.txt'), content: 'overwritten\n' },
        });
        const message = textOf(result);
        expect(result.isError === true, JSON.stringify(result));
        expect(message.includes('refused `write_file`') && message.includes('readOnlyHint'), message);
      });
    } finally {
      await client.close();
    }
    await this.check('filesystem read-only: the directory is byte-identical afterwards', async () => {
      expect(isDeepStrictEqual(treeDigest(directory), before), 'the directory changed');
    });
    await this.check('filesystem read-only: export shows the read (allow, ok) and the write (deny, refused)', async () => {
      const calls = this.exported(log).map((call) => [call.tool, call.decision, call.outcome]);
      expect(
        isDeepStrictEqual(calls, [
          ['read_text_file', 'allow', 'ok'],
          ['write_file', 'deny', 'refused'],
        ]),
        JSON.stringify(calls),
      );
    });
  }

  async memory() {
    const directory = this.scratch('memory');
    const memory = join(directory, 'memory.json');
    writeFileSync(memory, `${JSON.stringify({ type: 'entity', name: 'Ada', entityType: 'person', observations: [] })}\n`);
    const before = readFileSync(memory);
    const log = join(this.root, 'memory.sqlite3');
    const client = await this.through(log, ['--profile', 'read-only'], [join(this.npmBin, 'mcp-server-memory')], {
      env: { MEMORY_FILE_PATH: memory },
    });
    try {
      await this.check('memory read-only: read_graph works, create_entities refused', async () => {
        const graph = await client.callTool({ name: 'read_graph', arguments: {} });
        expect(!graph.isError && textOf(graph).includes('Ada'), JSON.stringify(graph));
        const created = await client.callTool({
          name: 'create_entities',
          arguments: { entities: [{ name: 'Bob', entityType: 'person', observations: [] }] },
        });
        expect(created.isError === true && textOf(created).includes('readOnlyHint'), JSON.stringify(created));
        expect(readFileSync(memory).equals(before), 'the memory file changed');
      });
    } finally {
      await client.close();
    }
  }

  async everythingAnswers(client) {
    const answers = {};
    answers['prompts/list'] = await client.listPrompts();
    answers['prompts/get'] = await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Lyon' } });
    answers['resources/list'] = await client.listResources();
    answers['resources/read'] = await client.readResource({ uri: answers['resources/list'].resources[0].uri });
    answers['completion/complete'] = await client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    answers['logging/setLevel'] = await client.setLoggingLevel('info');
    answers.echo = await client.callTool({ name: 'echo', arguments: { message: 'through the gateway' } });
    const progress = [];
    answers['trigger-long-running-operation'] = await client.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 3 } },
      undefined,
      { onprogress: (update) => progress.push(update) },
    );
    answers['notifications/progress'] = progress;
    return answers;
  }

  async everything() {
    const upstream = [join(this.npmBin, 'mcp-server-everything'), 'stdio'];
    const direct = await this.connect(upstream[0], upstream.slice(1));
    let expected;
    try {
      expected = await this.everythingAnswers(direct);
    } finally {
      await direct.close();
    }
    const client = await this.through(join(this.root, 'everything.sqlite3'), ['--confirm', 'host'], upstream);
    let answers;
    try {
      answers = await this.everythingAnswers(client);
    } finally {
      await client.close();
    }
    // The SDK hands a notification to its handler a microtask late, after a
    // response read in the same chunk has retired the request's progress
    // handler: the last step may be lost either way, so progress is
    // compared on what both saw and counted below.
    const progress = [expected, answers].map((seen) => seen['notifications/progress']);
    const common = Math.min(progress[0].length, progress[1].length);
    expected['notifications/progress'] = progress[0].slice(0, common);
    answers['notifications/progress'] = progress[1].slice(0, common);
    // What the gateway adds by design: trust-annotation claims under `_meta`.
    const bare = (answer) => {
      if (!answer || typeof answer !== 'object' || !('content' in answer) || !('_meta' in answer)) {
        return answer;
      }
      const { _meta: meta, ...rest } = answer;
      const keys = Object.keys(meta).filter((key) => key !== 'io.modelcontextprotocol/trust-annotations');
      expect(keys.length === 0, `the gateway added ${keys.join(', ')} under _meta`);
      return rest;
    };
    for (const method of Object.keys(expected)) {
      await this.check(`everything: ${method} through the gateway equals the direct answer`, async () => {
        expect(
          isDeepStrictEqual(bare(answers[method]), bare(expected[method])),
          `through the gateway ${JSON.stringify(answers[method]).slice(0, 600)}, directly ${JSON.stringify(expected[method]).slice(0, 600)}`,
        );
      });
    }
    await this.check('everything: notifications/progress reach the client through the gateway, in order', async () => {
      const [, seen] = progress;
      expect(seen.length >= 2 && seen.every((update, index) => update.progress === index + 1 && update.total === 3),
        JSON.stringify(seen));
    });
  }

  async confirmation() {
    const directory = this.scratch('manage-files');
    writeFileSync(join(directory, 'notes.txt'), 'hello\n');
    const questions = [];
    const client = await this.through(join(this.root, 'confirm.sqlite3'), [], [this.manageFiles, directory], {
      capabilities: { elicitation: {} },
      elicit: async (request) => {
        questions.push(request.params);
        return { action: 'accept', content: { approve: true } };
      },
    });
    try {
      await this.check('manage_files: a delete confirmed through elicitation (preview and digest shown) runs', async () => {
        const result = await client.callTool({ name: 'manage_files', arguments: { action: 'delete', path: 'notes.txt' } });
        expect(!result.isError, JSON.stringify(result));
        expect(questions.length === 1, `${questions.length} questions`);
        const message = questions[0].message;
        expect(message.includes('delete notes.txt') && message.includes('Call digest: sha256:'), message);
        expect(!existsSync(join(directory, 'notes.txt')), 'the confirmed delete did not run');
      });
    } finally {
      await client.close();
    }
  }
}

async function main() {
  const [gateway, manageFiles, npmBin] = process.argv.slice(2);
  const run = new Run(gateway, manageFiles, npmBin);
  try {
    await run.scenario('filesystem', () => run.filesystem());
    await run.scenario('memory', () => run.memory());
    await run.scenario('everything', () => run.everything());
    await run.scenario('manage_files', () => run.confirmation());
  } finally {
    rmSync(run.root, { recursive: true, force: true });
  }
  console.log(`typescript-gateway: ${run.passed} passed, ${run.failed} failed`);
  process.exit(run.failed ? 1 : 0);
}

main().catch((error) => {
  console.log(`FAIL the run itself: ${error.stack}`);
  console.log('typescript-gateway: 0 passed, 1 failed');
  process.exit(1);
});
