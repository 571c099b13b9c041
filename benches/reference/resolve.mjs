// Replays the `tools/resolve` requests of `benches/requests.rs`
// (`c_tools_resolve_extension`: manage_files, every action in turn, the
// extension negotiated in `initialize`) through the TypeScript reference
// registry (`src/reference.ts` of
// modelcontextprotocol/experimental-ext-tool-annotations): request text to
// response text, `JSON.parse`, `ToolResolverRegistry.resolve` (ajv
// validation against the tool's `inputSchema`, the capability, result and
// bound checks) and `JSON.stringify`. The resolver returns annot's answer for
// the request (a lookup, less work than any real resolver), and every answer
// is checked against annot's before timing. See benches/reference/README.md.
//
//   node --import tsx resolve.mjs <reference checkout> <inputs directory>
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { deepStrictEqual } from "node:assert";

const [checkout, inputs] = process.argv.slice(2);
const { ToolResolverRegistry } = await import(
  pathToFileURL(path.resolve(checkout, "src/reference.ts")).href
);
const lines = (name) =>
  readFileSync(path.join(inputs, name), "utf8").trim().split("\n");
const requests = lines("requests.jsonl");
const expected = lines("responses.jsonl").map((line) => JSON.parse(line));
const tools = JSON.parse(readFileSync(path.join(inputs, "tools.json"), "utf8"));

// The reference accepts the four hints of the specification only.
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
const answers = expected.map(({ result }) => ({
  resultType: "complete",
  name: result.name,
  annotations: Object.fromEntries(HINTS.map((hint) => [hint, result.annotations[hint]])),
}));
let current = 0;
const registry = new ToolResolverRegistry({
  tools,
  resolvers: Object.fromEntries(tools.map((tool) => [tool.name, () => answers[current]])),
  legacyClientExtensions: { "io.modelcontextprotocol/tool-resolution": {} },
});

async function handle(index) {
  current = index;
  const request = JSON.parse(requests[index]);
  const result = await registry.resolve(request);
  return JSON.stringify({ jsonrpc: "2.0", id: request.id, result });
}

function parseAndStringify(index) {
  const request = JSON.parse(requests[index]);
  return JSON.stringify({ jsonrpc: "2.0", id: request.id, result: answers[index] });
}

for (let index = 0; index < requests.length; index++) {
  const answer = JSON.parse(await handle(index));
  deepStrictEqual(answer.result, answers[index], requests[index]);
  deepStrictEqual(answer.id, expected[index].id);
}

// Nanoseconds a request, the median of `rounds` rounds of `count` requests.
async function time(run, count = 200_000, rounds = 7) {
  const perRequest = [];
  for (let round = 0; round <= rounds; round++) {
    const start = process.hrtime.bigint();
    for (let step = 0; step < count; step++) {
      await run(step % requests.length);
    }
    const elapsed = Number(process.hrtime.bigint() - start);
    // The first round warms the JIT up.
    if (round > 0) perRequest.push(elapsed / count);
  }
  perRequest.sort((a, b) => a - b);
  return perRequest[perRequest.length >> 1];
}

const whole = await time(handle);
const json = await time(parseAndStringify);
console.log(`node ${process.version}, ${requests.length} requests in turn`);
console.log(`reference tools/resolve, request to response: ${whole.toFixed(0)} ns`);
console.log(`JSON.parse + JSON.stringify of the same:       ${json.toFixed(0)} ns`);
