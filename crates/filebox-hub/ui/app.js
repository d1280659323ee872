// FileBox's page: a human answers agents' questions and reads every mailbox. It writes only
// through the hub's JSON-RPC methods (email.reply, email.send); everything else is read.
// Markdown is turned into DOM nodes with textContent only: raw HTML is never interpreted.

const $ = (selector, root = document) => root.querySelector(selector);
const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
};

// ---- identity: a token from the link (#token=...) is kept for this browser ----
const TOKEN_KEY = "filebox.token";
const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
if (fromLink) {
  localStorage.setItem(TOKEN_KEY, fromLink);
  history.replaceState(null, "", location.pathname + location.search);
}
const token = localStorage.getItem(TOKEN_KEY);
// A token pasted into the address of an open page: keep it and start again with it.
window.addEventListener("hashchange", () => {
  const pasted = new URLSearchParams(location.hash.slice(1)).get("token");
  if (!pasted) return;
  localStorage.setItem(TOKEN_KEY, pasted);
  history.replaceState(null, "", location.pathname + location.search);
  location.reload();
});
const authHeaders = () => (token ? { authorization: `Bearer ${token}` } : {});

let rpcId = 0;
async function rpc(method, params) {
  const response = await fetch("/rpc", {
    method: "POST",
    headers: { "content-type": "application/json", ...authHeaders() },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
  });
  const reply = await response.json();
  if (reply.error) {
    const error = new Error(reply.error.message);
    error.kind = reply.error.data?.kind;
    throw error;
  }
  return reply.result;
}

// ---- Markdown, safely: blocks and inline spans become elements with text content ----
function markdown(text, context) {
  const root = el("div", { className: "md" });
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const code = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) code.push(lines[i]);
      i++;
      root.append(el("pre", {}, el("code", { textContent: code.join("\n") })));
    } else if (/^#{1,6}\s/.test(line)) {
      const level = Math.min(line.match(/^#+/)[0].length + 2, 6);
      root.append(el(`h${level}`, {}, ...inline(line.replace(/^#+\s*/, ""), context)));
      i++;
    } else if (/^\s*([-*+]|\d+\.)\s/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const list = el(ordered ? "ol" : "ul");
      for (; i < lines.length && /^\s*([-*+]|\d+\.)\s/.test(lines[i]); i++) {
        list.append(el("li", {}, ...inline(lines[i].replace(/^\s*([-*+]|\d+\.)\s/, ""), context)));
      }
      root.append(list);
    } else if (/^>/.test(line)) {
      const quote = [];
      for (; i < lines.length && /^>/.test(lines[i]); i++) quote.push(lines[i].replace(/^>\s?/, ""));
      root.append(el("blockquote", {}, ...inline(quote.join(" "), context)));
    } else if (line.trim() === "") {
      i++;
    } else {
      const paragraph = [];
      for (; i < lines.length && lines[i].trim() !== "" && !/^(```|#{1,6}\s|>|\s*([-*+]|\d+\.)\s)/.test(lines[i]); i++) {
        paragraph.push(lines[i]);
      }
      root.append(el("p", {}, ...inline(paragraph.join("\n"), context)));
    }
  }
  return root;
}

const INLINE = /(!?\[([^\]]*)\]\(([^)\s]+)(?:\s+"([^"]*)")?\))|(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)/g;

function inline(text, context) {
  const out = [];
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) out.push(text.slice(last, match.index));
    const [whole, link, label, url, title, code, strong, em] = match;
    if (link) out.push(linkNode(whole.startsWith("!"), label, url, title, context));
    else if (code) out.push(el("code", { textContent: code.slice(1, -1) }));
    else if (strong) out.push(el("strong", { textContent: strong.slice(2, -2) }));
    else if (em) out.push(el("em", { textContent: em.slice(1, -1) }));
    last = match.index + whole.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

// A title is the first line of Markdown: drawn with its inline marks where the page draws
// elements, and without them where only text goes (a notification, the thread graph).
const titleNodes = (text) => inline(text || "", null);
const plainTitle = (text) => (text || "").replace(INLINE, (whole, link, label, url, title, code, strong, em) =>
  link ? label : code ? code.slice(1, -1) : strong ? strong.slice(2, -2) : em.slice(1, -1));

// A link to an attachment (`../attachments/<id>/<name>`) is fetched with the token and shown
// from a blob: URL (an image inline, audio as a player); other links only when http(s).
function linkNode(isImage, label, url, mime, context) {
  const attached = url.match(/^\.\.\/attachments\/([A-Za-z0-9_-]+)\/([A-Za-z0-9._-]+)$/);
  if (attached && context?.agent) {
    const [, id, name] = attached;
    const type = mime || "";
    const holder = el("span", { className: "attachment" });
    const link = el("a", { textContent: label || name, href: "#" });
    holder.append(link);
    fetch(`/attachments/${encodeURIComponent(context.agent)}/${id}/${name}`, { headers: authHeaders() })
      .then((r) => (r.ok ? r.blob() : Promise.reject(new Error(r.statusText))))
      .then((blob) => {
        const src = URL.createObjectURL(blob);
        link.href = src;
        link.download = name;
        if (isImage || type.startsWith("image/")) holder.replaceChildren(el("img", { src, alt: label || name }));
        else if (type.startsWith("audio/")) holder.replaceChildren(el("audio", { src, controls: true }), " ", link);
      })
      .catch(() => holder.append(el("span", { className: "muted", textContent: " (unavailable)" })));
    return holder;
  }
  if (/^https?:\/\//i.test(url)) {
    return el("a", { href: url, textContent: label || url, rel: "noopener noreferrer", target: "_blank" });
  }
  return document.createTextNode(label || url);
}

// ---- who the human is ----
let human = null;
let agents = [];

async function loadAgents() {
  agents = await rpc("agents.list", {});
  const wanted = new URLSearchParams(location.search).get("as");
  human = agents.find((a) => a.id === wanted) || agents.find((a) => a.kind === "human") || null;
  $("#who").textContent = human ? `answering as ${human.id}` : "no human mailbox in the config";
  renderBoxes();
}

// ---- open questions ----
const cards = new Map(); // id -> { node, question }
let firstLoad = true;

function since(iso) {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

async function refreshQuestions() {
  if (!human) return;
  let questions;
  try {
    ({ questions } = await rpc("questions.open", { agent: human.id }));
    $("#problem").hidden = true;
  } catch (error) {
    const hint = error.kind === "unauthorized" || error.kind === "forbidden"
      ? ` Open this page once as ${location.origin}/#token=<token> (the token from \`filebox agents token ${human.id}\`); this browser keeps it.`
      : "";
    $("#problem").textContent = `Cannot list the questions: ${error.message}.${hint}`;
    $("#problem").hidden = false;
    throw error;
  }
  const open = new Set(questions.map((q) => q.id));
  for (const question of questions) {
    if (!cards.has(question.id)) {
      const node = card(question);
      $("#questions").append(node);
      cards.set(question.id, { node, question });
      if (!firstLoad) announce(question);
    }
  }
  for (const [id, entry] of cards) {
    // A card whose answer this page is sending is closed by the send itself ("sent to the agent"),
    // even when the live event that it is answered comes first.
    if (!open.has(id) && !entry.node.classList.contains("closed") && !entry.node.dataset.sending) closeCard(id, entry.node);
  }
  firstLoad = false;
  $("#count").textContent = questions.length ? String(questions.length) : "";
  $("#none").hidden = cards.size > 0;
}

// A question no longer open was answered here, on another page, or by the CLI, or withdrawn.
async function closeCard(id, node, mine = false) {
  node.classList.add("closed");
  let text = mine ? "Answered — sent to the agent." : "Answered (on another page or by another client).";
  if (!mine) {
    try {
      const copy = await rpc("email.read", { agent: human.id, id });
      if (copy.folder === "cancel") text = "Withdrawn: the agent stopped waiting.";
    } catch {
      /* keep the general wording */
    }
  }
  $(".banner", node)?.remove();
  node.append(el("div", { className: `banner ${text.startsWith("Withdrawn") ? "refused" : "answered"}` },
    text, " ", dismiss(id, node)));
}

// A closed card stays until its reader dismisses it (so a page that was away sees what happened).
function dismiss(id, node) {
  return el("button", {
    type: "button",
    className: "dismiss",
    textContent: "Dismiss",
    onclick: () => {
      node.remove();
      cards.delete(id);
      $("#none").hidden = cards.size > 0;
    },
  });
}

function card(question) {
  const node = $("#card").content.firstElementChild.cloneNode(true);
  node.dataset.id = question.id;
  if (question.type === "RPT") node.classList.add("report");
  $(".from", node).textContent = question.from;
  $(".kind", node).textContent = question.type === "RPT" ? "work report" : "question";
  $(".client", node).textContent = question.client ? `via ${question.client}` : "";
  $(".project", node).textContent = question.project_directory || "";
  const waited = $(".waited", node);
  waited.dataset.since = question.asked_at;
  waited.textContent = `waiting ${since(question.asked_at)}`;
  $(".body", node).replaceWith(markdown(question.body, { agent: human.id }));
  const attachments = [];
  const answer = $(".answer", node);
  const status = $(".status", node);
  const send = async (text) => {
    if (!text.trim() && attachments.length === 0) {
      status.textContent = "Write an answer, pick an option, or attach something.";
      return;
    }
    for (const b of node.querySelectorAll("button")) b.disabled = true;
    node.dataset.sending = "yes";
    status.textContent = "Sending…";
    try {
      const encoded = await Promise.all(attachments.map(encode));
      // When the answer leaves the page and when the hub has stored it (performance marks, for
      // the latency benchmark and anyone profiling the page).
      performance.mark("answer-sent", { detail: question.id });
      await rpc("email.reply", { from: human.id, id: question.id, body: text, attachments: encoded });
      performance.mark("answer-stored", { detail: question.id });
      status.textContent = "";
      closeCard(question.id, node, true);
    } catch (error) {
      delete node.dataset.sending;
      // A live event that it was answered or withdrawn elsewhere was held back while sending.
      refreshQuestions().catch(() => {});
      for (const b of node.querySelectorAll("button")) b.disabled = false;
      if (error.kind === "already_handled") {
        node.classList.add("closed");
        $(".banner", node)?.remove();
        node.append(el("div", { className: "banner refused" },
          "Not sent: this question was already answered (or withdrawn). Your text is kept below. ", dismiss(question.id, node)));
        node.append(el("pre", { textContent: text }));
        status.textContent = "";
      } else {
        status.textContent = `Not sent: ${error.message}`;
        status.className = "status error";
      }
    }
  };
  for (const option of question.options) {
    $(".options", node).append(el("button", { type: "button", textContent: option, onclick: () => send(option) }));
  }
  for (const quick of node.querySelectorAll(".quick")) quick.onclick = () => send(answer.value.trim() || quick.textContent);
  $(".send", node).onclick = () => send(answer.value);
  answer.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send(answer.value);
    }
  });
  const add = (file, name) => {
    const entry = { file, name: name || file.name || "attachment" };
    attachments.push(entry);
    const chip = el("span", { className: "chip" });
    if (file.type.startsWith("image/")) chip.append(el("img", { src: URL.createObjectURL(file), alt: entry.name }));
    chip.append(entry.name, el("button", { type: "button", textContent: "×", title: "Remove", onclick: () => {
      attachments.splice(attachments.indexOf(entry), 1);
      chip.remove();
    } }));
    $(".chips", node).append(chip);
  };
  answer.addEventListener("paste", (event) => {
    for (const item of event.clipboardData?.items || []) {
      if (item.kind === "file") {
        const file = item.getAsFile();
        if (file) {
          event.preventDefault();
          add(file, file.name && file.name !== "image.png" ? file.name : `pasted-${Date.now()}.${(file.type.split("/")[1] || "bin").replace(/[^a-z0-9]/g, "")}`);
        }
      }
    }
  });
  node.addEventListener("dragover", (event) => event.preventDefault());
  node.addEventListener("drop", (event) => {
    event.preventDefault();
    for (const file of event.dataTransfer?.files || []) add(file);
  });
  $(".files", node).addEventListener("change", (event) => {
    for (const file of event.target.files) add(file);
    event.target.value = "";
  });
  const record = $(".record", node);
  let recorder = null;
  record.onclick = async () => {
    if (recorder) {
      recorder.stop();
      return;
    }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const chunks = [];
      recorder = new MediaRecorder(stream);
      recorder.ondataavailable = (event) => chunks.push(event.data);
      recorder.onstop = () => {
        stream.getTracks().forEach((t) => t.stop());
        const type = (recorder.mimeType || "audio/webm").split(";")[0];
        add(new File(chunks, `voice-${Date.now()}.${type.split("/")[1] || "webm"}`, { type }));
        recorder = null;
        record.textContent = "Record";
        record.classList.remove("recording");
      };
      recorder.start();
      record.textContent = "Stop";
      record.classList.add("recording");
    } catch (error) {
      status.textContent = `No microphone: ${error.message}`;
    }
  };
  return node;
}

async function encode({ file, name }) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { name, mimeType: file.type || undefined, data: btoa(binary) };
}

setInterval(() => {
  for (const span of document.querySelectorAll(".card:not(.closed) .waited")) {
    span.textContent = `waiting ${since(span.dataset.since)}`;
  }
}, 1000);

// ---- notification and sound when a question arrives ----
$("#notify").onclick = async () => {
  if ("Notification" in window) await Notification.requestPermission();
  beep();
};
function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.value = 0.08;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch {
    /* no audio: the page still shows the question */
  }
}
function announce(question) {
  beep();
  if ("Notification" in window && Notification.permission === "granted") {
    new Notification(`${question.from} asks`, { body: plainTitle(question.title), tag: question.id });
  }
}

// ---- live events (fetch-based SSE, so the token goes in a header) ----
let listingRefresh = null;
async function follow() {
  let lastId = null;
  for (;;) {
    try {
      const headers = { accept: "text/event-stream", ...authHeaders() };
      if (lastId) headers["last-event-id"] = lastId;
      const response = await fetch("/events", { headers });
      if (!response.ok) throw new Error(await response.text());
      $("#live").textContent = "live";
      $("#live").className = "pill on";
      await refreshQuestions();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = block.match(/^id: ?(.*)$/m);
          if (id) lastId = id[1];
          if (/^(event|data):/m.test(block)) onEvent(block);
        }
      }
    } catch (error) {
      console.warn("events:", error.message);
    }
    $("#live").textContent = "reconnecting";
    $("#live").className = "pill off";
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function onEvent(block) {
  const data = block.match(/^data: ?(.*)$/m);
  const event = data ? JSON.parse(data[1] || "{}") : {};
  if (!event.agent || event.agent === human?.id) refreshQuestions();
  if (!event.agent || event.agent === view.agent) {
    clearTimeout(listingRefresh);
    listingRefresh = setTimeout(showListing, 150);
  }
}

// ---- mailboxes, folders, reading, threads, search, compose ----
const FOLDERS = ["inbox", "outbox", "done", "cancel", "hold"];
const view = { agent: null, folder: "inbox", query: "" };

function renderBoxes() {
  const boxes = $("#boxes");
  boxes.replaceChildren(...agents.map((agent) => el("button", {
    type: "button",
    textContent: `${agent.id}${agent.kind === "human" ? " (human)" : ""}`,
    className: agent.id === view.agent ? "current" : "",
    onclick: () => {
      view.agent = agent.id;
      view.query = "";
      $("#query").value = "";
      renderBoxes();
      showListing();
    },
  })));
  $("#folders").replaceChildren(...(view.agent ? FOLDERS : []).map((folder) => el("button", {
    type: "button",
    textContent: folder,
    className: folder === view.folder ? "current" : "",
    onclick: () => {
      view.folder = folder;
      renderBoxes();
      showListing();
    },
  })));
  $("#compose-to").replaceChildren(...agents.filter((a) => a.id !== human?.id).map((a) => el("option", { value: a.id, textContent: a.id })));
}

// A folder shows newest first, a page at a time ("Show older" asks for the next page). A refresh
// (a live event) keeps as many rows as were shown; only the latest request's answer is drawn.
const PAGE = 100;
const listed = { agent: null, folder: null };
const shownRows = () => $("#listing").querySelectorAll(".row");
let listingGeneration = 0;

async function showListing() {
  if (!view.agent) return;
  const generation = ++listingGeneration;
  const current = () => generation === listingGeneration;
  try {
    if (view.query) {
      const { hits } = await rpc("email.search", { agent: view.agent, query: view.query });
      if (current()) fillListing(hits, false);
      return;
    }
    const { agent, folder } = view;
    const again = listed.agent === agent && listed.folder === folder;
    const want = again ? Math.max(PAGE, shownRows().length) : PAGE;
    const rows = await rpc("email.inbox", { agent, folder, newestFirst: true, limit: want + 1 });
    if (!current()) return;
    Object.assign(listed, { agent, folder });
    fillListing(rows.slice(0, want), rows.length > want);
  } catch (error) {
    if (current()) $("#listing").replaceChildren(el("p", { className: "error", textContent: error.message }));
  }
}

function fillListing(rows, more) {
  $("#listing").replaceChildren(
    ...(rows.length ? rows.map(listingRow) : [el("p", { className: "muted", textContent: "Nothing here." })]),
    ...(more ? [olderButton()] : []),
  );
}

function olderButton() {
  const button = el("button", { type: "button", className: "older", textContent: "Show older" });
  button.onclick = async () => {
    const generation = listingGeneration;
    button.disabled = true;
    try {
      // After the last row shown, by its file name: arrivals meanwhile shift nothing.
      const last = [...shownRows()].pop();
      const rows = await rpc("email.inbox", {
        agent: listed.agent, folder: listed.folder, newestFirst: true, before: last?.dataset.file, limit: PAGE + 1,
      });
      if (generation !== listingGeneration) return; // the listing was drawn again meanwhile
      button.replaceWith(...rows.slice(0, PAGE).map(listingRow), ...(rows.length > PAGE ? [olderButton()] : []));
    } catch (error) {
      button.disabled = false;
      button.textContent = `Show older (not loaded: ${error.message})`;
    }
  };
  return button;
}

function listingRow(m) {
  const row = el("div", {
    className: "row",
    onclick: () => read(m.id),
  }, el("span", { className: "when muted", textContent: (m.createdAt || m.timestamp || "").replace("T", " ").slice(0, 16) }),
  el("span", { className: "kind pill", textContent: m.type || m.kind || "" }),
  el("span", { className: "title" }, ...titleNodes(m.subject || m.title), ` — ${m.from || m.sender || ""}`),
  el("span", { className: "muted", textContent: m.status || m.folder || "" }));
  Object.assign(row.dataset, { id: m.id, file: m.file || "" });
  return row;
}

async function read(id) {
  const reader = $("#reader");
  reader.hidden = false;
  try {
    const m = await rpc("email.read", { agent: view.agent, id });
    const context = { agent: view.agent };
    reader.replaceChildren(
      el("h3", {}, `${m.type}: `, ...titleNodes(m.subject)),
      el("div", { className: "muted", textContent: `${m.from} → ${m.to.join(", ")} · ${m.createdAt} · ${m.status} · ${m.folder}/${m.file}` }),
      markdown(m.body, context),
      ...(m.replies || []).map((r) => el("div", { className: "entry" },
        el("div", { className: "muted", textContent: `${r.createdAt} · ${r.from} → ${r.to} (${r.type})` }),
        markdown(r.body, context))),
      el("div", { className: "actions" },
        el("button", { type: "button", textContent: "Show thread", onclick: () => thread(m.id) })),
      view.agent === human?.id ? replyBox(m) : null,
    );
  } catch (error) {
    reader.replaceChildren(el("p", { className: "error", textContent: error.message }));
  }
}

function replyBox(message) {
  const box = el("textarea", { rows: 3, placeholder: "Reply as the human (Ctrl+Enter sends)" });
  const status = el("span", { className: "muted" });
  const send = async () => {
    try {
      await rpc("email.reply", { from: human.id, id: message.id, body: box.value });
      status.textContent = "Replied.";
      box.value = "";
    } catch (error) {
      status.textContent = `Not sent: ${error.message}`;
    }
  };
  box.addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) send(); });
  return el("div", { className: "reply" }, box,
    el("div", { className: "actions" }, el("button", { type: "button", className: "primary", textContent: "Reply", onclick: send }), status));
}

// The thread as a DAG: one row per node (depth-first, as the core lists them), indented by
// depth, an edge to each node's parent; fork points marked, obsolete nodes greyed with dashed
// edges. A conversation entry (`id#n`) shows its time instead of repeating the title.
async function thread(id) {
  const { nodes } = await rpc("email.thread", { id, agent: view.agent });
  const ns = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attributes) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, v);
    return node;
  };
  const rowHeight = 28;
  const width = 16 + Math.max(...nodes.map((n) => n.depth)) * 22 + 560;
  const height = nodes.length * rowHeight + 8;
  const svg = svgEl("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "thread" });
  const at = new Map(nodes.map((node, i) => [node.id, { x: 14 + node.depth * 22, y: 16 + i * rowHeight }]));
  for (const node of nodes) {
    const parent = node.parent && at.get(node.parent);
    if (!parent) continue;
    const me = at.get(node.id);
    const path = svgEl("path", { d: `M${parent.x},${parent.y} V${me.y} H${me.x}`, class: node.obsolete ? "edge obsolete" : "edge" });
    svg.append(path);
  }
  for (const node of nodes) {
    const { x, y } = at.get(node.id);
    const group = svgEl("g", { class: `node${node.obsolete ? " obsolete" : ""}${node.fork_reason ? " fork" : ""}` });
    const what = node.id.includes("#") ? node.timestamp.replace("T", " ").slice(0, 16) : plainTitle(node.title);
    const fork = node.fork_reason ? ` · fork: ${node.fork_reason}` : "";
    const label = svgEl("text", { x: x + 12, y: y + 4 });
    label.textContent = `${node.from} → ${node.to} · ${node.type}${fork}${node.obsolete ? " · obsolete" : ""} · ${what}`;
    group.append(svgEl("circle", { cx: x, cy: y, r: 6 }), label);
    group.addEventListener("click", () => read(node.id.split("#")[0]));
    svg.append(group);
  }
  $("#thread")?.remove();
  $("#reader").append(el("section", { id: "thread" }, el("h4", { textContent: "Thread" }), el("div", { className: "graph" }, svg)));
}

$("#search").addEventListener("submit", (event) => {
  event.preventDefault();
  view.query = $("#query").value.trim();
  showListing();
});

$("#compose-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const status = $("#compose-status");
  try {
    await rpc("email.send", {
      from: human.id,
      to: [$("#compose-to").value],
      subject: $("#compose-subject").value,
      body: $("#compose-body").value,
      sourceType: "human",
    });
    status.textContent = "Sent.";
    $("#compose-body").value = "";
  } catch (error) {
    status.textContent = `Not sent: ${error.message}`;
  }
});
$("#compose-body").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("#compose-form").requestSubmit();
});

loadAgents()
  .then(() => {
    view.agent = human?.id || agents[0]?.id || null;
    renderBoxes();
    showListing();
    // Open questions show even where live events cannot pass (a proxy that buffers them);
    // every (re)connection of the event stream lists them again.
    refreshQuestions().catch((error) => console.warn("questions:", error.message));
    follow();
  })
  .catch((error) => {
    $("#questions").replaceChildren(el("p", { className: "error", textContent: `Cannot reach the hub: ${error.message}` }));
  });
