// The page's entry: a human answers agents' questions and reads every mailbox. It connects to
// the hub, learns who the human is, and wires the questions, the mailboxes, compose and the live
// events together. It writes only through JSON-RPC (email.reply, email.send); the rest is read.

import { $, el } from "./dom.js";
import { connectHub } from "./rpc.js";
import { followEvents } from "./events.js";
import { offerNotifications } from "./notify.js";
import { questionsPanel } from "./questions.js";
import { mailPanel } from "./mail.js";
import { messageReader } from "./reader.js";
import { composeForm } from "./compose.js";

/** The mailbox the page answers as: `?as=<id>`, else the first of kind human. */
function theHuman(agents) {
  const wanted = new URLSearchParams(location.search).get("as");
  return agents.find((agent) => agent.id === wanted) || agents.find((agent) => agent.kind === "human") || null;
}

async function start() {
  const hub = connectHub();
  offerNotifications($("#notify"));
  const agents = await hub.call("agents.list", {});
  const human = theHuman(agents);
  $("#who").textContent = human ? `answering as ${human.id}` : "no human mailbox in the config";
  const questions = questionsPanel(hub, human);
  const mail = mailPanel(hub, { agents, first: human?.id || agents[0]?.id || null, open: messageReader(hub, human) });
  composeForm(hub, { agents, human });
  // Open questions show even where live events cannot pass (a proxy that buffers them);
  // every (re)connection of the event stream lists them again.
  const relist = () => questions.relist().catch((error) => console.warn("questions:", error.message));
  relist();
  followEvents(hub, $("#live"), {
    connected: questions.relist,
    received: (event) => {
      if (!event.agent || event.agent === human?.id) relist();
      if (!event.agent || mail.shows(event.agent)) mail.refreshSoon();
    },
  });
}

start().catch((error) => {
  $("#questions").replaceChildren(el("p", { className: "error", textContent: `Cannot reach the hub: ${error.message}` }));
});
