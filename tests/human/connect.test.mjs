// Connect RPC on `filebox serve` (Agent Assistant's SrvAgentAssist): a client speaking the Connect
// unary protocol with raw fetch, the JSON codec as is and the binary codec through protobufjs
// with the repo's agentassist.proto loaded at run time (so the hub's hand-written prost types
// are checked against that file). AskQuestion and TaskFinish block until the human answers
// (over JSON-RPC email.reply, or with the CLI); a bad body, an unknown media type and a wrong
// token get Connect errors with the protocol's HTTP status.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import protobuf from "protobufjs";
import { PNG, filebox, mailroom, serve, stop } from "./support.mjs";

const here = new URL(".", import.meta.url).pathname;
const proto = new protobuf.Root().loadSync(join(here, "../../crates/filebox-hub/proto/agentassist.proto"), { keepCase: true });
const type = (name) => proto.lookupType(`agentassistproto.${name}`);
const service = "agentassistproto.SrvAgentAssist";
const { dir, env, remove } = mailroom("filebox-connect-");

/** The CLI as `agent` (asynchronous: the event loop keeps serving the calls in flight). */
async function cli(agent, ...args) {
  const { stdout } = await promisify(execFile)(filebox, args, { env: { ...env, FILEBOX_AGENT: agent } });
  return stdout.trim();
}

/** The CLI as `agent`, expecting exit code `code`. */
async function cliExit(agent, code, ...args) {
  try {
    await cli(agent, ...args);
  } catch (e) {
    assert.equal(e.code, code, e.stderr);
    return;
  }
  assert.fail(`filebox ${args.join(" ")} exited 0`);
}

let hub;
let url;

before(async () => {
  ({ hub, url } = await serve(env));
  // The human's first wait takes the inbox as it is: start it on the empty inbox, so each
  // `wait` below returns the next question whenever it comes.
  await cliExit("me", 3, "wait", "--timeout", "0");
});

after(async () => {
  await stop(hub);
  remove();
});

/** The next question to reach the human (blocks on `filebox wait`, no polling). */
async function nextQuestion() {
  await cli("me", "wait", "--timeout", "60");
  const { questions } = JSON.parse(await cli("me", "--json", "questions"));
  assert.equal(questions.length, 1, JSON.stringify(questions));
  return questions[0];
}

/** A Connect unary call with the JSON codec: [HTTP status, parsed body]. */
async function callJson(method, message, headers = {}) {
  const response = await fetch(`${url}${service}/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1", ...headers },
    body: typeof message === "string" ? message : JSON.stringify(message),
  });
  assert.equal(response.headers.get("content-type"), "application/json");
  return [response.status, await response.json()];
}

/** A Connect unary call with the binary codec: [HTTP status, decoded response]. */
async function callProto(method, message) {
  const request = type(`${method}Request`);
  const response = await fetch(`${url}${service}/${method}`, {
    method: "POST",
    headers: { "Content-Type": "application/proto", "Connect-Protocol-Version": "1" },
    body: request.encode(request.create(message)).finish(),
  });
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal(response.headers.get("content-type"), "application/proto");
  const bytes = new Uint8Array(await response.arrayBuffer());
  return type(`${method}Response`).decode(bytes);
}

test("AskQuestion, JSON codec: the human answers over JSON-RPC with an image; text and ImageContent come back", async () => {
  const asked = callJson("AskQuestion", {
    ID: "req-json",
    Request: { ProjectDirectory: "/src/shop", Question: "Which **colour** for the button?", Timeout: 120 },
  });
  const question = await nextQuestion();
  assert.equal(question.project_directory, "/src/shop");
  assert.equal(question.client, "connect");
  const reply = await fetch(`${url}rpc`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0", id: 1, method: "email.reply",
      params: { from: "me", id: question.id, body: "Green", attachments: [{ name: "mock.png", mimeType: "image/png", data: PNG.toString("base64") }] },
    }),
  });
  assert.equal((await reply.json()).error, undefined);

  const [status, body] = await asked;
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.ID, "req-json");
  assert.equal(body.IsError, undefined); // false: a default, left out of proto3 JSON
  assert.deepEqual(body.Meta, { question_id: question.id, status: "answered", type: "ASK" });
  assert.deepEqual(body.contents.map((c) => c.type), [1, 2]);
  assert.equal(body.contents[0].text.type, "text");
  assert.match(body.contents[0].text.text, /^Green\n\[attached: mock\.png \(image\/png\)/);
  assert.deepEqual(body.contents[1].image, { type: "image", data: PNG.toString("base64"), mimeType: "image/png" });
});

test("AskQuestion, binary codec: the human answers with the CLI and a file; an EmbeddedResource comes back", async () => {
  const notes = join(dir, "notes.txt");
  writeFileSync(notes, "tone: friendly\n");
  const asked = callProto("AskQuestion", {
    ID: "req-proto",
    Request: { ProjectDirectory: "/src/shop", Question: "Notes on the copy?", Timeout: 120 },
  });
  const question = await nextQuestion();
  await cli("me", "reply", question.id, "See the file", "--attach", notes);

  const response = await asked;
  assert.equal(response.ID, "req-proto");
  assert.equal(response.IsError, false);
  assert.equal(response.Meta.status, "answered");
  assert.equal(response.Meta.question_id, question.id);
  assert.deepEqual(response.contents.map((c) => c.type), [1, 4]);
  assert.match(response.contents[0].text.text, /^See the file\n/);
  const file = response.contents[1].embedded_resource;
  assert.equal(file.type, "embedded_resource");
  assert.equal(file.mime_type, "text/plain");
  assert.match(file.uri, /^file:\/\/.*notes\.txt$/);
  assert.equal(Buffer.from(file.data).toString(), "tone: friendly\n");
});

test("TaskFinish, both codecs: the work report reaches the human and the reply comes back", async () => {
  const reported = callProto("TaskFinish", {
    ID: "fin-1",
    Request: { ProjectDirectory: "/src/shop", Summary: "The button is green.", Timeout: 120 },
  });
  const report = await nextQuestion();
  assert.equal(report.type, "RPT");
  await cli("me", "reply", report.id, "OK, ship it");
  const response = await reported;
  assert.equal(response.contents[0].text.text, "OK, ship it");
  assert.equal(response.Meta.type, "RPT");

  const again = callJson("TaskFinish", { ID: "fin-2", Request: { ProjectDirectory: "/src/shop", Summary: "Docs updated." } });
  await cli("me", "reply", (await nextQuestion()).id, "Thanks");
  const [status, body] = await again;
  assert.equal(status, 200);
  assert.equal(body.contents[0].text.text, "Thanks");
});

test("bad requests get Connect errors with the protocol's HTTP status", async () => {
  let [status, body] = await callJson("AskQuestion", "{not json");
  assert.equal(status, 400);
  assert.equal(body.code, "invalid_argument");
  assert.match(body.message, /JSON body/);

  [status, body] = await callJson("AskQuestion", { ID: "x" });
  assert.equal(status, 400);
  assert.deepEqual(body, { code: "invalid_argument", message: "Request is missing" });

  [status, body] = await callJson("AskQuestion", { Request: { Question: "?", Timeout: -5 } });
  assert.equal(status, 400);
  assert.match(body.message, /Timeout must not be negative/);

  const garbage = await fetch(`${url}${service}/AskQuestion`, {
    method: "POST", headers: { "Content-Type": "application/proto" }, body: new Uint8Array([0xff, 0xff, 0xff]),
  });
  assert.equal(garbage.status, 400);
  assert.equal(garbage.headers.get("content-type"), "application/json");
  assert.equal((await garbage.json()).code, "invalid_argument");

  const text = await fetch(`${url}${service}/AskQuestion`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "hi" });
  assert.equal(text.status, 415);
  assert.equal(text.headers.get("accept-post"), "application/json, application/proto");

  const gzip = await fetch(`${url}${service}/AskQuestion`, {
    method: "POST", headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" }, body: "{}",
  });
  assert.equal(gzip.status, 501);
  assert.equal((await gzip.json()).code, "unimplemented");
  assert.deepEqual(JSON.parse(await cli("me", "--json", "questions")).questions, []);
});

test("UserToken is the hub's token: an agent with a token asks only with it", async () => {
  const token = (await cli("qa", "agents", "token", "qa")).split("\n").pop().trim();
  let [status, body] = await callJson("AskQuestion", { Request: { ProjectDirectory: "/p", Question: "No token?" } });
  assert.equal(status, 401);
  assert.equal(body.code, "unauthenticated");
  [status, body] = await callJson("AskQuestion", { UserToken: "wrong", Request: { ProjectDirectory: "/p", Question: "Wrong token?" } });
  assert.equal(status, 401);
  assert.equal(body.code, "unauthenticated");

  const asked = callJson("AskQuestion", { UserToken: token, Request: { ProjectDirectory: "/p", Question: "With the token?" } });
  await cli("me", "reply", (await nextQuestion()).id, "Yes");
  [status, body] = await asked;
  assert.equal(status, 200, JSON.stringify(body));
  assert.equal(body.contents[0].text.text, "Yes");
  // The same token in the Authorization header works too.
  const viaHeader = callJson("TaskFinish", { Request: { ProjectDirectory: "/p", Summary: "Header token" } }, { Authorization: `Bearer ${token}` });
  await cli("me", "reply", (await nextQuestion()).id, "Fine");
  assert.equal((await viaHeader)[1].contents[0].text.text, "Fine");
});
