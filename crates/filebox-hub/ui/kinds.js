// The names of the message types, as the page shows them: "bug report" for BR, "question" for
// ASK; a custom type is shown as it is.

const NAMES = {
  ER: "enhancement request",
  BR: "bug report",
  DIS: "discussion",
  ACK: "acknowledgement",
  SU: "status update",
  ASK: "question",
  RPT: "work report",
  PRM: "permission",
};

/** The name of message type `type` ("BR" → "bug report"); an unknown type is its own name. */
export const kindName = (type) => NAMES[type] || type || "";

/** Whether a question of `type` holds an agent up until it is answered: a question or a
 * permission prompt (a work report is answered too, but the agent's work is done). */
export const isBlocking = (type) => type === "ASK" || type === "PRM";
