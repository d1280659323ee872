// GitHub-flavoured Markdown tables: a header row, a delimiter row (`|---|:--:|`) that sets each
// column's alignment, then body rows until a blank line or a line without a pipe. Cells are split
// on unescaped pipes (`\|` is a pipe in a cell) and drawn by the caller's inline renderer, so a
// cell is text nodes and inline marks only, like any other Markdown on the page.

import { el } from "./dom.js";

const DELIMITER_CELL = /^\s*:?-+:?\s*$/;

/** A row's cells: outer pipes optional, `\|` kept as a pipe. */
function cells(line) {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.replace(/\\\|/g, "|").trim());
}

/** The column alignments of a delimiter row, or null when `line` is not one for `columns`. */
function alignments(line, columns) {
  if (!line || !line.includes("-")) return null;
  const parts = cells(line);
  if (parts.length !== columns || !parts.every((part) => DELIMITER_CELL.test(part))) return null;
  return parts.map((part) => (part.startsWith(":") && part.endsWith(":") ? "center" : part.endsWith(":") ? "right" : part.startsWith(":") ? "left" : ""));
}

/** Whether a table starts at `lines[i]`: a row with a pipe, then its delimiter row. */
export function tableStarts(lines, i) {
  return lines[i].includes("|") && alignments(lines[i + 1], cells(lines[i]).length) !== null;
}

/** The table starting at `lines[i]` (where `tableStarts` holds) as a scrollable `<table>`, each
 * cell's text drawn by `inline`; returns `{ node, end }`, `end` the first line after it. */
export function tableAt(lines, i, inline) {
  const header = cells(lines[i]);
  const align = alignments(lines[i + 1], header.length);
  const cell = (tag, text, column) => el(tag, { className: align[column] ? `align-${align[column]}` : "" }, ...inline(text));
  const head = el("thead", {}, el("tr", {}, ...header.map((text, column) => cell("th", text, column))));
  const body = el("tbody");
  let end = i + 2;
  for (; end < lines.length && lines[end].trim() !== "" && lines[end].includes("|"); end++) {
    const row = cells(lines[end]);
    // A short row is filled with empty cells, a long one cut to the header's columns (as GFM does).
    body.append(el("tr", {}, ...header.map((_, column) => cell("td", row[column] ?? "", column))));
  }
  return { node: el("div", { className: "table" }, el("table", {}, head, body)), end };
}
