// Reading a message: its header (type, who to whom, when, the file as a small detail), body and
// conversation, "Show thread", and a reply box when the mailbox is the human's own.

import { $, el, onCtrlEnter } from "./dom.js";
import { markdown, plainTitle } from "./markdown.js";
import { dayAndTime, timeNode } from "./dates.js";
import { kindName } from "./kinds.js";
import { threadGraph } from "./thread.js";

/** `read(agent, id)`: shows `agent`'s message `id` in the #reader. */
export function messageReader(hub, human) {
  const reader = $("#reader");
  async function read(agent, id) {
    reader.hidden = false;
    try {
      const message = await hub.call("email.read", { agent, id });
      // Only nodes: replaceChildren would show a null as the text "null".
      reader.replaceChildren(...[...messageNodes(message, { hub, agent }),
        message.folder === "outbox" ? await recipientsLine(hub, agent, message.id) : null,
        el("div", { className: "actions" },
          el("button", { type: "button", textContent: "Show thread", onclick: () => showThread(agent, message.id) })),
        agent === human?.id ? replyBox(hub, human, message) : null].filter(Boolean));
    } catch (error) {
      reader.replaceChildren(el("p", { className: "error", textContent: error.message }));
    }
  }
  async function showThread(agent, id) {
    const graph = await threadGraph(hub, agent, id, (nodeId) => read(agent, nodeId));
    $("#thread")?.remove();
    reader.append(el("section", { id: "thread" }, el("h4", { textContent: "Thread" }), el("div", { className: "graph" }, graph)));
  }
  return read;
}

function messageNodes(message, context) {
  return [
    el("h3", { textContent: plainTitle(message.subject) }),
    el("div", { className: "about" },
      el("span", { className: "kind pill", textContent: kindName(message.type), title: message.type }),
      message.priority === "urgent" ? el("span", { className: "pill urgent-pill", textContent: "urgent" }) : null,
      el("span", {}, el("strong", { textContent: message.from }), ` → ${message.to.join(", ")}`),
      el("span", { className: "muted" }, timeNode(message.createdAt, dayAndTime(message.createdAt)), ` · ${message.status}`)),
    el("div", { className: "file muted", textContent: `${message.folder}/${message.file}` }),
    markdown(message.body, context),
    ...(message.replies || []).map((reply) => el("div", { className: "entry" },
      el("div", { className: "muted" }, el("strong", { textContent: reply.from }), ` → ${reply.to} · ${kindName(reply.type)} · `,
        timeNode(reply.createdAt, dayAndTime(reply.createdAt))),
      markdown(reply.body, context))),
  ];
}

/** How far each recipient of a message I sent got: `qa read · dev delivered`. */
async function recipientsLine(hub, agent, id) {
  try {
    const { recipients } = await hub.call("email.status", { agent, id });
    const text = recipients.map((r) => `${r.agent} ${r.status}`).join(" · ");
    return el("div", { className: "muted recipients", textContent: `Recipients: ${text}` });
  } catch {
    return null;
  }
}

function replyBox(hub, human, message) {
  const box = el("textarea", { rows: 3, placeholder: "Reply as the human (Ctrl+Enter sends)" });
  const status = el("span", { className: "muted" });
  const send = async () => {
    try {
      await hub.call("email.reply", { from: human.id, id: message.id, body: box.value });
      status.textContent = "Replied.";
      box.value = "";
    } catch (error) {
      status.textContent = `Not sent: ${error.message}`;
    }
  };
  onCtrlEnter(box, send);
  return el("div", { className: "reply" }, box,
    el("div", { className: "actions" }, el("button", { type: "button", className: "primary", textContent: "Reply", onclick: send }), status));
}
