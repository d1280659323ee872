// One question card: drawn from the #card template, answered with an option, a quick reply, text
// and files, and closed with a banner once answered (here or elsewhere: with the answer given),
// withdrawn or refused. Its "waiting" counter runs only while the card is open.

import { $, el, onCtrlEnter } from "./dom.js";
import { markdown } from "./markdown.js";
import { answerFiles } from "./answer-files.js";
import { kindName } from "./kinds.js";

/** How a card can close: its banner's text and tone. */
const OUTCOMES = {
  sent: { text: "Answered — sent to the agent.", tone: "answered" },
  answeredElsewhere: { text: "Answered (on another page or by another client).", tone: "answered" },
  withdrawn: { text: "Withdrawn: the agent stopped waiting.", tone: "refused" },
  // A relayed permission prompt says why it was withdrawn (answered in the terminal, ...).
  withdrawnBecause: (why) => ({ text: `Withdrawn: ${why}.`, tone: "refused" }),
  refused: { text: "Not sent: this question was already answered (or withdrawn). Your text is kept below.", tone: "refused" },
};

/** A card for `question`, answered as `human`. `relist()` lists the open questions again;
 * `dismissed()` is called when its reader dismisses the closed card. */
export function questionCard(question, { hub, human, relist, dismissed }) {
  const node = $("#card").content.firstElementChild.cloneNode(true);
  fill(node, question, { hub, agent: human.id });
  const stopCounter = countWaiting($(".waited", node), question.asked_at);
  const status = $(".status", node);
  const files = answerFiles(node, status);
  let closed = false;
  let sending = false;

  // `answer`: the answer the question got (here or elsewhere); `kept`: this page's refused text.
  const close = ({ outcome, answer }, kept) => {
    closed = true;
    stopCounter();
    node.classList.add("closed");
    $(".banner", node)?.remove();
    node.append(el("div", { className: `banner ${outcome.tone}` }, outcome.text, " ", dismissButton(node, dismissed)));
    if (answer !== undefined) node.append(el("div", { className: "given" }, el("div", { className: "muted", textContent: "The answer:" }), markdown(answer)));
    if (kept !== undefined) node.append(el("pre", { textContent: kept }));
  };

  const send = async (text) => {
    if (!text.trim() && files.count() === 0) {
      status.textContent = "Write an answer, pick an option, or attach something.";
      return;
    }
    setButtonsDisabled(node, true);
    sending = true;
    status.textContent = "Sending…";
    try {
      await sendAnswer(hub, human, question, text, await files.encoded());
      status.textContent = "";
      close({ outcome: OUTCOMES.sent, answer: text.trim() || `(${files.count()} attached)` });
    } catch (error) {
      sending = false;
      // Refused as already handled: this send says what happened, so the listing below (which
      // may find the question gone first) leaves the card to it.
      if (error.kind === "already_handled") closed = true;
      // A live event that it was answered or withdrawn elsewhere was held back while sending.
      relist();
      setButtonsDisabled(node, false);
      if (error.kind === "already_handled") {
        status.textContent = "";
        // Withdrawn (a permission prompt whose session is gone says why), else answered first.
        const gone = await outcomeElsewhere(hub, human, question.id);
        close(gone.outcome === OUTCOMES.answeredElsewhere ? { ...gone, outcome: OUTCOMES.refused } : gone, text);
      } else {
        status.textContent = `Not sent: ${error.message}`;
        status.className = "status error";
      }
    }
  };
  wireAnswerControls(node, question.options, send);

  return {
    node,
    /** Closes the card of a question no longer open: answered elsewhere, or withdrawn. A card
     * whose answer this page is sending is closed by the send itself ("sent to the agent"),
     * even when the live event that it is answered comes first. */
    async closeAsGone() {
      if (closed || sending) return;
      closed = true; // at once: a listing that comes while the outcome is read leaves it be
      close(await outcomeElsewhere(hub, human, question.id));
    },
  };
}

function fill(node, question, context) {
  node.dataset.id = question.id;
  node.classList.toggle("report", question.type === "RPT");
  node.classList.toggle("permission", question.type === "PRM");
  $(".from", node).textContent = question.from;
  $(".kind", node).textContent = kindName(question.type);
  $(".client", node).textContent = question.client ? `via ${question.client}` : "";
  $(".asker", node).textContent = askedBy(question);
  $(".project", node).textContent = question.project_directory || "";
  const body = question.type === "PRM" ? toolInput(question.body) : markdown(question.body, context);
  body.classList.add("body");
  $(".body", node).replaceWith(body);
}

/** A permission's text as it is, never read as Markdown: it holds the tool input that Allow
 * approves, whose own backticks or tildes must not change what the card shows. */
function toolInput(text) {
  return el("pre", { className: "body tool-input", textContent: text });
}

/** What the asking program said about who asks: "agent Ada · model o3 · sent 14:02:07". */
function askedBy(question) {
  const sent = question.sent_at ? new Date(question.sent_at) : null;
  return [
    question.agent_name && `agent ${question.agent_name}`,
    question.reasoning_model && `model ${question.reasoning_model}`,
    sent && !Number.isNaN(sent.getTime()) && `sent ${sent.toLocaleTimeString()}`,
  ]
    .filter(Boolean)
    .join(" · ");
}

/** Shows in `span` how long since `askedAt`, every second, until the returned function is
 * called: it stops the timer and leaves the final figure ("waited 2 min"). */
function countWaiting(span, askedAt) {
  const show = (verb) => {
    span.textContent = `${verb} ${since(askedAt)}`;
  };
  show("waiting");
  const timer = setInterval(() => show("waiting"), 1000);
  return () => {
    clearInterval(timer);
    show("waited");
  };
}

function since(iso) {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** The options, the quick replies (the typed text, else their own label), Send and Ctrl+Enter. */
function wireAnswerControls(node, options, send) {
  const answer = $(".answer", node);
  for (const option of options) {
    $(".options", node).append(el("button", { type: "button", textContent: option, onclick: () => send(option) }));
  }
  for (const quick of node.querySelectorAll(".quick")) quick.onclick = () => send(answer.value.trim() || quick.textContent);
  $(".send", node).onclick = () => send(answer.value);
  onCtrlEnter(answer, () => send(answer.value));
}

// When the answer leaves the page and when the hub has stored it (performance marks, for the
// latency benchmark and anyone profiling the page).
async function sendAnswer(hub, human, question, body, attachments) {
  performance.mark("answer-sent", { detail: question.id });
  await hub.call("email.reply", { from: human.id, id: question.id, body, attachments });
  performance.mark("answer-stored", { detail: question.id });
}

function setButtonsDisabled(node, disabled) {
  for (const button of node.querySelectorAll("button")) button.disabled = disabled;
}

/** Withdrawn when the human's copy is in cancel/ (saying why, for a relayed permission prompt),
 * else answered elsewhere, with the answer: the human's last reply in the copy's conversation. */
async function outcomeElsewhere(hub, human, id) {
  try {
    const copy = await hub.call("email.read", { agent: human.id, id });
    if (copy.folder === "cancel") {
      const withdrawn = (copy.history || []).filter((line) => line.action === "Withdrawn").pop();
      return { outcome: copy.type === "PRM" && withdrawn ? OUTCOMES.withdrawnBecause(withdrawn.details) : OUTCOMES.withdrawn };
    }
    const answer = (copy.replies || []).filter((reply) => reply.from === human.id).pop();
    return { outcome: OUTCOMES.answeredElsewhere, answer: answer?.body };
  } catch {
    return { outcome: OUTCOMES.answeredElsewhere }; // the general wording
  }
}

// A closed card stays until its reader dismisses it (so a page that was away sees what happened).
function dismissButton(node, dismissed) {
  return el("button", {
    type: "button",
    className: "dismiss",
    textContent: "Dismiss",
    onclick: () => {
      node.remove();
      dismissed();
    },
  });
}
