// The approvals page in Debian's headless Chromium, driven by Playwright: a
// host over Streamable HTTP (plain fetch) whose calls the gateway cannot ask
// it to confirm; a person signs in with an approver token, sees each waiting
// call with its preview and badges, approves one (the host's call completes),
// denies one (refused) and lets one time out (refused). Arguments holding
// markup render as text and run nothing. Screenshots go to $ARTIFACTS.
//
// Environment: GATEWAY and PLAIN_SERVER (binaries), ARTIFACTS (a directory).
// Prints 'browser: N passed, N failed'; exits non-zero on any failed check.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { chromium } from "playwright-core";

const { GATEWAY, PLAIN_SERVER, ARTIFACTS } = process.env;
const ISSUER = "http://127.0.0.1:9000";
const AUDIENCE = "annot-gateway";
const WAIT = "30s";

let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) {
    passed += 1;
    console.log(`ok   ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL ${name} ${detail}`);
  }
}

// An issuer: an Ed25519 key made here, published as a JWKS file.
const { publicKey, privateKey } = crypto.generateKeyPairSync("ed25519");
const base64url = (data) => Buffer.from(data).toString("base64url");
function mint(sub, scope) {
  const header = base64url(JSON.stringify({ alg: "EdDSA", typ: "JWT", kid: "k1" }));
  const exp = Math.floor(Date.now() / 1000) + 600;
  const claims = base64url(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, sub, scope, exp }));
  const signature = crypto.sign(null, Buffer.from(`${header}.${claims}`), privateKey);
  return `${header}.${claims}.${base64url(signature)}`;
}

const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), "annot-approvals-"));
const notes = path.join(sandbox, "notes");
fs.mkdirSync(notes);
fs.writeFileSync(path.join(notes, "todo"), "buy milk\n");
const jwks = path.join(sandbox, "jwks.json");
const jwk = { ...publicKey.export({ format: "jwk" }), kid: "k1", alg: "EdDSA", use: "sig" };
fs.writeFileSync(jwks, JSON.stringify({ keys: [jwk] }));
const config = path.join(sandbox, "gateway.toml");
fs.writeFileSync(
  config,
  // The Rust tests' split of `notes`, with a call preview.
  fs
    .readFileSync(new URL("../fixtures/notes.toml", import.meta.url), "utf8")
    .replace("override = true\n", 'override = true\npreview = "{action} the note {name}"\n') +
    `
[auth]
issuer = "${ISSUER}"
audience = "${AUDIENCE}"
jwks_file = ${JSON.stringify(jwks)}
scopes = { "notes:all" = "any" }

[approvals]
wait = "${WAIT}"
approver_scope = "gateway:approve"
`,
);

// The gateway, and the address it says it serves on.
const gateway = spawn(
  GATEWAY,
  ["--http", "127.0.0.1:0", "--config", config, "--log", path.join(sandbox, "log.sqlite3"),
    "--exposure", "resolvable", "--", PLAIN_SERVER, notes],
  { stdio: ["ignore", "inherit", "pipe"] },
);
const endpoint = await new Promise((resolve, reject) => {
  const lines = readline.createInterface({ input: gateway.stderr });
  lines.on("line", (line) => {
    process.stderr.write(`${line}\n`);
    const served = line.match(/serving MCP over Streamable HTTP at (\S+)/);
    if (served) resolve(served[1]);
  });
  gateway.on("exit", (code) => reject(new Error(`the gateway exited (${code})`)));
});
const base = endpoint.replace(/\/mcp$/, "");

// A host that cannot elicit: its calls needing a person wait on the page.
class Host {
  constructor(token) {
    this.headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
    };
    this.next = 1;
  }

  async post(message) {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: this.headers,
      body: JSON.stringify(message),
    });
    const text = await response.text();
    const session = response.headers.get("mcp-session-id");
    if (!text) return { session };
    const kind = response.headers.get("content-type") ?? "";
    const body = kind.startsWith("text/event-stream")
      ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5)).pop()
      : text;
    return { session, message: JSON.parse(body) };
  }

  async open() {
    const { session } = await this.post({
      jsonrpc: "2.0", id: 0, method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {},
        clientInfo: { name: "approvals-browser-test", version: "1" } },
    });
    this.headers["mcp-session-id"] = session;
    await this.post({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  async request(method, params) {
    const { message } = await this.post({ jsonrpc: "2.0", id: this.next++, method, params });
    return message;
  }
}

const host = new Host(mint("dave", "notes:all"));
await host.open();
const listed = await host.request("tools/list", {});
check("the host lists the tools", listed.result?.tools?.length > 0, JSON.stringify(listed));

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const failures = [];
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.setDefaultTimeout(20000);
  page.on("dialog", (dialog) => {
    failures.push(`a dialog opened: ${dialog.message()}`);
    dialog.dismiss();
  });
  await page.goto(`${base}/approvals`);
  check("the page asks for a token first", await page.getByRole("heading", { name: "Sign in" }).isVisible());
  await page.fill("#token", mint("carol", "files:read"));
  await page.click("button.primary");
  check("a token without the approver scope is turned away",
    (await page.textContent(".error"))?.includes("does not grant `gateway:approve`"));
  await page.fill("#token", mint("carol", "gateway:approve"));
  await page.click("button.primary");
  await page.waitForSelector(".approver");
  check("the approver is signed in", (await page.textContent(".approver")) === "carol");
  check("the tool card shows the tool's worst-case badges",
    (await page.locator(".tool-card", { hasText: "notes" }).textContent())?.includes("destructive"));

  // Three calls, each waiting on the page; the page's script shows them.
  const markup = 'eggs <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script>\n';
  const hostile = "<img src=x onerror=window.__pwned=3>";
  const approved = host.request("tools/call",
    { name: "notes", arguments: { action: "append", name: "todo", text: markup } });
  const denied = host.request("tools/call", { name: "notes", arguments: { action: "delete", name: "todo" } });
  const timedOut = host.request("tools/call",
    { name: "notes", arguments: { action: "append", name: hostile, text: "late" } });
  await page.waitForFunction(() => document.querySelectorAll(".pending-call").length === 3,
    null, { timeout: 20000 });
  const card = (text) => page.locator(".pending-call", { hasText: text });
  const append = card("append the note todo");
  const remove = card("delete the note todo");
  const late = card("append the note <img");
  check("the waiting calls show their previews", (await append.count()) === 1 && (await remove.count()) === 1);
  check("a write's badges", (await append.locator(".badges").textContent()).includes("writes"));
  check("a delete's badges", (await remove.locator(".badges").textContent()).includes("destructive"));
  check("what decided the hints is shown",
    (await append.locator(".source").textContent()).includes("the configuration's rules"));
  check("the caller is shown", (await append.locator(".caller").textContent()) === "subject:dave");
  await append.locator("summary").click();
  const shownArguments = await append.locator(".arguments").textContent();
  check("markup in arguments renders as text",
    shownArguments.includes('<img src=x onerror=\\"window.__pwned=1\\">')
      && shownArguments.includes("<script>window.__pwned=2</script>"), shownArguments);
  check("markup in a preview renders as text",
    (await late.locator(".preview").textContent()) === `append the note ${hostile}`);
  check("no element came from the arguments",
    (await page.locator("#pending img, #pending script").count()) === 0);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, "approvals.png"), fullPage: true });

  await append.getByRole("button", { name: "Approve" }).click();
  const approvedAnswer = await approved;
  check("an approved call completes", approvedAnswer.result?.content?.[0]?.text === "appended",
    JSON.stringify(approvedAnswer));
  check("the approved write happened",
    fs.readFileSync(path.join(notes, "todo"), "utf8") === `buy milk\n${markup}`);
  check("the page says what the click did",
    (await page.textContent(".notice"))?.includes("Approved `notes`"));

  await remove.getByRole("button", { name: "Deny" }).click();
  const deniedAnswer = await denied;
  check("a denied call is refused", deniedAnswer.result?.isError === true
    && deniedAnswer.result.content[0].text.includes("carol denied it on the approvals page"),
  JSON.stringify(deniedAnswer));
  check("the denied delete did not happen", fs.existsSync(path.join(notes, "todo")));

  const timedOutAnswer = await timedOut;
  check("a call nobody decides is refused when its time runs out",
    timedOutAnswer.result?.isError === true
      && timedOutAnswer.result.content[0].text.includes("nobody decided on the approvals page within 30 s"),
    JSON.stringify(timedOutAnswer));
  await page.waitForSelector("#pending >> text=No call is waiting");
  check("the timed-out call leaves the page", (await page.locator(".pending-call").count()) === 0);

  await page.reload();
  const recent = await page.locator("table.recent").textContent();
  check("recent decisions name the approver", recent.includes("approved by carol on the approvals page"));
  check("recent decisions show the denial", recent.includes("carol denied it on the approvals page"));
  check("no script of the arguments ran",
    (await page.evaluate(() => window.__pwned)) === undefined && failures.length === 0, failures.join("; "));
  await page.screenshot({ path: path.join(ARTIFACTS, "approvals-decided.png"), fullPage: true });
} catch (error) {
  check("the browser run", false, error.stack);
} finally {
  await browser.close();
  gateway.kill("SIGTERM");
  fs.rmSync(sandbox, { recursive: true, force: true });
}

console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
