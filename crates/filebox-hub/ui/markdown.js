// Markdown, safely: blocks and inline spans become elements with text content only, so raw HTML
// in a message is shown as text, never interpreted. Attachment links are fetched with the token.

import { el } from "./dom.js";

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
  // Takes the lines from i on while `test` holds, mapped by `take`.
  const run = (test, take = (line) => line) => {
    const taken = [];
    for (; i < lines.length && test(lines[i]); i++) taken.push(take(lines[i]));
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
    } else if (line.trim() === "") {
      i++;
    } else {
      const paragraph = run((l) => l.trim() !== "" && !BLOCK_START.test(l));
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

// A title is the first line of Markdown: drawn with its inline marks where the page draws
// elements, and without them where only text goes (a notification, the thread graph).
export const titleNodes = (text) => inline(text || "", null);
export const plainTitle = (text) => (text || "").replace(INLINE, (whole, link, label, url, title, code, strong, em) =>
  link ? label : code ? code.slice(1, -1) : strong ? strong.slice(2, -2) : em.slice(1, -1));

// A link to an attachment (`../attachments/<id>/<name>`) is fetched with the token and shown
// from a blob: URL (an image inline, audio as a player); other links only when http(s).
function linkNode(isImage, label, url, mime, context) {
  const attached = url.match(/^\.\.\/attachments\/([A-Za-z0-9_-]+)\/([A-Za-z0-9._-]+)$/);
  if (attached && context?.agent) return attachmentNode(isImage, label, attached[1], attached[2], mime || "", context);
  if (/^https?:\/\//i.test(url)) {
    return el("a", { href: url, textContent: label || url, rel: "noopener noreferrer", target: "_blank" });
  }
  return document.createTextNode(label || url);
}

function attachmentNode(isImage, label, id, name, type, { hub, agent }) {
  const holder = el("span", { className: "attachment" });
  const link = el("a", { textContent: label || name, href: "#" });
  holder.append(link);
  hub.attachment(agent, id, name)
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
