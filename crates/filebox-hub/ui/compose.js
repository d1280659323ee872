// New mail from the human: the compose form (to, subject, Markdown body), sent with email.send.

import { $, el, onCtrlEnter } from "./dom.js";

/** Wires the form: `human` writes to any of the other `agents`. */
export function composeForm(hub, { agents, human }) {
  const form = $("#compose-form");
  const status = $("#compose-status");
  $("#compose-to").replaceChildren(...agents.filter((agent) => agent.id !== human?.id)
    .map((agent) => el("option", { value: agent.id, textContent: agent.id })));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await hub.call("email.send", {
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
  onCtrlEnter($("#compose-body"), () => form.requestSubmit());
}
