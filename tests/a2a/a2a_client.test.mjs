// The official A2A JavaScript SDK (`@a2a-js/sdk`) against a real `filebox serve`: the card
// resolved from the agent's URL, a send, and a stream followed until the agent resolves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { randomUUID } from "node:crypto";
import { Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";

const bin = process.env.FILEBOX_BIN;

function startHub() {
  const root = mkdtempSync(join(tmpdir(), "filebox-a2a-"));
  const config = join(root, ".filebox", "config.json");
  const env = { ...process.env, FILEBOX_CONFIG: config, HOME: root };
  delete env.FILEBOX_AGENT;
  const filebox = (...args) => execFileSync(bin, args, { env, encoding: "utf8" }).trim();
  filebox("--agent", "me", "init", "--mailbox", join(root, "mailboxes", "me"));
  filebox("agents", "add", "dev", "--mailbox", join(root, "mailboxes", "dev"));
  const parsed = JSON.parse(readFileSync(config, "utf8"));
  parsed.agents.me.kind = "human";
  writeFileSync(config, JSON.stringify(parsed));
  const child = spawn(bin, ["serve", "--listen", "127.0.0.1:0"], { env, stdio: ["ignore", "pipe", "inherit"] });
  const url = new Promise((resolve) => createInterface({ input: child.stdout }).once("line", resolve));
  return { child, url, filebox };
}

function message(text, taskId = "") {
  return {
    tenant: "",
    message: {
      messageId: randomUUID(), contextId: "", taskId, role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
      metadata: undefined, extensions: [], referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

test("a send and a stream through @a2a-js/sdk", async () => {
  const hub = startHub();
  try {
    const url = (await hub.url).replace(/\/$/, "");
    const client = await new ClientFactory().createFromUrl(`${url}/a2a/dev/`) // the trailing slash: the SDK resolves the card path relative to it;
    const sent = await client.sendMessage(message("Hello from JavaScript"));
    const task = sent.payload?.value ?? sent;
    assert.equal(task.status.state, TaskState.TASK_STATE_SUBMITTED, JSON.stringify(sent));

    const events = client.sendMessageStream(message("Stream this"));
    const first = (await events.next()).value;
    const streamed = first.payload?.value ?? first;
    assert.equal(streamed.status.state, TaskState.TASK_STATE_SUBMITTED, JSON.stringify(first));
    hub.filebox("--agent", "dev", "resolved", streamed.id, "Done in JS");
    const states = [];
    for await (const event of events) {
      const payload = event.payload?.value ?? event;
      if (payload.status) states.push(payload.status.state);
    }
    assert.equal(states.at(-1), TaskState.TASK_STATE_COMPLETED, JSON.stringify(states));
  } finally {
    hub.child.kill("SIGTERM");
  }
});
