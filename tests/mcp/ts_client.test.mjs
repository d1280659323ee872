// `filebox mcp` driven by the official TypeScript SDK, over stdio and over Streamable HTTP.

import assert from "node:assert/strict";
import { request } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, McpError, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

import { fileboxBin, makeMailroom, startHttpServer } from "./helpers.mjs";

const sleep = (ms) => new Promise((wake) => setTimeout(wake, ms));
const text = (result) => result.content.map((block) => block.text).join("\n");

const transports = {
  stdio: async (mailroom) => ({
    transport: new StdioClientTransport({ command: fileboxBin, args: ["mcp"], env: mailroom.env("qa"), stderr: "inherit" }),
    stop: async () => {},
  }),
  http: async (mailroom) => {
    const server = await startHttpServer(mailroom);
    return { transport: new StreamableHTTPClientTransport(new URL(server.url)), stop: server.stop };
  },
};

for (const [name, open] of Object.entries(transports)) {
  describe(`TypeScript SDK over ${name}`, () => {
    let mailroom;
    let client;
    let stop;
    const updates = [];

    before(async () => {
      mailroom = makeMailroom();
      const opened = await open(mailroom);
      stop = opened.stop;
      client = new Client({ name: "filebox-ts-test", version: "1.0.0" });
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
        updates.push(note.params.uri);
      });
      await client.connect(opened.transport);
    });

    after(async () => {
      await client?.close();
      await stop?.();
      mailroom?.remove();
    });

    test("lists the tools with their annotations", async () => {
      const { tools } = await client.listTools();
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
      assert.deepEqual(Object.keys(byName).sort(), [
        "ask_question", "fork_thread", "get_answer", "get_thread", "hold_message", "list_agents",
        "list_messages", "list_teams", "list_threads", "message_status", "read_message",
        "read_team_inbox", "reject_message", "reply_message", "resolve_message", "search_messages",
        "send_message", "send_team_message", "task_finish", "team_inbox", "wait_for_messages",
        "work_report",
      ]);
      assert.equal(byName.list_teams.annotations.readOnlyHint, true);
      assert.equal(byName.team_inbox.annotations.readOnlyHint, true);
      assert.equal(byName.read_team_inbox.annotations.readOnlyHint, false);
      assert.equal(byName.send_team_message.annotations.destructiveHint, false);
      assert.equal(byName.list_messages.annotations.readOnlyHint, true);
      assert.equal(byName.search_messages.annotations.readOnlyHint, true);
      assert.equal(byName.get_thread.annotations.readOnlyHint, true);
      assert.equal(byName.resolve_message.annotations.destructiveHint, true);
      assert.equal(byName.send_message.annotations.destructiveHint, false);
      assert.equal(byName.fork_thread.annotations.readOnlyHint, false);
      assert.equal(byName.fork_thread.annotations.destructiveHint, false);
      // A wait moves the cursor it shares with `filebox wait`: not read-only, loses nothing.
      assert.equal(byName.wait_for_messages.annotations.readOnlyHint, false);
      assert.equal(byName.wait_for_messages.annotations.destructiveHint, false);
    });

    test("sends, lists, reads and resolves: a listing and a message as text, the rest structured too", async () => {
      const incoming = mailroom.sendToQa("BR", "The export is empty");
      const listed = await client.callTool({ name: "list_messages", arguments: { folder: "inbox" } });
      assert.equal(listed.isError, false);
      assert.equal(listed.structuredContent, undefined);
      assert.match(text(listed), new RegExp(`^[* ] ${incoming.slice(0, 8)} BR dev \\S+ The export is empty$`, "m"));

      const read = await client.callTool({ name: "read_message", arguments: { id: incoming } });
      assert.equal(read.structuredContent, undefined);
      assert.match(text(read), /## Original Request\/Content\n\nThe export is empty/);

      const sent = await client.callTool({
        name: "send_message",
        arguments: { to: ["dev"], type: "ER", title: "Faster export", content: "Please make it *fast*." },
      });
      assert.equal(sent.isError, false);
      assert.match(sent.structuredContent.id, /^[0-9a-f-]{36}$/);
      assert.ok(mailroom.filebox(["list", "inbox", "--json"]).includes(sent.structuredContent.id));

      const resolved = await client.callTool({ name: "resolve_message", arguments: { id: incoming, details: "fixed" } });
      assert.equal(resolved.structuredContent.folder, "done");
    });

    test("search_messages finds mail, get_thread shows the replies as a tree", async () => {
      const incoming = mailroom.sendToQa("ER", "Translate the manual: 翻译用户手册");
      const found = await client.callTool({ name: "search_messages", arguments: { query: "翻译" } });
      assert.equal(found.isError, false, text(found));
      const hits = (result) => text(result).split("\n").filter((line) => !line.startsWith(" ")).map((line) => line.split(" ")[0]);
      assert.deepEqual(hits(found), [incoming.slice(0, 8)]);
      const english = await client.callTool({ name: "search_messages", arguments: { query: "manual", folder: "inbox" } });
      assert.deepEqual(hits(english), [incoming.slice(0, 8)]);

      const replied = await client.callTool({ name: "reply_message", arguments: { id: incoming, content: "On it." } });
      assert.equal(replied.isError, false, text(replied));
      const thread = await client.callTool({ name: "get_thread", arguments: { id: incoming } });
      assert.equal(thread.isError, false, text(thread));
      assert.deepEqual(
        thread.structuredContent.nodes.map((node) => [node.id, node.parent, node.depth]),
        [[incoming, null, 0], [`${incoming}#1`, incoming, 1]],
      );
      assert.match(text(thread), /^# Thread: Translate the manual/);
      const resource = await client.readResource({ uri: `filebox://thread/${incoming}` });
      assert.equal(resource.contents[0].text, text(thread));
    });

    test("a failure is an error result that says what to do", async () => {
      const again = await client.callTool({ name: "reject_message", arguments: { id: "0123abcd", reason: "no" } });
      assert.equal(again.isError, true);
      assert.equal(again.structuredContent, undefined);
      assert.match(text(again), /no message .*list_messages/);
    });

    test("arguments that do not fit are an error result; an unknown tool a protocol error", async () => {
      const unfit = await client.callTool({ name: "send_message", arguments: { to: "dev" } });
      assert.equal(unfit.isError, true);
      assert.match(text(unfit), /^invalid arguments for send_message: type: missing field `type`.*Correct that argument/);
      await assert.rejects(client.callTool({ name: "nope", arguments: {} }), McpError);
    });

    test("wait_for_messages reports progress and returns the new mail", async () => {
      const progress = [];
      const waiting = client.callTool(
        { name: "wait_for_messages", arguments: { timeout: 20 } },
        undefined,
        { onprogress: (note) => progress.push(note), timeout: 30_000 },
      );
      // The wait is running once it reports progress (about a second in).
      while (progress.length === 0) await sleep(50);
      const listed = await client.callTool({ name: "list_agents", arguments: {} });
      assert.equal(listed.isError, false);
      const arrived = mailroom.sendToQa("ER", "Mail while you wait");
      const result = await waiting;
      assert.deepEqual(result.structuredContent.messages.map((m) => m.id), [arrived]);
      assert.ok(progress.length >= 1, "no progress notification");
      assert.equal(progress[0].total, 20);
    });

    test("a subscriber hears of mail sent by another process", async () => {
      await client.subscribeResource({ uri: "filebox://inbox" });
      updates.length = 0;
      mailroom.sendToQa("DIS", "Shall we talk?");
      const deadline = Date.now() + 10_000;
      while (!updates.includes("filebox://inbox")) {
        assert.ok(Date.now() < deadline, "no notifications/resources/updated");
        await sleep(50);
      }
      const inbox = await client.readResource({ uri: "filebox://inbox" });
      assert.match(inbox.contents[0].text, /Shall we talk/);
    });

    test("the process_inbox prompt carries the classification rule", async () => {
      const prompt = await client.getPrompt({ name: "process_inbox" });
      assert.match(prompt.messages[0].content.text, /Unreasonable ER/);
    });
  });
}

describe("Streamable HTTP Host checks (DNS rebinding)", () => {
  let mailroom;
  before(() => {
    mailroom = makeMailroom();
  });
  after(() => mailroom?.remove());

  const post = (port, host, origin) =>
    new Promise((done, fail) => {
      const body = JSON.stringify({
        jsonrpc: "2.0", id: 1, method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      const req = request(
        {
          host: "127.0.0.1", port, path: "/mcp", method: "POST",
          headers: {
            Host: host, "Content-Type": "application/json", Accept: "application/json, text/event-stream",
            ...(origin ? { Origin: origin } : {}),
          },
        },
        (res) => {
          res.resume();
          done(res.statusCode);
        },
      );
      req.on("error", fail);
      req.end(body);
    });

  test("only loopback hosts by default", async () => {
    const server = await startHttpServer(mailroom);
    try {
      assert.equal(await post(server.port, `evil.example:${server.port}`), 403);
      assert.equal(await post(server.port, `localhost:${server.port}`), 200);
    } finally {
      await server.stop();
    }
  });

  test("a page of another origin is refused, the server's own page is not", async () => {
    const server = await startHttpServer(mailroom);
    const host = `localhost:${server.port}`;
    try {
      // Another local server's page (a dev server on another port), and a foreign site.
      assert.equal(await post(server.port, host, "http://localhost:3000"), 403);
      assert.equal(await post(server.port, host, "https://evil.example"), 403);
      assert.equal(await post(server.port, host, `http://localhost:${server.port}`), 200);
      assert.equal(await post(server.port, host, `http://127.0.0.1:${server.port}`), 200);
    } finally {
      await server.stop();
    }
  });

  test("--allow-host adds a host", async () => {
    const server = await startHttpServer(mailroom, ["--allow-host", "filebox.test"]);
    try {
      assert.equal(await post(server.port, `filebox.test:${server.port}`), 200);
      assert.equal(await post(server.port, `evil.example:${server.port}`), 403);
    } finally {
      await server.stop();
    }
  });
});

// `ask_question` also asks in the host's own form (elicitation/create while the call waits, in
// the SDK's 2025-11-25 session): the person's answer there is the human's reply in the files.
for (const [name, open] of Object.entries(transports)) {
  test(`TypeScript SDK as a host with a form over ${name}: its answer is the human's reply`, async () => {
    const mailroom = makeMailroom();
    mailroom.filebox(["agents", "add", "me", "--kind", "human", "--mailbox", join(mailroom.root, "me")]);
    const opened = await open(mailroom);
    const client = new Client({ name: "filebox-ts-host", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    const shown = [];
    client.setRequestHandler(ElicitRequestSchema, async (asked) => {
      shown.push(asked.params.message);
      return { action: "accept", content: { answer: "Postgres" } };
    });
    try {
      await client.connect(opened.transport);
      const result = await client.callTool({
        name: "ask_question",
        arguments: { project_directory: "/src/app", question: "Which database?" },
      });
      assert.deepEqual(shown, ["Which database?"]);
      assert.equal(text(result), "Postgres");
      assert.equal(result.structuredContent.answer.from, "me");
      const done = JSON.parse(mailroom.filebox(["--json", "list", "done"], "me")).messages;
      assert.deepEqual(done.map((m) => m.type), ["ASK"]);
    } finally {
      await client.close();
      await opened.stop();
      mailroom.remove();
    }
  });
}
