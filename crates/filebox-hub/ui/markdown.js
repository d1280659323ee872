// Markdown, safely: blocks and inline spans become elements with text content only, so raw HTML
// in a message is shown as text, never interpreted. Attachments are drawn or offered for download,
// never given a URL the page's origin serves (see `attachmentNode`). GFM tables: `table.js`.

import { el } from "./dom.js";
import { tableAt, tableStarts } from "./table.js";

const FENCE = /^```/;
const HEADING = /^#{1,6}\s/;
const LIST_ITEM = /^\s*([-*+]|\d+\.)\s/;
const QUOTE = /^>/;
const BLOCK_START = /^(```|#{1,6}\s|>|\s*([-*+]|\d+\.)\s)/;
const INLINE = /(!?\[([^\]]*)\]\(([^)\s]+)(?:\s+"([^"]*)")?\))|(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)/g;

/** `text` as a `div.md`. `context` ({ hub, agent }) lets links to the agent's attachments show
 * them; without it they are plain text. */
export function markdown(text, context) {
  const root = el("div", { className: "md" });
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let i = 0;
  // Takes the lines from i on while `test(line, index)` holds, mapped by `take`.
  const run = (test, take = (line) => line) => {
    const taken = [];
    for (; i < lines.length && test(lines[i], i); i++) taken.push(take(lines[i]));
    return taken;
  };
  while (i < lines.length) {
    const line = lines[i];
    if (FENCE.test(line)) {
      i++;
      const code = run((l) => !FENCE.test(l));
      i++;
      root.append(el("pre", {}, el("code", { textContent: code.join("\n") })));
    } else if (HEADING.test(line)) {
      const level = Math.min(line.match(/^#+/)[0].length + 2, 6);
      root.append(el(`h${level}`, {}, ...inline(line.replace(/^#+\s*/, ""), context)));
      i++;
    } else if (LIST_ITEM.test(line)) {
      const items = run((l) => LIST_ITEM.test(l), (l) => l.replace(LIST_ITEM, ""));
      const list = el(/^\s*\d+\./.test(line) ? "ol" : "ul");
      list.append(...items.map((item) => el("li", {}, ...inline(item, context))));
      root.append(list);
    } else if (QUOTE.test(line)) {
      const quote = run((l) => QUOTE.test(l), (l) => l.replace(/^>\s?/, ""));
      root.append(el("blockquote", {}, ...inline(quote.join(" "), context)));
    } else if (tableStarts(lines, i)) {
      const table = tableAt(lines, i, (cell) => inline(cell, context));
      root.append(table.node);
      i = table.end;
    } else if (line.trim() === "") {
      i++;
    } else {
      const paragraph = run((l, at) => l.trim() !== "" && !BLOCK_START.test(l) && !tableStarts(lines, at));
      root.append(el("p", {}, ...inline(paragraph.join("\n"), context)));
    }
  }
  return root;
}

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

/** A title (the first line of a message's Markdown) as plain text, as every place that shows
 * one draws it: its inline marks taken out, and so is a mark that a cut title left open
 * (`clashes with *Jenkins…`, `see [the log](https://ci.exa…`). */
export const plainTitle = (text) => (text || "")
  .replace(INLINE, (whole, link, label, url, title, code, strong, em) =>
    link ? label : code ? code.slice(1, -1) : strong ? strong.slice(2, -2) : em.slice(1, -1))
  .replace(/!?\[([^\]]*)\]\([^)]*$/, "$1…")
  .replace(/(^|\s)(\*{1,3}|`+|!?\[)(?=\S)/g, "$1");

// A link to an attachment (`../attachments/<id>/<name>`) is an attachment node; other links
// only when http(s).
function linkNode(isImage, label, url, mime, context) {
  const attached = url.match(/^\.\.\/attachments\/([A-Za-z0-9_-]+)\/([A-Za-z0-9._-]+)$/);
  if (attached && context?.agent) return attachmentNode(isImage, label, attached[1], attached[2], mime || "", context);
  if (/^https?:\/\//i.test(url)) {
    return el("a", { href: url, textContent: label || url, rel: "noopener noreferrer", target: "_blank" });
  }
  return document.createTextNode(label || url);
}

// An attachment is whatever another program wrote: an SVG or HTML file can hold script, and a
// blob: or data: URL of it would run that script as the page (opened in a tab, it has the
// page's origin and none of the route's sandbox). So it is a download link to the hub's route
// (which serves every file sandboxed, as a file to save), and an image is also drawn: its bytes
// decoded to pixels on a canvas, which have no URL and run nothing. What does not decode as a
// picture (an SVG among them) is only the link.
function attachmentNode(isImage, label, id, name, type, { hub, agent }) {
  const link = el("a", {
    textContent: label || name,
    href: hub.attachmentPath(agent, id, name),
    download: name,
    onclick: (event) => {
      event.preventDefault();
      hub.download(agent, id, name);
    },
  });
  const holder = el("span", { className: "attachment" }, link);
  if (isImage || type.startsWith("image/")) {
    hub.attachment(agent, id, name)
      .then((blob) => createImageBitmap(blob))
      .then((bitmap) => holder.prepend(pixels(bitmap, label || name)))
      .catch(() => holder.append(el("span", { className: "muted", textContent: " (not drawn here: the link saves it)" })));
  }
  return holder;
}

/** A canvas holding `bitmap`'s pixels, named `alt` for screen readers. */
function pixels(bitmap, alt) {
  const canvas = el("canvas", { width: bitmap.width, height: bitmap.height });
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", alt);
  canvas.getContext("2d").drawImage(bitmap, 0, 0);
  bitmap.close();
  return canvas;
}
