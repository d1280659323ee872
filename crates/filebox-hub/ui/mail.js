// The mailboxes: a button per agent, the chosen one's folders, and the folder's listing, newest
// first and a page at a time ("Show older"), or the mailbox's search hits; a row opens the message.
// A row marks unread (bold, a dot) and urgent mail, and shows its date, type, title (plain text,
// cut on characters), sender and status; at phone width the same on two lines.

import { $, el } from "./dom.js";
import { plainTitle } from "./markdown.js";
import { shortDate, timeNode } from "./dates.js";
import { kindName } from "./kinds.js";

const FOLDERS = ["inbox", "outbox", "done", "cancel", "hold"];
const PAGE = 100;
/** The characters of a title a row shows; the whole title is its tooltip. */
const TITLE_CHARS = 120;

/** The mail section over `agents`, starting on `first`'s inbox; `open(agent, id)` reads a
 * message. `refreshSoon()` redraws the listing after live events (a burst of them draws once). */
export function mailPanel(hub, { agents, first, open }) {
  const view = { agent: first, folder: "inbox", query: "" };
  // What the listing shows (a live refresh keeps as many rows), and which request may draw it:
  // only the latest one's answer is drawn.
  const listed = { agent: null, folder: null, generation: 0 };
  let refreshTimer = null;
  const rows = () => $("#listing").querySelectorAll(".row");
  const row = (message) => listingRow(message, () => open(view.agent, message.id));

  function choose(change) {
    Object.assign(view, change);
    drawNavigation();
    show();
  }

  function drawNavigation() {
    $("#boxes").replaceChildren(...agents.map((agent) => navButton(
      `${agent.id}${agent.kind === "human" ? " (human)" : ""}`,
      agent.id === view.agent,
      () => {
        $("#query").value = "";
        choose({ agent: agent.id, query: "" });
      },
    )));
    $("#folders").replaceChildren(...(view.agent ? FOLDERS : []).map((folder) =>
      navButton(folder, folder === view.folder, () => choose({ folder }))));
  }

  async function show() {
    if (!view.agent) return;
    const generation = ++listed.generation;
    const current = () => generation === listed.generation;
    try {
      if (view.query) {
        const { hits } = await hub.call("email.search", { agent: view.agent, query: view.query });
        if (current()) fill(hits.map(row), false);
        return;
      }
      const { agent, folder } = view;
      const again = listed.agent === agent && listed.folder === folder;
      const want = again ? Math.max(PAGE, rows().length) : PAGE;
      const messages = await hub.call("email.inbox", { agent, folder, newestFirst: true, limit: want + 1 });
      if (!current()) return;
      Object.assign(listed, { agent, folder });
      fill(messages.slice(0, want).map(row), messages.length > want);
    } catch (error) {
      if (current()) $("#listing").replaceChildren(el("p", { className: "error", textContent: error.message }));
    }
  }

  function fill(drawn, more) {
    const empty = el("p", { className: "muted", textContent: "Nothing here." });
    $("#listing").replaceChildren(...(drawn.length ? drawn : [empty]), ...(more ? [olderButton()] : []));
  }

  // After the last row shown, by its file name: arrivals meanwhile shift nothing.
  function olderButton() {
    const button = el("button", { type: "button", className: "older", textContent: "Show older" });
    button.onclick = async () => {
      const generation = listed.generation;
      button.disabled = true;
      try {
        const before = [...rows()].pop()?.dataset.file;
        const { agent, folder } = listed;
        const messages = await hub.call("email.inbox", { agent, folder, newestFirst: true, before, limit: PAGE + 1 });
        if (generation !== listed.generation) return; // the listing was drawn again meanwhile
        button.replaceWith(...messages.slice(0, PAGE).map(row), ...(messages.length > PAGE ? [olderButton()] : []));
      } catch (error) {
        button.disabled = false;
        button.textContent = `Show older (not loaded: ${error.message})`;
      }
    };
    return button;
  }

  $("#search").addEventListener("submit", (event) => {
    event.preventDefault();
    choose({ query: $("#query").value.trim() });
  });
  drawNavigation();
  show();
  return {
    /** Whether the listing shows `agent`'s mail. */
    shows: (agent) => agent === view.agent,
    refreshSoon() {
      clearTimeout(refreshTimer);
      refreshTimer = setTimeout(show, 150);
    },
  };
}

function navButton(text, current, onclick) {
  return el("button", { type: "button", textContent: text, className: current ? "current" : "", onclick });
}

function listingRow(message, onclick) {
  const created = message.createdAt || message.timestamp;
  const title = plainTitle(message.subject || message.title);
  const type = message.type || message.kind || "";
  // Unread: in the holder's inbox, not yet put in front of its reader (`read` once it was).
  const unread = message.folder === "inbox" && message.status === "delivered";
  const urgent = message.priority === "urgent";
  const row = el("div", { className: `row${unread ? " unread" : ""}${urgent ? " urgent" : ""}`, onclick },
    el("span", { className: "marks" }, unread ? mark("dot", "unread", "") : null, urgent ? mark("urgent-mark", "urgent", "!") : null),
    el("span", { className: "when muted" }, timeNode(created, shortDate(created))),
    el("span", { className: "kind pill", textContent: kindName(type), title: type }),
    el("span", { className: "title", textContent: cut(title, TITLE_CHARS), title }),
    el("span", { className: "from muted", textContent: message.from || message.sender || "" }),
    el("span", { className: "state muted", textContent: message.status || message.folder || "" }));
  Object.assign(row.dataset, { id: message.id, file: message.file || "" });
  return row;
}

/** A row's mark: a symbol with its name for screen readers and as a tooltip. */
function mark(className, name, symbol) {
  const node = el("span", { className, textContent: symbol, title: name });
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", name);
  return node;
}

/** `text` cut to `max` characters (never inside one), ending in an ellipsis when it was cut. */
function cut(text, max) {
  const characters = [...text];
  return characters.length > max ? `${characters.slice(0, max - 1).join("").trimEnd()}…` : text;
}
