// Permission relay end to end: `filebox mcp` spoken to as Claude Code speaks to a channel (raw
// JSON-RPC over stdio, `claude/channel` declared) relays a tool-use prompt; the hub's page in
// Chromium shows it as "qa wants to run Bash: …" with Allow and Deny; Allow on the page goes back
// as `notifications/claude/channel/permission`; a prompt the session went past is withdrawn and
// the page says why; so is one whose session was killed (SIGKILL), and a later Allow is refused;
// the card shows the input exactly, even one that holds Markdown's own marks. Screenshots of the
// cards go to tests/human/out/permission*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { channelSession, filebox, mailroom, nextFrom, relayPrompt, sendTo, serve, stop } from "./support.mjs";

const here = new URL(".", import.meta.url).pathname;
const out = process.env.FILEBOX_TEST_OUT || join(here, "out");
mkdirSync(out, { recursive: true });
const { env, remove } = mailroom("filebox-permission-");

let hub;
let url;
let browser;
let session;

const send = (message, to = session) => sendTo(to, message);
const next = (wanted, from = session) => nextFrom(from, wanted);
const prompt = (requestId, description, command, to = session) => relayPrompt(to, requestId, description, command);
const openSession = () => channelSession(env);

const cli = (agent, ...args) =>
  execFileSync(filebox, args, { env: { ...env, FILEBOX_AGENT: agent }, encoding: "utf8" }).trim();

before(async () => {
  ({ hub, url } = await serve(env));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  session = await openSession();
});

after(async () => {
  session?.stdin.end();
  await stop(session);
  await browser?.close();
  await stop(hub);
  remove();
});

async function openPage() {
  const context = await browser.newContext({ viewport: { width: 900, height: 700 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(url);
  await page.locator("#live", { hasText: "live" }).waitFor();
  return page;
}

test("a relayed prompt shows as a card with Allow and Deny; Allow on the page answers the session once", async () => {
  const page = await openPage();
  prompt("abcde", "Run the test suite", "cargo test --workspace");
  const card = page.locator(".card", { hasText: "qa wants to run Bash: Run the test suite" });
  await card.waitFor();
  assert.equal(await card.locator(".kind").textContent(), "permission");
  assert.match(await card.textContent(), /cargo test --workspace/);
  await card.getByRole("button", { name: "Allow" }).waitFor();
  await card.getByRole("button", { name: "Deny" }).waitFor();
  await page.screenshot({ path: join(out, "permission.png") });
  await card.getByRole("button", { name: "Allow" }).click();
  const decision = await next((m) => m.method === "notifications/claude/channel/permission");
  assert.deepEqual(decision.params, { request_id: "abcde", behavior: "allow" });
  await card.locator(".banner", { hasText: "Answered" }).waitFor();
  // The decision stays in the files, and a second answer is refused.
  const done = JSON.parse(cli("me", "--json", "list", "done", "--all")).messages;
  assert.equal(done.filter((m) => m.type === "PRM").length, 1);
  await page.context().close();
});

test("a prompt the session went past is withdrawn and the page says why", async () => {
  const page = await openPage();
  prompt("fghij", "Delete the build folder", "rm -rf target");
  const card = page.locator(".card", { hasText: "qa wants to run Bash: Delete the build folder" });
  await card.waitFor();
  // The session calls a tool: the prompt was answered in the terminal.
  send({ id: 2, method: "tools/call", params: { name: "list_agents", arguments: {} } });
  await next((m) => m.id === 2);
  await card.locator(".banner", { hasText: "Withdrawn: the session went on (it called list_agents)." }).waitFor();
  await page.screenshot({ path: join(out, "permission-withdrawn.png") });
  assert.deepEqual(JSON.parse(cli("me", "--json", "questions")).questions, []);
  await page.context().close();
});

test("the card shows the exact input Allow approves, never read as Markdown", async () => {
  const command = "echo ``` ; rm -rf ~/*.bak *";
  const preview = JSON.stringify({ command });
  for (const [width, height, shot] of [[1280, 800, "permission-input.png"], [390, 844, "permission-input-phone.png"]]) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    page.on("pageerror", (e) => console.error("page error:", e.message));
    await page.goto(url);
    await page.locator("#live", { hasText: "live" }).waitFor();
    const requestId = width > 400 ? "klmno" : "pqrst";
    prompt(requestId, `Clean the backups (${width} px)`, command);
    const card = page.locator(".card", { hasText: `qa wants to run Bash: Clean the backups (${width} px)` });
    await card.waitFor();
    assert.ok((await card.textContent()).includes(preview), await card.textContent());
    const input = card.locator("pre.tool-input");
    assert.ok((await input.textContent()).includes(`\n${preview}\n`), await input.textContent());
    assert.equal(await input.locator("*").count(), 0, "text only, no Markdown drawn");
    await page.screenshot({ path: join(out, shot), fullPage: true });
    await card.getByRole("button", { name: "Deny" }).click();
    const decision = await next((m) => m.method === "notifications/claude/channel/permission");
    assert.deepEqual(decision.params, { request_id: requestId, behavior: "deny" });
    await context.close();
  }
});

test("a prompt whose session was killed is withdrawn on the page, and a later Allow is refused", async () => {
  const page = await openPage();
  const doomed = await openSession();
  prompt("vwxyz", "Format the disk", "mkfs /dev/sda", doomed);
  const card = page.locator(".card", { hasText: "qa wants to run Bash: Format the disk" });
  await card.waitFor();
  const id = await card.getAttribute("data-id");
  const killed = once(doomed, "exit");
  doomed.kill("SIGKILL");
  await killed;
  await card.locator(".banner", { hasText: "Withdrawn: the session that asked is gone: nobody is waiting for this answer." }).waitFor();
  await page.screenshot({ path: join(out, "permission-session-gone.png") });
  assert.throws(() => cli("me", "reply", id, "allow"), /answered once/);
  assert.deepEqual(JSON.parse(cli("me", "--json", "questions")).questions, []);
  await page.context().close();
});
