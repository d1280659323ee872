// Gemini CLI itself (npm @google/gemini-cli) runs FileBox, against a stand-in of the Gemini API
// (GOOGLE_GEMINI_BASE_URL) in a project set up with `filebox setup gemini`: `gemini -p` starts
// the MCP server setup configured and offers its tools, its SessionStart hook puts the digest
// into the model's request, the tool results it hands the model are FileBox's short text, and
// mail that arrives during a turn continues the turn (AfterAgent, `decision: "block"`).

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";

import { gemini } from "./standins.mjs";
import { hostBin, makeProject, overBudget, record, run, visibleSize } from "./support.mjs";

const geminiCli = hostBin("gemini");
const cleanup = [];
after(async () => {
  for (const undo of cleanup.reverse()) await undo();
});

/** `filebox setup gemini`, then what a person does once in their own `~/.gemini`: picks the
 * API key as the way to sign in and trusts the project folder (its `.gemini/settings.json`,
 * servers and hooks, loads only in a trusted folder). */
function setUp(project, standin) {
  project.filebox(["setup", "gemini"], "qa");
  const settings = join(project.home, ".gemini");
  mkdirSync(settings, { recursive: true });
  writeFileSync(
    join(settings, "settings.json"),
    JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } }, privacy: { usageStatisticsEnabled: false } }),
  );
  writeFileSync(join(settings, "trustedFolders.json"), JSON.stringify({ [project.project]: "TRUST_FOLDER" }));
  return { PATH: process.env.PATH, HOME: project.home, GEMINI_API_KEY: "standin-key", GOOGLE_GEMINI_BASE_URL: standin.url };
}

/** `gemini -p PROMPT`: its `-p` mode offers MCP tools only with `--yolo` (every tool call
 * approved), Gemini CLI's own rule. */
function ask(project, env, prompt) {
  return run(geminiCli, ["-p", prompt, "--yolo"], { cwd: project.project, env });
}

/** The parameter Gemini CLI adds to every tool it offers. */
const GEMINI_OWN = "wait_for_previous";

/** `schema` without the property `name`. */
function withoutProperty(schema, name) {
  const { [name]: _dropped, ...properties } = schema.properties ?? {};
  return { ...schema, properties };
}

/** The agent loop's requests (those that offer tools; not the model router's side questions). */
function agentRequests(standin) {
  return standin.requests.filter((request) => request.body?.tools);
}

/** The text of the function responses the model was handed, by FileBox tool (last seen). */
function toolResults(requests) {
  const results = new Map();
  for (const request of requests) {
    for (const content of request.body?.contents ?? []) {
      for (const part of content.parts ?? []) {
        const response = part.functionResponse;
        if (!response) continue;
        const output = response.response?.output;
        results.set(response.name.replace(/^mcp_filebox_/, ""), typeof output === "string" ? output : JSON.stringify(response.response));
      }
    }
  }
  return results;
}

test("gemini -p connects to filebox, its SessionStart digest reaches the model, and the model gets FileBox's short text", async () => {
  const project = makeProject();
  cleanup.push(project.remove);
  const ids = [];
  for (let n = 1; n <= 19; n += 1) ids.push(project.send(`Login fails on form ${n}`));
  const standin = await gemini([
    { tool: "list_messages", input: {} },
    { tool: "search_messages", input: { query: "login" } },
  ]);
  cleanup.push(standin.close);
  const env = setUp(project, standin);

  const ran = await ask(project, env, "Check your FileBox inbox.");
  assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);

  const asked = agentRequests(standin);
  assert.ok(asked.length >= 3, `the model was asked ${asked.length} times`);
  const declarations = asked[0].body.tools.flatMap((tool) => tool.functionDeclarations ?? []);
  const tools = declarations
    .filter((tool) => tool.name.startsWith("mcp_filebox_"))
    .map((tool) => ({ name: tool.name, description: tool.description, schema: tool.parametersJsonSchema ?? tool.parameters }));
  assert.equal(tools.length, 22, declarations.map((tool) => tool.name).join(", "));
  // Gemini CLI adds a parameter of its own to every tool (`wait_for_previous`, ~290
  // characters): measured as the model sees it, and FileBox's share without it, which is what
  // the budget holds FileBox to.
  const own = tools.map((tool) => ({ ...tool, schema: withoutProperty(tool.schema, GEMINI_OWN) }));
  assert.ok(tools.every((tool) => tool.schema.properties?.[GEMINI_OWN]), `Gemini CLI no longer adds ${GEMINI_OWN}: drop withoutProperty`);
  const toolList = visibleSize(own);
  record("gemini", "tool list, model-visible (22 tools)", visibleSize(tools));
  record("gemini", `tool list without Gemini's own ${GEMINI_OWN} (22 tools)`, toolList);
  record("gemini", "each tool, model-visible", Object.fromEntries(tools.map((tool) => [tool.name, visibleSize([tool])])));
  record("gemini", `each tool without ${GEMINI_OWN}`, Object.fromEntries(own.map((tool) => [tool.name, visibleSize([tool])])));
  const over = [];
  if (toolList > 9_000) over.push(`Gemini CLI hands the model ${toolList} characters of FileBox's tools, over 9,000`);

  // The SessionStart hook's digest is in the first request (Gemini puts it before the prompt).
  assert.match(JSON.stringify(asked[0].body.contents), new RegExp(`New mail ${ids.at(-1).slice(0, 8)} from dev \\(ER\\): Login fails on form 19`));

  const results = toolResults(standin.requests);
  for (const [tool, what] of [
    ["list_messages", "list_messages, 19 messages"],
    ["search_messages", "search_messages, 19 hits"],
  ]) {
    // The output as the model reads it, Gemini's own `<untrusted_context>` wrapper included.
    const result = results.get(tool);
    assert.ok(result, `no ${tool} result reached the model`);
    record("gemini", what, result.length);
    if (tool === "list_messages") for (const id of ids) assert.ok(result.includes(id.slice(0, 8)), `${id} is not listed`);
    overBudget(over, tool, result);
  }
  assert.deepEqual(over, []);
});

test("mail that arrives during a Gemini CLI turn continues the turn (AfterAgent)", async () => {
  const project = makeProject();
  cleanup.push(project.remove);
  let id;
  // The model answers at once; meanwhile dev writes.
  const standin = await gemini([{ text: "Nothing new.", meanwhile: () => (id = project.send("Arrived during the turn")) }]);
  cleanup.push(standin.close);
  const env = setUp(project, standin);

  const ran = await ask(project, env, "Check your FileBox inbox.");
  assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);

  assert.ok(id, "the model was never asked");
  const notice = `New mail ${id.slice(0, 8)} from dev (ER): Arrived during the turn`;
  const asked = agentRequests(standin);
  const continued = asked.findIndex((request) => JSON.stringify(request.body.contents).includes(notice));
  assert.ok(continued > 0, `no request after the turn's end carries "${notice}" (${asked.length} requests)`);
});
