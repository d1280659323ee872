// GitHub Copilot CLI itself (npm @github/copilot) runs FileBox, against a stand-in of the
// OpenAI Responses API given as its own model provider (COPILOT_PROVIDER_BASE_URL, no GitHub
// login) in a project set up with `filebox setup copilot`: `copilot -p` starts the MCP server
// setup configured and offers its tools, its SessionStart hook puts the digest into the model's
// request, the tool results it hands the model are FileBox's short text, and mail that arrives
// during a turn continues the turn (Stop, `decision: "block"`).

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";

import { responses } from "./standins.mjs";
import { hostBin, makeProject, overBudget, record, responsesToolResults, run, visibleSize } from "./support.mjs";

const copilot = hostBin("copilot");
const cleanup = [];
after(async () => {
  for (const undo of cleanup.reverse()) await undo();
});

/** `filebox setup copilot`, and Copilot's environment: its own home, the stand-in as its model
 * provider, offline (no GitHub login, no telemetry, no update), its unpacked package cached in
 * this suite's node_modules between runs. */
function setUp(project, standin) {
  project.filebox(["setup", "copilot"], "qa");
  return {
    PATH: process.env.PATH,
    HOME: project.home,
    COPILOT_OFFLINE: "true",
    COPILOT_AUTO_UPDATE: "false",
    COPILOT_CACHE_HOME: join(dirname(fileURLToPath(import.meta.url)), "node_modules/.cache/copilot"),
    COPILOT_PROVIDER_BASE_URL: `${standin.url}/v1`,
    COPILOT_PROVIDER_WIRE_API: "responses",
    COPILOT_PROVIDER_API_KEY: "standin-key",
    COPILOT_MODEL: "gpt-5",
  };
}

/** `copilot -p PROMPT`: `--allow-all-tools` is what its `-p` mode requires, `--trust-folder`
 * the answer to its trust prompt for this session (a workspace's `.github/mcp.json` and hooks
 * load only in a trusted folder). */
function ask(project, env, prompt) {
  return run(copilot, ["-p", prompt, "--allow-all-tools", "--trust-folder"], { cwd: project.project, env });
}

/** The agent loop's requests (those that offer tools). */
function agentRequests(standin) {
  return standin.requests.filter((request) => request.body?.tools);
}

test("copilot -p connects to filebox, its SessionStart digest reaches the model, and the model gets FileBox's short text", async () => {
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

  const ran = await ask(project, env, "Check your FileBox inbox.");
  assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);

  const asked = agentRequests(standin);
  assert.ok(asked.length >= 3, `the model was asked ${asked.length} times`);
  const offered = asked[0].body.tools;
  const tools = offered
    .filter((tool) => tool.name?.startsWith("filebox-"))
    .map((tool) => ({ name: tool.name, description: tool.description, schema: tool.parameters }));
  assert.equal(tools.length, 22, offered.map((tool) => tool.name).join(", "));
  const toolList = visibleSize(tools);
  record("copilot", "tool list, model-visible (22 tools)", toolList);
  record("copilot", "each tool, model-visible", Object.fromEntries(tools.map((tool) => [tool.name, visibleSize([tool])])));
  const over = [];
  if (toolList > 9_000) over.push(`Copilot CLI hands the model ${toolList} characters of FileBox tools, over 9,000`);

  // The SessionStart hook's digest is in the first request (Copilot adds it as its own message).
  assert.match(JSON.stringify(asked[0].body.input), new RegExp(`New mail ${ids.at(-1).slice(0, 8)} from dev \\(ER\\): Login fails on form 19`));

  const results = responsesToolResults(standin.requests);
  for (const [tool, what] of [
    ["list_messages", "list_messages, 19 messages"],
    ["search_messages", "search_messages, 19 hits"],
  ]) {
    const result = results.get(`filebox-${tool}`);
    assert.ok(result, `no ${tool} result reached the model`);
    record("copilot", what, result.length);
    if (tool === "list_messages") for (const id of ids) assert.ok(result.includes(id.slice(0, 8)), `${id} is not listed`);
    overBudget(over, tool, result);
  }
  assert.deepEqual(over, []);
});

test("mail that arrives during a Copilot CLI turn continues the turn (Stop)", async () => {
  const project = makeProject();
  cleanup.push(project.remove);
  let id;
  // The model answers at once; meanwhile dev writes.
  const standin = await responses([{ text: "Nothing new.", meanwhile: () => (id = project.send("Arrived during the turn")) }]);
  cleanup.push(standin.close);
  const env = setUp(project, standin);

  const ran = await ask(project, env, "Check your FileBox inbox.");
  assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);

  assert.ok(id, "the model was never asked");
  const notice = `New mail ${id.slice(0, 8)} from dev (ER): Arrived during the turn`;
  const asked = agentRequests(standin);
  const continued = asked.findIndex((request) => JSON.stringify(request.body.input).includes(notice));
  assert.ok(continued > 0, `no request after the turn's end carries "${notice}" (${asked.length} requests)`);
});
