// Shared by the host tests: a temp project set up with `filebox setup` (agents qa, whom the
// host acts as, and dev, who writes to it), each host run from this suite's node_modules with a
// home of its own (no login, no user settings) against a stand-in of its model API, and what
// the model was handed, measured in the requests the stand-in recorded.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
export const fileboxBin = resolve(process.env.FILEBOX_BIN ?? join(repo, "target/debug/filebox"));
export const out = resolve(process.env.FILEBOX_TEST_OUT ?? join(here, "out"));

/** A host's command from this suite's node_modules; a missing one fails the test. */
export function hostBin(name) {
  const bin = join(here, "node_modules/.bin", name);
  if (!existsSync(bin)) throw new Error(`${name} is not installed in tests/hosts (run tests/hosts/run.sh)`);
  return bin;
}

/** A temp project: `.filebox/config.json` with qa and dev, a home for the host, and `filebox`. */
export function makeProject() {
  const root = mkdtempSync(join(tmpdir(), "filebox-hosts-"));
  const project = join(root, "project");
  const home = join(root, "home");
  mkdirSync(project);
  mkdirSync(home);
  const filebox = (args, agent = "dev", env = {}) =>
    execFileSync(fileboxBin, ["--config", join(project, ".filebox/config.json"), "--agent", agent, ...args], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, ...env },
    }).trim();
  execFileSync(fileboxBin, ["init", "--agent", "qa"], { cwd: project, encoding: "utf8" });
  filebox(["agents", "add", "dev"], "qa");
  return {
    root,
    project,
    home,
    filebox,
    /** dev sends qa a message; its Message ID. */
    send: (title, type = "ER") => filebox(["send", "qa", type, title]).split("\n").at(-1),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Run `bin args` to its end (at most `timeoutMs`): its exit code, stdout and stderr. */
export function run(bin, args, { cwd, env, timeoutMs = 120_000 }) {
  return new Promise((done, fail) => {
    const child = spawn(bin, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`${bin} ${args.join(" ")} ran past ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("error", fail);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** Start `bin args` in a pseudo-terminal (util-linux `script`), as a person would in a
 * terminal: the interactive host, which is where its channels and its idle wakes live. */
export function startInTerminal(bin, args, { cwd, env }) {
  const quoted = [bin, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
  const child = spawn("script", ["-qfec", quoted, "/dev/null"], {
    cwd,
    env: { TERM: "xterm-256color", COLUMNS: "160", LINES: "48", ...env },
    stdio: ["ignore", "ignore", "ignore"],
  });
  return {
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Poll `look` every 200 ms until it returns a value other than undefined (at most `ms`). */
export async function eventually(look, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = await look();
    if (seen !== undefined) return seen;
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

/** A file's text, or "" while it does not exist. */
export function textOf(path) {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

/** The model-visible size of tools as a host hands them: name + description + input schema
 * (compact JSON), the count `the_model_visible_tool_list_fits_its_budget` makes. */
export function visibleSize(tools) {
  return tools.reduce(
    (sum, tool) => sum + tool.name.length + (tool.description ?? "").length + JSON.stringify(tool.schema).length,
    0,
  );
}

/** Record a measurement in out/sizes.json (the figures BENCHMARKS.md quotes). */
export function record(host, what, value) {
  mkdirSync(out, { recursive: true });
  const path = join(out, "sizes.json");
  const sizes = existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {};
  sizes[host] = { ...sizes[host], [what]: value };
  writeFileSync(path, JSON.stringify(sizes, null, 2) + "\n");
}

/** The text of the function-call outputs a Responses API stand-in was handed, by the FileBox
 * tool that gave them (last seen), its name as the host offers it (Codex, Copilot CLI). */
export function responsesToolResults(requests) {
  const names = new Map();
  const results = new Map();
  for (const request of requests) {
    for (const item of request.body?.input ?? []) {
      if (item.type === "function_call") names.set(item.call_id, item.name);
      if (item.type === "function_call_output") {
        const text = typeof item.output === "string" ? item.output : item.output.map((part) => part.text ?? "").join("\n");
        results.set(names.get(item.call_id), text);
      }
    }
  }
  return results;
}

/** What is over budget in a listing tool's `result` of 19 messages, as the model got it
 * (pushed onto `over`, so one run shows every size): JSON instead of FileBox's text, or more
 * than 100 characters a message. */
export function overBudget(over, tool, result) {
  if (result.trimStart().startsWith("{")) over.push(`${tool}: the model got JSON: ${result.slice(0, 200)}`);
  if (result.length > 19 * 100) over.push(`${tool} of 19 handed the model ${result.length} characters, over 1,900`);
}
