// Stand-ins of the hosts' model APIs on 127.0.0.1 (port 0): each records every request it gets
// and answers the host's agent loop from a script, one step per request that offers tools: a
// step is either `{ tool: NAME, input }` (the model calls that tool) or `{ text }` (the model
// answers and the turn ends), and may carry `meanwhile()`, run as the step is taken. A request that offers no tools (a title, a summary) and a request
// past the script's end get a plain text answer, so a host never hangs on its stand-in.
//
//   anthropic(): the Messages API, streamed as server-sent events (Claude Code, ANTHROPIC_BASE_URL)
//   responses(): the OpenAI Responses API, streamed (Codex, a model provider's base_url)
//   gemini():    the Gemini API's streamGenerateContent (Gemini CLI, GOOGLE_GEMINI_BASE_URL)
// Copilot CLI takes responses() too (COPILOT_PROVIDER_BASE_URL, COPILOT_PROVIDER_WIRE_API).

import { createServer } from "node:http";

/** Start one stand-in: `answer(request, res)` writes the reply of a POST it recognises. */
async function listen(recognise) {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const request = { method: req.method, url: req.url, headers: req.headers, body };
      requests.push(request);
      const answer = req.method === "POST" ? recognise(request) : null;
      if (answer) answer(res);
      else {
        // Anything else (a HEAD probe, telemetry): answered, never left hanging.
        res.writeHead(req.method === "HEAD" ? 200 : 404, { "content-type": "application/json" });
        res.end(req.method === "HEAD" ? undefined : "{}");
      }
    });
  });
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(done);
      }),
  };
}

/** The next step of `script` for a request that offers `tools` (their names); text once the
 * script is spent. A step's tool is named as FileBox names it (`list_messages`) and called by
 * the name the host offers it under (`mcp__filebox__list_messages`, `mcp_filebox_list_messages`,
 * `filebox-list_messages`). */
function stepper(script) {
  let next = 0;
  return (tools) => {
    if (tools.length === 0 || next >= script.length) return { text: "Done." };
    const step = script[next++];
    // What happens in the world while the model "thinks" (mail arriving during the turn).
    step.meanwhile?.();
    if (!step.tool) return step;
    const offered = tools.find((name) => name === step.tool || ["_", "-", "/"].some((cut) => name.endsWith(`${cut}${step.tool}`)));
    if (!offered) return { text: `The host offers no tool ${step.tool}: ${tools.join(", ")}.` };
    return { ...step, tool: offered };
  };
}

function sse(res, events) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) {
    res.write(event ? `event: ${event}\ndata: ${JSON.stringify(data)}\n\n` : `data: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

/** The Anthropic Messages API (`POST /v1/messages`, `stream: true`). */
export async function anthropic(script) {
  const step = stepper(script);
  let calls = 0;
  const standin = await listen((request) => {
    if (!request.url.startsWith("/v1/messages")) return null;
    if (request.url.startsWith("/v1/messages/count_tokens")) {
      return (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: 1000 }));
      };
    }
    const body = request.body ?? {};
    const reply = step((body.tools ?? []).map((tool) => tool.name));
    calls += 1;
    const id = `msg_standin_${calls}`;
    const message = {
      id,
      type: "message",
      role: "assistant",
      model: body.model ?? "claude-standin",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    };
    const block = reply.tool
      ? [
          ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: `toolu_standin_${calls}`, name: reply.tool, input: {} } }],
          ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(reply.input ?? {}) } }],
        ]
      : [
          ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
          ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: reply.text } }],
        ];
    if (body.stream === false) {
      return (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        const content = reply.tool
          ? [{ type: "tool_use", id: `toolu_standin_${calls}`, name: reply.tool, input: reply.input ?? {} }]
          : [{ type: "text", text: reply.text }];
        res.end(JSON.stringify({ ...message, content, stop_reason: reply.tool ? "tool_use" : "end_turn" }));
      };
    }
    return (res) =>
      sse(res, [
        ["message_start", { type: "message_start", message }],
        ...block,
        ["content_block_stop", { type: "content_block_stop", index: 0 }],
        ["message_delta", { type: "message_delta", delta: { stop_reason: reply.tool ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } }],
        ["message_stop", { type: "message_stop" }],
      ]);
  });
  return standin;
}

/** The OpenAI Responses API (`POST /v1/responses`, streamed). */
export async function responses(script) {
  const step = stepper(script);
  let calls = 0;
  return listen((request) => {
    if (!request.url.startsWith("/v1/responses")) return null;
    const body = request.body ?? {};
    // Codex offers an MCP server's tools as one `namespace` tool holding them: its calls name
    // the namespace and the tool apart.
    const names = (body.tools ?? []).flatMap((tool) =>
      tool.type === "namespace" ? (tool.tools ?? []).map((inner) => `${tool.name}/${inner.name}`) : [tool.name],
    );
    const reply = step(names.filter(Boolean));
    const [namespace, name] = reply.tool?.includes("/") ? reply.tool.split("/") : [undefined, reply.tool];
    calls += 1;
    const id = `resp_standin_${calls}`;
    const item = reply.tool
      ? { type: "function_call", id: `fc_standin_${calls}`, call_id: `call_standin_${calls}`, ...(namespace && { namespace }), name, arguments: JSON.stringify(reply.input ?? {}), status: "completed" }
      : { type: "message", id: `msg_standin_${calls}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: reply.text, annotations: [] }] };
    const response = { id, object: "response", status: "in_progress", model: body.model ?? "standin", output: [] };
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    return (res) =>
      sse(res, [
        ["response.created", { type: "response.created", response }],
        ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress" } }],
        ...(reply.tool ? [] : [["response.output_text.delta", { type: "response.output_text.delta", item_id: item.id, output_index: 0, content_index: 0, delta: reply.text }]]),
        ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
        ["response.completed", { type: "response.completed", response: { ...response, status: "completed", output: [item], usage } }],
      ]);
  });
}

/** The Gemini API (`POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`, and
 * `:generateContent` unstreamed). */
export async function gemini(script) {
  const step = stepper(script);
  return listen((request) => {
    const method = request.url.match(/^\/[^/]+\/models\/[^:]+:(\w+)/)?.[1];
    if (method === "countTokens") {
      return (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ totalTokens: 1000 }));
      };
    }
    if (method !== "streamGenerateContent" && method !== "generateContent") return null;
    const body = request.body ?? {};
    const names = (body.tools ?? []).flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => declaration.name));
    // A side question asking for JSON (Gemini CLI's model router, its next-speaker check)
    // gets the least answer its schema allows; only the agent loop's requests take a step.
    const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
    const reply = schema ? { text: JSON.stringify(least(schema)) } : step(names);
    const part = reply.tool ? { functionCall: { name: reply.tool, args: reply.input ?? {} } } : { text: reply.text };
    const answer = {
      candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: body.model ?? "gemini-standin",
    };
    if (method === "generateContent") {
      return (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(answer));
      };
    }
    return (res) => sse(res, [[null, answer]]);
  });
}

/** The least value of a (Gemini, OpenAPI-style) JSON schema: its required properties, each
 * the least of its own type; the first of an enum. */
function least(schema) {
  if (schema.enum) return schema.enum[0];
  switch (String(schema.type ?? "object").toLowerCase()) {
    case "object":
      return Object.fromEntries((schema.required ?? []).map((name) => [name, least(schema.properties?.[name] ?? {})]));
    case "array":
      return [];
    case "string":
      return "standin";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    default:
      return null;
  }
}
