// What the human channel's suites share: the binary under test, a temp config with an agent
// `qa` and a human `me`, line-reading child processes, `filebox serve` started on it, and a
// `filebox mcp` channel session that relays permission prompts as Claude Code does.
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

/** Write one JSON-RPC message to a `filebox mcp` session. */
export const sendTo = (session, message) => session.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");

/** The next message from a session's server that `wanted` accepts (others skipped). */
export async function nextFrom(session, wanted) {
  for (;;) {
    const message = JSON.parse(await session.nextLine());
    if (wanted(message)) return message;
  }
}

/** Relay a prompt to run `command` with Bash through `session`, as Claude Code does. */
export function relayPrompt(session, requestId, description, command) {
  sendTo(session, {
    method: "notifications/claude/channel/permission_request",
    params: { request_id: requestId, tool_name: "Bash", description, input_preview: JSON.stringify({ command }) },
  });
}

/** A `filebox mcp` session of `agent` as Claude Code opens one, `claude/channel` declared. */
export async function channelSession(env, agent = "qa") {
  const opened = start(filebox, ["mcp"], { ...env, FILEBOX_AGENT: agent });
  sendTo(opened, {
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: { experimental: { "claude/channel": {} } },
      clientInfo: { name: "claude-code", version: "2.1.81" },
    },
  });
  const init = await nextFrom(opened, (m) => m.id === 1);
  assert.deepEqual(Object.keys(init.result.capabilities.experimental).sort(), ["claude/channel", "claude/channel/permission"]);
  sendTo(opened, { method: "notifications/initialized" });
  return opened;
}

/** Debian's Chromium, headless, driven by playwright-core (`extraArgs` added). */
export function launchChromium(chromium, extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", ...extraArgs],
  });
}
