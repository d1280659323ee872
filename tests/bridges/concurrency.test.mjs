// FileBox and Claude Code writing one team inbox at once: 8 Node writers using proper-lockfile
// exactly as Claude Code does (2.1.88's in-place rewrite, and the current version's entry shape
// and atomic replace), and 8 `filebox teams send` writers. Nothing may be lost or
// duplicated, and a polling `filebox teams inbox` reader must never see torn JSON. A second
// run with FileBox writers alone shows that its writes (temp + fsync + rename under the lock)
// never tear even for a reader that takes no lock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FILEBOX = process.env.FILEBOX_BIN;
const WRITERS = 8;
const EACH = Number(process.env.BRIDGE_MESSAGES_EACH ?? 20);
const TEAM = "race";
const here = new URL(".", import.meta.url).pathname;

function run(command, args, env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${command} ${args.join(" ")}: exit ${code}\n${stderr}`)),
    );
  });
}

/** A Claude Code folder with the team's inboxes folder, removed when test `t` ends, passed or
 * failed (writers still running after a failure may make the removal retry). */
function claudeDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "filebox-bridge-race-"));
  t.after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  mkdirSync(join(dir, "teams", TEAM, "inboxes"), { recursive: true });
  return dir;
}

async function fileboxWriter(dir, name) {
  for (let i = 0; i < EACH; i++) {
    await run(FILEBOX, ["teams", "--claude-dir", dir, "send", TEAM, "target", `${name} #${i}`, "--from", name]);
  }
}

/** The writers' failure is the test's when it awaits them; if the reader fails first, the
 * writers' later one must not end the whole run as an unhandled rejection (which would skip
 * the `after` hooks that remove the folders). */
function settleQuietly(promise) {
  promise.catch(() => {});
}

/// Polls until `done()`, calling `look()` each time; returns how many looks were made.
async function poll(look, done) {
  let looks = 0;
  while (!done()) {
    await look();
    looks++;
  }
  return looks;
}

function assertExact(messages, names) {
  const texts = messages.map((m) => m.text).sort();
  const expected = names.flatMap((n) => Array.from({ length: EACH }, (_, i) => `${n} #${i}`)).sort();
  assert.deepEqual(texts, expected, "every message exactly once");
  for (const m of messages) {
    assert.equal(m.read, false);
    assert.match(m.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
}

for (const shape of ["2.1.88", "2.1.331"]) {
test(`Claude Code's writer (${shape}) and FileBox's append to one inbox at once`, { timeout: 600_000 }, async (t) => {
  assert.ok(FILEBOX, "FILEBOX_BIN names the filebox binary");
  const dir = claudeDir(t);
  const inbox = join(dir, "teams", TEAM, "inboxes", "target.json");
  const nodeNames = Array.from({ length: WRITERS }, (_, i) => `node-${i}`);
  const fileboxNames = Array.from({ length: WRITERS }, (_, i) => `filebox-${i}`);
  let finished = false;
  const env = { ...process.env, CLAUDE_SHAPE: shape };
  const writers = Promise.all([
    ...nodeNames.map((n) => run(process.execPath, [join(here, "claude-writer.mjs"), inbox, n, String(EACH)], env)),
    ...fileboxNames.map((n) => fileboxWriter(dir, n)),
  ]).finally(() => (finished = true));
  settleQuietly(writers);

  let seen = 0;
  const looks = await poll(async () => {
    const out = JSON.parse(await run(FILEBOX, ["--json", "teams", "--claude-dir", dir, "inbox", TEAM, "target"]));
    assert.ok(out.messages.length >= seen, "the inbox never shrinks");
    seen = out.messages.length;
  }, () => finished);
  const reports = (await writers).slice(0, WRITERS).map((out) => JSON.parse(out));
  const gaveUp = reports.reduce((sum, r) => sum + r.gaveUp, 0);

  const written = JSON.parse(readFileSync(inbox, "utf-8"));
  assertExact(written, [...nodeNames, ...fileboxNames]);
  // FileBox's entries are in the current shape whatever the other writers' are.
  for (const m of written.filter((m) => m.from.startsWith("filebox-"))) {
    assert.equal(m.type, "message");
    assert.equal(m.msgV, 1);
    assert.match(m.msg_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  }
  assert.equal(readFileSync(inbox, "utf-8").startsWith("[\n  {\n"), true);
  console.log(
    `figures (${shape}): ${2 * WRITERS * EACH} messages from ${2 * WRITERS} writers; ${looks} filebox reads, none torn; ` +
      `Claude Code's lock gave up ${gaveUp} times (a call made again)`,
  );
});
}

test("FileBox's writes never tear, even for a reader that takes no lock", { timeout: 600_000 }, async (t) => {
  const dir = claudeDir(t);
  const inbox = join(dir, "teams", TEAM, "inboxes", "target.json");
  const names = Array.from({ length: WRITERS }, (_, i) => `filebox-${i}`);
  let finished = false;
  const writers = Promise.all(names.map((n) => fileboxWriter(dir, n))).finally(() => (finished = true));
  settleQuietly(writers);
  let torn = 0;
  const looks = await poll(async () => {
    // Every look yields to the event loop, the one before the inbox exists too: otherwise
    // writers that fail before creating it are never heard of and the loop never ends.
    await new Promise((resolve) => setImmediate(resolve));
    let text;
    try {
      text = readFileSync(inbox, "utf-8");
    } catch (error) {
      if (error.code === "ENOENT") return;
      throw error;
    }
    try {
      JSON.parse(text);
    } catch {
      torn++;
    }
  }, () => finished);
  await writers;
  assert.equal(torn, 0, `${torn} of ${looks} lock-free reads saw torn JSON`);
  assertExact(JSON.parse(readFileSync(inbox, "utf-8")), names);
  console.log(`figures: ${looks} lock-free reads during ${WRITERS * EACH} FileBox writes, none torn`);
});
