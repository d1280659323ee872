// Claude Code itself (npm @anthropic-ai/claude-code) runs FileBox, against a stand-in of the
// Anthropic Messages API: it connects to the server `filebox setup claude-code` configured and
// offers its tools within the budget, its SessionStart hook puts the digest into the model's
// request (a session that dies before its model call leaves that mail unread), the tool
// results it hands the model are FileBox's short text, an idle session is woken by every new
// mail (not only the first), and a server started as a channel passes every channel check
// Claude Code makes short of the login.

import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, test } from "node:test";

import { anthropic } from "./standins.mjs";
import { eventually, fileboxBin, hostBin, makeProject, overBudget, record, run, startInTerminal, textOf, visibleSize } from "./support.mjs";

const claude = hostBin("claude");
const KEY = "sk-ant-standin-0123456789abcdefghij";
const cleanup = [];
after(async () => {
  for (const undo of cleanup.reverse()) await undo();
});

/** Claude Code's environment: its own home, the stand-in as its API, no traffic elsewhere,
 * every tool in the request (no deferred tool search) so the whole list is measured. */
function env(project, standin) {
  return {
    PATH: `${dirname(fileboxBin)}:${process.env.PATH}`,
    HOME: project.home,
    ANTHROPIC_BASE_URL: standin.url,
    ANTHROPIC_API_KEY: KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    ENABLE_TOOL_SEARCH: "false",
  };
}

/** What an interactive session needs to start without asking: onboarding done, the API key
 * and the project folder accepted (what a person clicks through once). */
function acceptedHome(project) {
  writeFileSync(
    join(project.home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
      projects: { [project.project]: { hasTrustDialogAccepted: true, enableAllProjectMcpServers: true } },
    }),
  );
}

/** Every text of the requests' messages and system prompts, for finding what reached the model. */
function seen(request) {
  return JSON.stringify([request.body?.system ?? null, request.body?.messages ?? null]);
}

/** The tool results the model was handed, by the FileBox tool that gave them (last seen). */
function toolResults(requests) {
  const names = new Map();
  const results = new Map();
  for (const request of requests) {
    for (const message of request.body?.messages ?? []) {
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (block.type === "tool_use") names.set(block.id, block.name.replace(/^mcp__filebox__/, ""));
        if (block.type === "tool_result") {
          const text = typeof block.content === "string" ? block.content : block.content.map((part) => part.text ?? "").join("");
          results.set(names.get(block.tool_use_id), text);
        }
      }
    }
  }
  return results;
}

test("claude -p connects to filebox, its SessionStart digest reaches the model, and the model gets FileBox's short text", async () => {
  const project = makeProject();
  cleanup.push(project.remove);
  const ids = [];
  for (let n = 1; n <= 19; n += 1) ids.push(project.send(`Login fails on form ${n}`));
  project.filebox(["setup", "claude-code"], "qa");
  const standin = await anthropic([
    { tool: "list_messages", input: {} },
    { tool: "search_messages", input: { query: "login" } },
  ]);
  cleanup.push(standin.close);

  const ran = await run(claude, ["-p", "Check your FileBox inbox.", "--allowedTools", "mcp__filebox"], {
    cwd: project.project,
    env: env(project, standin),
  });
  assert.equal(ran.code, 0, ran.stderr);

  const asked = standin.requests.filter((request) => request.body?.tools);
  assert.ok(asked.length >= 3, `the model was asked ${asked.length} times`);
  const tools = asked[0].body.tools
    .filter((tool) => tool.name.startsWith("mcp__filebox__"))
    .map((tool) => ({ name: tool.name, description: tool.description, schema: tool.input_schema }));
  assert.equal(tools.length, 22, tools.map((tool) => tool.name).join(", "));
  const toolList = visibleSize(tools);
  record("claude-code", "tool list, model-visible (22 tools)", toolList);
  record("claude-code", "each tool, model-visible", Object.fromEntries(tools.map((tool) => [tool.name, visibleSize([tool])])));
  // What is over its budget is gathered, so one run shows every size.
  const over = [];
  if (toolList > 9_000) over.push(`Claude Code hands the model ${toolList} characters of FileBox tools, over 9,000`);

  // The SessionStart hook's digest is in the first request, newest mail first.
  assert.match(seen(asked[0]), new RegExp(`New mail ${ids.at(-1).slice(0, 8)} from dev \\(ER\\): Login fails on form 19`));

  const results = toolResults(standin.requests);
  const listed = results.get("list_messages");
  assert.ok(listed, "no list_messages result reached the model");
  record("claude-code", "list_messages, 19 messages", listed.length);
  for (const id of ids) assert.ok(listed.includes(id.slice(0, 8)), `${id} is not listed`);
  overBudget(over, "list_messages", listed);

  const found = results.get("search_messages");
  assert.ok(found, "no search_messages result reached the model");
  record("claude-code", "search_messages, 19 hits", found.length);
  overBudget(over, "search_messages", found);
  assert.deepEqual(over, []);
});

test("a claude -p that dies before its model call leaves the mail unread, and the next session is offered it", async () => {
  const project = makeProject();
  cleanup.push(project.remove);
  const id = project.send("Login fails");
  const notice = `New mail ${id.slice(0, 8)} from dev (ER): Login fails`;
  project.filebox(["setup", "claude-code"], "qa");
  const status = () => JSON.parse(project.filebox(["--json", "status", id])).recipients[0].status;
  const inbox = join(project.project, "mailboxes/qa/inbox");
  const copy = () => textOf(join(inbox, readdirSync(inbox).find((name) => name.includes(id.slice(0, 8)))));
  const standin = await anthropic([]);
  cleanup.push(standin.close);

  // No login: the SessionStart hook runs, then Claude Code ends before any model call.
  const { ANTHROPIC_API_KEY: _key, ...noLogin } = env(project, standin);
  const died = await run(claude, ["-p", "Check your FileBox inbox.", "--allowedTools", "mcp__filebox"], {
    cwd: project.project,
    env: noLogin,
  });
  assert.notEqual(died.code, 0, `claude -p went on without a login: ${died.stdout}`);
  assert.equal(standin.requests.filter((request) => request.body?.tools).length, 0, "a model was asked");
  assert.match(copy(), / by qa: hook/, "the SessionStart hook did not run");
  assert.equal(status(), "delivered", "no model saw the mail: the sender must not be told it was read");
  assert.match(copy(), /Offered by qa: hook in session /);

  // The next session is offered it again; its model sees it, and its Stop confirms the read.
  const ran = await run(claude, ["-p", "Check your FileBox inbox.", "--allowedTools", "mcp__filebox"], {
    cwd: project.project,
    env: env(project, standin),
  });
  assert.equal(ran.code, 0, ran.stderr);
  const asked = standin.requests.filter((request) => request.body?.tools);
  assert.ok(asked.some((request) => seen(request).includes(notice)), "the next session was not offered the mail");
  assert.equal(status(), "read");
});

test("an idle Claude Code session is woken by each new mail, not only the first", async () => {
  const project = makeProject();
  cleanup.push(project.remove);
  project.filebox(["setup", "claude-code"], "qa");
  acceptedHome(project);
  const standin = await anthropic([]);
  cleanup.push(standin.close);
  const session = startInTerminal(claude, ["Check your FileBox inbox.", "--allowedTools", "mcp__filebox"], {
    cwd: project.project,
    env: env(project, standin),
  });
  cleanup.push(session.stop);
  const modelCalls = () => standin.requests.filter((request) => request.body?.tools);
  await eventually(() => (modelCalls().length >= 1 ? true : undefined), 60_000, "the first turn");

  for (const title of ["First wake", "Second wake", "Third wake"]) {
    const id = project.send(title);
    const notice = `New mail ${id.slice(0, 8)} from dev (ER): ${title}`;
    await eventually(
      () => (modelCalls().some((request) => seen(request).includes(notice)) ? true : undefined),
      60_000,
      `the session to wake with "${notice}"`,
    );
  }
});

test("a server started as a channel, as the README sets it up, passes Claude Code's channel checks short of the login", async () => {
  const project = makeProject();
  cleanup.push(project.remove);
  acceptedHome(project);
  // The README's set-up, word for word (its agent renamed): `filebox` on PATH, the config found
  // from the project folder.
  writeFileSync(
    join(project.project, ".mcp.json"),
    JSON.stringify({ mcpServers: { filebox: { command: "filebox", args: ["mcp", "--agent", "qa", "--channel"] } } }),
  );
  const standin = await anthropic([]);
  cleanup.push(standin.close);
  const log = join(project.root, "claude-debug.log");
  const session = startInTerminal(claude, ["--dangerously-load-development-channels", "server:filebox", "--debug-file", log], {
    cwd: project.project,
    env: env(project, standin),
  });
  cleanup.push(session.stop);
  const gate = await eventually(
    () => textOf(log).match(/MCP server "filebox": Channel notifications (registered|skipped: .*)/)?.[1],
    60_000,
    "Claude Code's channel gate for filebox",
  );
  const connected = textOf(log).match(/MCP server "filebox": Connection established with capabilities: (.*)/)?.[1] ?? "";
  record("claude-code", "channel: negotiated", JSON.parse(connected).negotiatedProtocolVersion ?? null);
  record("claude-code", "channel: gate", gate);
  // Past the capability, protocol-era, session and allowlist checks: what is left is the
  // login's (the channels feature is on only for a claude.ai account).
  assert.ok(
    gate === "registered" || gate === "skipped: channels feature is not currently available",
    `Claude Code's channel gate: ${gate} (connection: ${connected})`,
  );
});
