// Shared by the Node tests: a temp FileBox config (agents qa and dev), the binary under test,
// and `filebox mcp --listen` on a free loopback port.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const fileboxBin = resolve(process.env.FILEBOX_BIN ?? join(repo, "target/debug/filebox"));

/** A temp config: `qa` (whom the server serves) and `dev`. */
export function makeMailroom() {
  const root = mkdtempSync(join(tmpdir(), "filebox-mcp-"));
  const config = join(root, "config.json");
  const env = (agent) => ({ ...process.env, FILEBOX_CONFIG: config, FILEBOX_AGENT: agent });
  const filebox = (args, agent = "dev") =>
    execFileSync(fileboxBin, args, { env: env(agent), encoding: "utf8" }).trim();
  filebox(["--config", config, "init", "--agent", "qa", "--mailbox", join(root, "qa")]);
  filebox(["--config", config, "agents", "add", "dev", "--mailbox", join(root, "dev")]);
  return {
    root,
    env,
    filebox,
    /** `dev` sends `qa` a message through the CLI; returns its Message ID. */
    sendToQa: (kind, content) => filebox(["send", "qa", kind, content]).split("\n").at(-1),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

async function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.on("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

/** Start `filebox mcp --listen 127.0.0.1:PORT` as qa; resolves once `/mcp` answers. */
export async function startHttpServer(mailroom, extraArgs = []) {
  const port = await freePort();
  const child = spawn(fileboxBin, ["mcp", "--listen", `127.0.0.1:${port}`, ...extraArgs], {
    env: mailroom.env("qa"),
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`filebox mcp --listen exited with ${child.exitCode}`);
    try {
      await fetch(url, { method: "GET" });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`filebox mcp --listen did not answer at ${url}`);
      await new Promise((wake) => setTimeout(wake, 100));
    }
  }
  return {
    url,
    port,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGINT");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
