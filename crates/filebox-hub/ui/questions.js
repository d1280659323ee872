// The open questions: listed (questions.open) when the page loads, on every live event of the
// human's mailbox and after every reconnect; a card each, closed when the question leaves the
// human's inbox, announced when it arrives while the page is open. Questions and permission
// prompts that hold an agent up come first, then the rest; newest first within each. Until the
// first listing has come the section says it is looking, never "No open questions"; the tab's
// title counts the questions waiting ("(2) FileBox").

import { $ } from "./dom.js";
import { questionCard } from "./card.js";
import { isBlocking } from "./kinds.js";
import { announce } from "./notify.js";

const NONE = "No open questions. New ones appear here at once.";

/** Whether question `a` is shown above `b`: blocking first, then the newer one. */
const before = (a, b) =>
  isBlocking(a.type) !== isBlocking(b.type) ? isBlocking(a.type) : Date.parse(a.asked_at) >= Date.parse(b.asked_at);

/** The "Waiting for you" section of `human` (null: there is none, and nothing is listed). */
export function questionsPanel(hub, human) {
  const cards = new Map(); // question id -> { card, question }
  const pageTitle = document.title;
  let listedBefore = false;
  const showNone = () => {
    $("#none").textContent = NONE;
    $("#none").hidden = cards.size > 0;
  };

  // Each new card goes above the first card it comes before, so no open card moves (one being
  // typed into keeps its focus). Listed oldest first, so of two asked in the same second the
  // later one ends up above.
  function place(node, question) {
    const next = [...$("#questions").children].find((shown) => {
      const other = cards.get(shown.dataset.id);
      return other && before(question, other.question);
    });
    $("#questions").insertBefore(node, next || null);
  }

  async function relist() {
    if (!human) return showNone();
    let questions;
    try {
      questions = await openQuestions(hub, human);
    } catch (error) {
      if (!listedBefore) $("#none").hidden = true; // the problem says why nothing is listed
      throw error;
    }
    for (const question of questions.filter((q) => !cards.has(q.id))) {
      const card = questionCard(question, {
        hub,
        human,
        relist: () => relist().catch(() => {}),
        dismissed: () => {
          cards.delete(question.id);
          showNone();
        },
      });
      place(card.node, question);
      cards.set(question.id, { card, question });
      if (listedBefore) announce(question);
    }
    const open = new Set(questions.map((q) => q.id));
    for (const [id, { card }] of cards) if (!open.has(id)) card.closeAsGone();
    listedBefore = true;
    $("#count").textContent = questions.length ? String(questions.length) : "";
    document.title = questions.length ? `(${questions.length}) ${pageTitle}` : pageTitle;
    showNone();
  }
  return { relist };
}

/** The questions waiting in `human`'s mailbox; a failure is shown, with how to open the page
 * with a token when the mailbox needs one, and thrown. */
async function openQuestions(hub, human) {
  const problem = $("#problem");
  try {
    const { questions } = await hub.call("questions.open", { agent: human.id });
    problem.hidden = true;
    return questions;
  } catch (error) {
    const hint = error.kind === "unauthorized" || error.kind === "forbidden"
      ? ` Open this page once as ${location.origin}/#token=<token> (the token from \`filebox agents token ${human.id}\`); this browser keeps it.`
      : "";
    problem.textContent = `Cannot list the questions: ${error.message}.${hint}`;
    problem.hidden = false;
    throw error;
  }
}
