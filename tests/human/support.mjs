// What the human channel's suites share: the binary under test, a temp config with an agent
// `qa` and a human `me`, line-reading child processes, and `filebox serve` started on it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

export const filebox = process.env.FILEBOX_BIN;

/** A one-pixel PNG, for answers with an image. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** A temp folder whose config names the agent `qa` (current) and the human `me`:
 * `{ dir, env, remove }`, `env` pointing FILEBOX_CONFIG at it; a suite's `after` calls
 * `remove()` once the processes writing there have stopped (see `stop`). */
export function mailroom(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const config = join(dir, "config.json");
  writeFileSync(config, JSON.stringify({
    current_agent_id: "qa",
    agents: {
      qa: { mailbox_path: join(dir, "qa") },
      me: { mailbox_path: join(dir, "me"), kind: "human" },
    },
  }));
  return {
    dir,
    env: { ...process.env, FILEBOX_CONFIG: config },
    remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }),
  };
}

/** Stop a child process (SIGTERM) and wait until it has exited; nothing if it already has. */
export async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill();
  await exited;
}

/** A child process whose stdout is read line by line: `child.nextLine()`. */
export function start(command, args, env) {
  const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "inherit"] });
  const lines = [];
  const waiters = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  child.nextLine = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiters.push(r)));
  return child;
}

/** `filebox serve` on `listen`, once it printed its URL: `{ hub, url }`. */
export async function serve(env, listen = "127.0.0.1:0") {
  const hub = start(filebox, ["serve", "--listen", listen], env);
  const url = await hub.nextLine();
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  return { hub, url };
}
