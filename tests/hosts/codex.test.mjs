// Codex CLI itself (npm @openai/codex) runs FileBox, against a stand-in of the OpenAI Responses
// API given as a model provider in its own CODEX_HOME: `codex exec` starts the MCP server
// `filebox setup codex` configured and offers its tools, its SessionStart hook puts the digest
// into the model's request, and the tool results it hands the model are FileBox's short text.

import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";

import { responses } from "./standins.mjs";
import { hostBin, makeProject, overBudget, record, responsesToolResults, run, visibleSize } from "./support.mjs";

const codex = hostBin("codex");
const cleanup = [];
after(async () => {
  for (const undo of cleanup.reverse()) await undo();
});

/** `filebox setup codex` with a CODEX_HOME of the test's own, then what a person adds there:
 * the model provider (the stand-in) and the project trusted (so what setup wrote in the
 * project's `.codex/`, its hooks and any project config, is loaded). */
function setUp(project, standin) {
  const codexHome = join(project.home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  project.filebox(["setup", "codex"], "qa", { CODEX_HOME: codexHome });
  const config = join(codexHome, "config.toml");
  const written = existsSync(config) ? readFileSync(config, "utf8") : "";
  writeFileSync(config, `model = "gpt-5"\nmodel_provider = "standin"\n\n${written}`);
  appendFileSync(
    config,
    `\n[model_providers.standin]\nname = "stand-in"\nbase_url = "${standin.url}/v1"\nwire_api = "responses"\n` +
      `\n[projects."${project.project}"]\ntrust_level = "trusted"\n`,
  );
  return { PATH: process.env.PATH, HOME: project.home, CODEX_HOME: codexHome };
}

test("codex exec connects to filebox, its SessionStart digest reaches the model, and the model gets FileBox's short text", async () => {
  const project = makeProject();
  cleanup.push(project.remove);
  const ids = [];
  for (let n = 1; n <= 19; n += 1) ids.push(project.send(`Login fails on form ${n}`));
  const standin = await responses([
    { tool: "list_messages", input: {} },
    { tool: "search_messages", input: { query: "login" } },
  ]);
  cleanup.push(standin.close);
  const env = setUp(project, standin);

  const ran = await run(codex, ["exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "Check your FileBox inbox."], { cwd: project.project, env });
  assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);

  const asked = standin.requests.filter((request) => request.body?.tools);
  assert.ok(asked.length >= 3, `the model was asked ${asked.length} times`);
  const namespace = asked[0].body.tools.find((tool) => tool.type === "namespace" && tool.name === "mcp__filebox");
  assert.ok(namespace, `no mcp__filebox tools: ${asked[0].body.tools.map((tool) => tool.name).join(", ")}`);
  assert.equal(namespace.tools.length, 22, namespace.tools.map((tool) => tool.name).join(", "));
  const tools = namespace.tools.map((tool) => ({
    name: `mcp__filebox__${tool.name}`,
    description: tool.description,
    schema: tool.parameters,
  }));
  const toolList = visibleSize(tools);
  record("codex", "tool list, model-visible (22 tools)", toolList);
  record("codex", "each tool, model-visible", Object.fromEntries(tools.map((tool) => [tool.name, visibleSize([tool])])));
  // What is over its budget is gathered, so one run shows every size.
  const over = [];
  if (toolList > 9_000) over.push(`Codex hands the model ${toolList} characters of FileBox tools, over 9,000`);

  const first = JSON.stringify(asked[0].body.input);
  assert.match(first, new RegExp(`New mail ${ids.at(-1).slice(0, 8)} from dev \\(ER\\): Login fails on form 19`));

  const results = responsesToolResults(standin.requests);
  for (const [tool, what] of [
    ["list_messages", "list_messages, 19 messages"],
    ["search_messages", "search_messages, 19 hits"],
  ]) {
    const text = results.get(tool);
    assert.ok(text, `no ${tool} result reached the model`);
    // Codex puts its own "Wall time: ... Output:" line before the tool's result.
    const result = text.replace(/^Wall time: [^\n]*\nOutput:\n?/, "");
    record("codex", what, result.length);
    overBudget(over, tool, result);
  }
  assert.deepEqual(over, []);
});

test("setup codex in a second project leaves the first project's agent: codex itself starts each project's own", async () => {
  const first = makeProject();
  const second = makeProject();
  cleanup.push(first.remove, second.remove);
  // One person, one CODEX_HOME, two checkouts: dev works in the first, qa in the second.
  const codexHome = join(first.home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  first.filebox(["setup", "codex"], "dev", { CODEX_HOME: codexHome });
  second.filebox(["setup", "codex"], "qa", { CODEX_HOME: codexHome });
  const config = join(codexHome, "config.toml");
  appendFileSync(
    config,
    `\n[projects."${first.project}"]\ntrust_level = "trusted"\n` +
      `\n[projects."${second.project}"]\ntrust_level = "trusted"\n`,
  );
  const env = { PATH: process.env.PATH, HOME: first.home, CODEX_HOME: codexHome };
  const agentOf = async (project) => {
    const listed = await run(codex, ["mcp", "get", "filebox", "--json"], { cwd: project.project, env });
    assert.equal(listed.code, 0, `${listed.stdout}\n${listed.stderr}`);
    const args = JSON.parse(listed.stdout).transport.args;
    return args[args.indexOf("--agent") + 1];
  };
  assert.equal(await agentOf(first), "dev");
  assert.equal(await agentOf(second), "qa");
});
