// The packages scripts/package built (FILEBOX_PACKAGES: npm/*.tgz and python/*.whl), installed
// as a user installs them, each into a fresh place: `npx -y filebox` and `npm install -g` from a
// registry on 127.0.0.1 serving only these tarballs (registry.mjs), `uvx` with the wheel's folder
// as its only index, and `pip install` into a new virtual environment (as pipx does). Each runs
// `--version`, `init --agent qa`, an MCP `tools/list` and `setup claude-code`, whose server entry
// must be the launcher that lasts: `npx -y filebox`, `uvx filebox`, or the installed path.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { serveRegistry } from "./registry.mjs";

const packages = process.env.FILEBOX_PACKAGES;
const uvx = process.env.FILEBOX_UVX;
const python = process.env.FILEBOX_PYTHON;
const version = JSON.parse(readFileSync(join(packages, "npm/filebox/package.json"), "utf8")).version;
const wheels = join(packages, "python");
const [wheel] = readdirSync(wheels).filter((name) => name.endsWith(".whl"));

let dir;
let registry;
let env;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "filebox-package-"));
  registry = await serveRegistry(join(packages, "npm"));
  mkdirSync(join(dir, "home"));
  writeFileSync(join(dir, "npmrc"), "");
  // Nothing of the user's: no npm or uv settings, no FileBox config, a home of its own (so uv's
  // cache is the default one under it), and no inherited launcher word.
  env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(npm_|UV_|FILEBOX_|XDG_|VIRTUAL_ENV|PYTHON)/i.test(key),
    ),
  );
  Object.assign(env, {
    HOME: join(dir, "home"),
    npm_config_registry: registry.url,
    npm_config_cache: join(dir, "npm-cache"),
    npm_config_userconfig: join(dir, "npmrc"),
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_loglevel: "error",
    UV_NO_CONFIG: "1",
    UV_OFFLINE: "1",
    UV_PYTHON: python,
    UV_PYTHON_DOWNLOADS: "never",
  });
});

after(async () => {
  await registry?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A new project folder. */
function project(name) {
  const folder = join(dir, name);
  mkdirSync(folder);
  return folder;
}

/** Runs `launcher... ARGS` in `cwd` to success; resolves to stdout. Never synchronously: the
 * registry answers npm from this process. */
async function run([program, ...words], args, cwd) {
  const child = spawn(program, [...words, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const [code] = await Promise.race([once(child, "close"), once(child, "error").then(([e]) => [e])]);
  assert.equal(code, 0, `${program} ${[...words, ...args].join(" ")}: ${stderr}`);
  return stdout;
}

/** The tool names `launcher... mcp` lists over stdio, started in `cwd`. */
async function toolsList([program, ...words], cwd) {
  const child = spawn(program, [...words, "mcp"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const pending = new Map();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    pending.get(message.id)?.(message);
  });
  const ended = new Promise((resolve) => child.on("close", resolve));
  const call = (id, method, params) => {
    const answer = new Promise((resolve, reject) => {
      pending.set(id, resolve);
      ended.then((code) => reject(new Error(`filebox mcp ended (${code}) before answering ${method}: ${stderr}`)));
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    return answer;
  };
  const init = await call(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "tests/package", version: "0" },
  });
  assert.equal(init.result.serverInfo.name.includes("filebox"), true, JSON.stringify(init));
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const listed = await call(2, "tools/list", {});
  child.stdin.end();
  assert.equal(await ended, 0, stderr);
  return listed.result.tools.map((tool) => tool.name);
}

/** What every installation must do, and the server entry its `setup claude-code` wrote. */
async function exercise(launcher, name) {
  const cwd = project(name);
  assert.equal(await run(launcher, ["--version"], cwd), `filebox ${version}\n`);
  await run(launcher, ["init", "--agent", "qa"], cwd);
  const config = JSON.parse(readFileSync(join(cwd, ".filebox/config.json"), "utf8"));
  assert.equal(config.current_agent_id, "qa");
  const tools = await toolsList(launcher, cwd);
  for (const tool of ["send_message", "list_messages", "ask_question"]) {
    assert.ok(tools.includes(tool), `${tool} in ${tools}`);
  }
  await run(launcher, ["setup", "claude-code"], cwd);
  const server = JSON.parse(readFileSync(join(cwd, ".mcp.json"), "utf8")).mcpServers.filebox;
  const hooks = JSON.parse(readFileSync(join(cwd, ".claude/settings.json"), "utf8")).hooks;
  return { server, stop: hooks.Stop[0].hooks[0].command, cwd };
}

/** `server` starts `program` with `words` before the config and agent. */
function assertStarts(server, program, words) {
  assert.equal(server.command, program, JSON.stringify(server));
  assert.deepEqual(server.args.slice(0, words.length + 1), [...words, "--config"]);
  assert.deepEqual(server.args.slice(-3), ["--agent", "qa", "mcp"]);
}

const platformPackage = `@filebox/cli-${process.platform}-${process.arch}`;

test("npx -y filebox runs from npx's cache, and setup writes `npx -y filebox`", { timeout: 300_000 }, async () => {
  const { server, stop } = await exercise(["npx", "-y", "filebox"], "with-npx");
  assertStarts(server, "npx", ["-y", "filebox"]);
  assert.match(stop, /^npx -y filebox --config .* --agent qa hook claude-code$/);
  assert.deepEqual(registry.served().sort(), [
    `filebox-${version}.tgz`,
    `${platformPackage.replace("@", "").replace("/", "-")}-${version}.tgz`,
  ]);
});

test("npm install -g into a fresh prefix: setup writes the installed binary's path", { timeout: 300_000 }, async () => {
  const prefix = join(dir, "prefix");
  await run(["npm"], ["install", "-g", "--prefix", prefix, "filebox"], dir);
  const { server } = await exercise([join(prefix, "bin/filebox")], "with-npm-global");
  const installed = realpathSync(
    join(prefix, "lib/node_modules/filebox/node_modules", platformPackage, "bin/filebox"),
  );
  assertStarts(server, installed, []);
});

test("uvx filebox runs the wheel from uv's cache, and setup writes `uvx filebox`", { timeout: 300_000 }, async () => {
  const { server, stop } = await exercise([uvx, "--no-index", "--find-links", wheels, "filebox"], "with-uvx");
  assertStarts(server, "uvx", ["filebox"]);
  assert.match(stop, /^uvx filebox --config .* --agent qa hook claude-code$/);
});

test("pip install of the wheel into a fresh virtual environment: setup writes its executable", { timeout: 300_000 }, async () => {
  const venv = join(dir, "venv");
  await run([python], ["-m", "venv", venv], dir);
  await run([join(venv, "bin/pip")], ["install", "--no-index", "--disable-pip-version-check", "--quiet", join(wheels, wheel)], dir);
  const { server } = await exercise([join(venv, "bin/filebox")], "with-venv");
  assertStarts(server, realpathSync(join(venv, "bin/filebox")), []);
});
