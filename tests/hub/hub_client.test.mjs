// What a user's Node program does with the hub: JSON-RPC 2.0 over HTTP with plain fetch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const bin = resolve(process.env.FILEBOX_BIN ?? "../../target/debug/filebox");

/** A hub on a new temp folder; `stop()` ends it and removes the folder. */
async function startHub() {
  const root = mkdtempSync(join(tmpdir(), "filebox-hub-node-"));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    return await serveIn(root, remove);
  } catch (error) {
    remove();
    throw error;
  }
}

async function serveIn(root, remove) {
  const env = { ...process.env, HOME: root, FILEBOX_CONFIG: join(root, ".filebox", "config.json") };
  delete env.FILEBOX_AGENT;
  const filebox = (...args) => execFileSync(bin, args, { env, encoding: "utf8" });
  filebox("--agent", "dev", "init", "--mailbox", join(root, "mailboxes", "dev"));
  filebox("agents", "add", "qa", "--mailbox", join(root, "mailboxes", "qa"));
  const child = spawn(bin, ["serve", "--listen", "127.0.0.1:0"], { env, cwd: root });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise((ok) => lines.once("line", ok));
  let id = 0;
  const rpc = async (method, params = {}) => {
    const response = await fetch(url + "rpc", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    return response.json();
  };
  // The folder goes once the hub has exited: it writes there until then.
  const stop = () =>
    new Promise((ok) => {
      if (child.exitCode !== null || child.signalCode !== null) return ok(child.exitCode);
      child.once("exit", (code) => ok(code));
      child.kill("SIGTERM");
    }).finally(remove);
  return { url, rpc, stop, filebox };
}

test("send, read, resolve and errors over fetch", async () => {
  const hub = await startHub();
  try {
    const sent = await hub.rpc("email.send", {
      from: "dev", to: ["qa"], subject: "Review", body: "Please review #12", type: "ER", sourceType: "agent",
    });
    assert.equal(sent.result.type, "ER");
    const read = await hub.rpc("email.read", { agent: "qa", id: sent.result.id });
    assert.equal(read.result.body, "Please review #12");
    const done = await hub.rpc("email.resolve", { agent: "qa", id: sent.result.id, details: "LGTM" });
    assert.equal(done.result.status, "replied");
    assert.equal(done.result.folder, "done");
    const again = await hub.rpc("email.resolve", { agent: "qa", id: sent.result.id, details: "twice" });
    assert.ok(again.error.code > 0, JSON.stringify(again));
    assert.ok(["already_handled", "not_found"].includes(again.error.data.kind));
    const bad = await hub.rpc("email.inbox", { agent: "qa", limit: "ten" });
    assert.equal(bad.error.code, -32602);
    assert.equal(bad.error.data.field, "limit");
    const health = await fetch(hub.url + "healthz");
    assert.equal(health.status, 200);
  } finally {
    assert.equal(await hub.stop(), 0);
  }
});
