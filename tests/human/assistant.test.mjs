// Agent Assistant's own clients against `filebox serve`, built from the origin's current wire
// (fixtures/agentassist-upstream.proto, written to the origin's field names and numbers, not
// the hub's .proto): the agent side with connect-node (@connectrpc/connect-node 1.x, the
// service and messages made by @bufbuild/protobuf from that file's descriptors, which
// protobufjs compiles), the human side as the origin's Flutter/web client speaks it, a
// WebSocket at /ws (npm `ws`) of binary WebsocketMessage frames encoded by protobufjs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import protobuf from "protobufjs";
import descriptor from "protobufjs/ext/descriptor/index.js";
import { createRegistryFromDescriptors, MethodKind } from "@bufbuild/protobuf";
import { Code, ConnectError, createPromiseClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import WebSocket from "ws";
import { PNG, filebox, mailroom, serve, stop } from "./support.mjs";

const here = new URL(".", import.meta.url).pathname;
const root = new protobuf.Root().loadSync(join(here, "fixtures/agentassist-upstream.proto"), { keepCase: true });
const WebsocketMessage = root.lookupType("agentassistproto.WebsocketMessage");
// The connect-es service, as a generator would make it, from the fixture's descriptors.
const registry = createRegistryFromDescriptors(descriptor.FileDescriptorSet.encode(qualified(root.toDescriptor("proto3"))).finish());
const SrvAgentAssist = registry.findService("agentassistproto.SrvAgentAssist");
/** protobufjs names types relative to the package; descriptors (and @bufbuild/protobuf) want
 * them fully qualified: `.agentassistproto.Message`, `.agentassistproto.Message.MapEntry`. */
function qualified(set) {
  for (const file of set.file) {
    const pkg = `.${file.package}`;
    const top = new Set(file.messageType.map((m) => m.name));
    const name = (type, parent) => {
      if (!type || type.startsWith(".")) return type;
      if (parent && (parent.nestedType || []).some((n) => n.name === type)) return `${pkg}.${parent.name}.${type}`;
      assert.ok(top.has(type), `type ${type} is in the package`);
      return `${pkg}.${type}`;
    };
    const fix = (message) => {
      for (const field of message.field || []) field.typeName = name(field.typeName, message);
      for (const nested of message.nestedType || []) {
        for (const field of nested.field || []) field.typeName = name(field.typeName, nested);
      }
    };
    file.messageType.forEach(fix);
    for (const service of file.service || []) {
      for (const method of service.method) {
        method.inputType = name(method.inputType);
        method.outputType = name(method.outputType);
      }
    }
  }
  return set;
}

const { env, remove } = mailroom("filebox-assistant-");

let hub;
let url;
let agent; // connect-node client of the agent qa (no token)
let humanToken;

async function cli(as, ...args) {
  const { stdout } = await promisify(execFile)(filebox, args, { env: { ...env, FILEBOX_AGENT: as } });
  return stdout.trim();
}

before(async () => {
  humanToken = (await cli("me", "agents", "token", "me")).split("\n").pop().trim();
  ({ hub, url } = await serve(env));
  // The human's first wait takes the inbox as it is: take it empty, so a later `wait`
  // returns the next question whenever it comes.
  await assert.rejects(cli("me", "wait", "--timeout", "0"), (e) => e.code === 3);
  const transport = createConnectTransport({ baseUrl: url.replace(/\/$/, ""), httpVersion: "1.1" });
  agent = createPromiseClient(SrvAgentAssist, transport);
});

after(async () => {
  await stop(hub);
  remove();
});

/** A client of /ws: `next(cmd)` resolves with the next frame of that Cmd (decoded). */
async function connect({ origin } = {}) {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}ws`, origin ? { origin } : {});
  const frames = [];
  const waiters = [];
  socket.on("message", (data, binary) => {
    assert.ok(binary, "the hub sends binary frames only");
    const message = WebsocketMessage.toObject(WebsocketMessage.decode(data), { longs: Number, defaults: true });
    frames.push(message);
    for (const waiter of [...waiters]) waiter();
  });
  const closed = new Promise((resolve) => socket.on("close", resolve));
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("unexpected-response", (_, response) => reject(Object.assign(new Error("refused"), { status: response.statusCode })));
    socket.once("error", reject);
  });
  const client = {
    socket,
    closed,
    send(message) {
      socket.send(WebsocketMessage.encode(WebsocketMessage.create(message)).finish());
    },
    /** The next frame with this Cmd (frames of other commands stay for their own `next`). */
    next(cmd) {
      return new Promise((resolve) => {
        const look = () => {
          const at = frames.findIndex((f) => f.Cmd === cmd);
          if (at < 0) return false;
          waiters.splice(waiters.indexOf(look), 1);
          resolve(frames.splice(at, 1)[0]);
          return true;
        };
        waiters.push(look);
        look();
      });
    },
    async login(token = humanToken, nickname = "Ada") {
      client.send({ Cmd: "UserLogin", StrParam: token, Nickname: nickname });
      return (await client.next("UserLogin")).UserLoginResponse;
    },
    async pending() {
      client.send({ Cmd: "GetPendingMessages", GetPendingMessagesRequest: { user_token: humanToken } });
      return (await client.next("GetPendingMessages")).GetPendingMessagesResponse;
    },
    close() {
      socket.close();
      return closed;
    },
  };
  return client;
}

const text = (t) => ({ type: 1, text: { type: "text", text: t } });

test("a foreign Origin is refused before the upgrade", async () => {
  await assert.rejects(connect({ origin: "http://localhost:3000" }), (e) => e.status === 403);
});

test("a token that is no human's is refused and the connection closed", async () => {
  const client = await connect();
  const refused = await client.login("not-a-token");
  assert.equal(refused.success, false);
  assert.match(refused.error_message, /unknown token/);
  await client.closed;
  const agentToken = (await cli("qa", "agents", "token", "qa")).split("\n").pop().trim();
  const second = await connect();
  const asAgent = await second.login(agentToken);
  assert.equal(asAgent.success, false);
  assert.match(asAgent.error_message, /qa's, an agent's/);
  await second.closed;
  // qa asks with its token from now on.
  process.env.QA_TOKEN = agentToken;
});

test("SendMcpClientInfo is recorded; a question asked offline is pending at login, with its fields", async () => {
  const qa = process.env.QA_TOKEN;
  const info = await agent.sendMcpClientInfo({
    ID: "c1",
    UserToken: qa,
    Request: { ProtocolVersion: "2025-06-18", CapabilitiesJson: "{}", ClientName: "Cursor", ClientVersion: "1.3.2" },
    Timestamp: BigInt(Date.now()),
  });
  assert.equal(info.Success, true);
  const asked = agent.askQuestion({
    ID: "offline-1",
    UserToken: qa,
    Request: { ProjectDirectory: "/src/app", Question: "Asked while you were away?", AgentName: "Ada-agent", ReasoningModelName: "o3" },
    Timestamp: BigInt(1764072000),
  });
  // Offline: the question is in the files; the client logs in and finds it pending.
  await cli("me", "wait", "--timeout", "60");
  const client = await connect();
  const login = await client.login();
  assert.equal(login.success, true);
  assert.ok(login.client_id);
  const pending = await client.pending();
  assert.equal(pending.total_count, 1);
  const [message] = pending.pending_messages;
  assert.equal(message.message_type, "AskQuestion");
  const request = message.ask_question_request;
  assert.equal(request.UserToken, humanToken);
  assert.equal(request.Request.Question, "Asked while you were away?");
  assert.equal(request.Request.AgentName, "Ada-agent");
  assert.equal(request.Request.ReasoningModelName, "o3");
  assert.equal(request.Request.McpClientName, "Cursor 1.3.2 (MCP 2025-06-18)");
  assert.equal(request.Timestamp, 1764072000);
  assert.ok(message.created_at > 0);
  // The page's listing shows the same fields.
  const { questions } = JSON.parse(await cli("me", "--json", "questions"));
  assert.equal(questions[0].agent_name, "Ada-agent");
  assert.equal(questions[0].sent_at, "2025-11-25T12:00:00Z");
  // Answered over /ws, with an image: the agent's call returns both.
  client.send({
    Cmd: "AskQuestionReply",
    AskQuestionRequest: { ID: request.ID },
    AskQuestionResponse: { ID: request.ID, contents: [text("Yes, go."), { type: 2, image: { type: "image", data: PNG.toString("base64"), mime_type: "image/png" } }] },
  });
  const answer = await asked;
  assert.match(answer.contents[0].text.text, /Yes, go\./);
  assert.equal(answer.contents[1].type, 2);
  assert.equal(answer.Meta.status, "answered");
  await client.close();
});

test("a new question is pushed to every client; the first answer wins, the second is told", async () => {
  const qa = process.env.QA_TOKEN;
  const first = await connect();
  const second = await connect();
  assert.equal((await first.login(humanToken, "laptop")).success, true);
  const secondLogin = await second.login(humanToken, "phone");
  assert.equal(secondLogin.success, true);
  // The first client hears of the second one; both are online.
  const status = await first.next("UserConnectionStatusNotification");
  assert.equal(status.UserConnectionStatusNotification.status, "connected");
  assert.equal(status.UserConnectionStatusNotification.user.nickname, "phone");
  first.send({ Cmd: "GetOnlineUsers", GetOnlineUsersRequest: { user_token: humanToken } });
  const online = (await first.next("GetOnlineUsers")).GetOnlineUsersResponse;
  assert.deepEqual(online.online_users.map((u) => u.nickname).sort(), ["laptop", "phone"]);
  // Chat between them.
  first.send({ Cmd: "SendChatMessage", SendChatMessageRequest: { receiver_client_id: secondLogin.client_id, content: "I'll take this one" } });
  const chat = (await second.next("ChatMessageNotification")).ChatMessageNotification.chat_message;
  assert.equal(chat.content, "I'll take this one");
  assert.equal(chat.sender_nickname, "laptop");

  const report = agent.workReport({ ID: "r1", UserToken: qa, Request: { ProjectDirectory: "/src/app", Summary: "Migrated the schema.", AgentName: "Ada-agent" } });
  const [pushedFirst, pushedSecond] = await Promise.all([first.next("WorkReport"), second.next("WorkReport")]);
  const id = pushedFirst.WorkReportRequest.ID;
  assert.equal(pushedSecond.WorkReportRequest.ID, id);
  assert.equal(pushedFirst.WorkReportRequest.Request.Summary, "Migrated the schema.");
  first.send({ Cmd: "WorkReportReply", WorkReportRequest: { ID: id }, WorkReportResponse: { ID: id, contents: [text("Approved.")] } });
  const done = await report;
  assert.match(done.contents[0].text.text, /Approved\./);
  // The second client is told who answered, and its own late answer is refused and told.
  const notice = await second.next("WorkReportReplyNotification");
  assert.equal(notice.WorkReportRequest.ID, id);
  assert.equal(notice.Nickname, "laptop");
  assert.equal(notice.StrParam, online.online_users.find((u) => u.nickname === "laptop").client_id);
  second.send({ Cmd: "WorkReportReply", WorkReportRequest: { ID: id }, WorkReportResponse: { ID: id, contents: [text("Rejected.")] } });
  const refused = (await second.next("RequestCancelled")).RequestCancelledNotification;
  assert.equal(refused.request_id, id);
  assert.match(refused.reason, /answered once/);
  // Validity: no longer open.
  second.send({ Cmd: "CheckMessageValidity", CheckMessageValidityRequest: { request_ids: [id] } });
  const validity = (await second.next("CheckMessageValidity")).CheckMessageValidityResponse.validity;
  assert.equal(validity[id], false);
  await first.close();
  await second.close();
});

test("a question its agent withdraws reaches the client as a cancellation", async () => {
  const qa = process.env.QA_TOKEN;
  const client = await connect();
  assert.equal((await client.login()).success, true);
  const gaveUp = new AbortController();
  const asked = agent.askQuestion(
    { ID: "w1", UserToken: qa, Request: { ProjectDirectory: "/src/app", Question: "Still there?" } },
    { signal: gaveUp.signal },
  );
  const pushed = await client.next("AskQuestion");
  const id = pushed.AskQuestionRequest.ID;
  client.send({ Cmd: "CheckMessageValidity", CheckMessageValidityRequest: { request_ids: [id, "no-such-id"] } });
  const validity = (await client.next("CheckMessageValidity")).CheckMessageValidityResponse.validity;
  assert.deepEqual({ ...validity }, { [id]: true, "no-such-id": false });
  gaveUp.abort();
  await assert.rejects(asked, (e) => ConnectError.from(e).code === Code.Canceled);
  const cancelled = (await client.next("RequestCancelled")).RequestCancelledNotification;
  assert.equal(cancelled.request_id, id);
  assert.equal(cancelled.message_type, "AskQuestion");
  assert.match(cancelled.reason, /withdrawn/);
  await client.close();
});

test("connect-node: 40 calls of an unknown procedure all get `unimplemented`, none a broken pipe", async () => {
  const methods = SrvAgentAssist.methods;
  const unknown = {
    typeName: SrvAgentAssist.typeName,
    methods: { noSuch: { name: "NoSuchProcedure", I: methods.askQuestion.I, O: methods.askQuestion.O, kind: MethodKind.Unary } },
  };
  const transport = createConnectTransport({ baseUrl: url.replace(/\/$/, ""), httpVersion: "1.1" });
  const client = createPromiseClient(unknown, transport);
  // A body big enough that the client is still sending when an early answer would come.
  const question = "x".repeat(256 * 1024);
  const codes = await Promise.all(
    Array.from({ length: 40 }, () =>
      client.noSuch({ ID: "u", Request: { ProjectDirectory: "/p", Question: question } }).then(
        () => "ok",
        (e) => `${Code[ConnectError.from(e).code]}: ${ConnectError.from(e).rawMessage.slice(0, 60)}`,
      ),
    ),
  );
  for (const code of codes) assert.match(code, /^Unimplemented: /);
});

test("40 requests of a wrong content type, still sending when refused, all get 415 and the Connect error", async () => {
  const body = Buffer.alloc(256 * 1024, "x");
  const answers = await Promise.all(
    Array.from({ length: 40 }, async () => {
      const response = await fetch(`${url}agentassistproto.SrvAgentAssist/WorkReport`, {
        method: "POST",
        headers: { "Content-Type": "text/plain", "Connect-Protocol-Version": "1" },
        body,
      });
      return [response.status, response.headers.get("accept-post"), (await response.json()).code];
    }),
  );
  for (const answer of answers) assert.deepEqual(answer, [415, "application/json, application/proto", "invalid_argument"]);
});

test("connect-node with the JSON codec gets the same answers", async () => {
  const transport = createConnectTransport({ baseUrl: url.replace(/\/$/, ""), httpVersion: "1.1", useBinaryFormat: false });
  const client = createPromiseClient(SrvAgentAssist, transport);
  const info = await client.sendMcpClientInfo({ UserToken: process.env.QA_TOKEN, Request: { ClientName: "Cursor", ClientVersion: "1.4.0" } });
  assert.equal(info.Success, true);
  await assert.rejects(
    client.sendMcpClientInfo({ UserToken: process.env.QA_TOKEN, Request: { ClientName: "" } }),
    (e) => ConnectError.from(e).code === Code.InvalidArgument,
  );
});

