// The open questions: listed (questions.open) when the page loads, on every live event of the
// human's mailbox and after every reconnect; a card each, closed when the question leaves the
// human's inbox, announced when it arrives while the page is open.

import { $ } from "./dom.js";
import { questionCard } from "./card.js";
import { announce } from "./notify.js";

/** The "Waiting for you" section of `human` (null: there is none, and nothing is listed). */
export function questionsPanel(hub, human) {
  const cards = new Map(); // question id -> its card
  let listedBefore = false;
  const showNone = () => {
    $("#none").hidden = cards.size > 0;
  };

  async function relist() {
    if (!human) return;
    const questions = await openQuestions(hub, human);
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
      cards.set(question.id, card);
      $("#questions").append(card.node);
      if (listedBefore) announce(question);
    }
    const open = new Set(questions.map((q) => q.id));
    for (const [id, card] of cards) if (!open.has(id)) card.closeAsGone();
    listedBefore = true;
    $("#count").textContent = questions.length ? String(questions.length) : "";
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
