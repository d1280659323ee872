// A thread as a DAG in SVG: one row per node (depth-first, as the core lists them), indented by
// depth, an edge to each node's parent; fork points marked, obsolete nodes greyed with dashed
// edges. A conversation entry (`id#n`) shows its time instead of repeating the title.

import { plainTitle } from "./markdown.js";

const SVG = "http://www.w3.org/2000/svg";
const ROW_HEIGHT = 28;
const INDENT = 22;

/** The graph of the thread of `agent`'s message `id`; clicking a node calls `open(messageId)`. */
export async function threadGraph(hub, agent, id, open) {
  const { nodes } = await hub.call("email.thread", { id, agent });
  const width = 16 + Math.max(...nodes.map((n) => n.depth)) * INDENT + 560;
  const height = nodes.length * ROW_HEIGHT + 8;
  const svg = svgElement("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "thread" });
  const at = new Map(nodes.map((node, i) => [node.id, { x: 14 + node.depth * INDENT, y: 16 + i * ROW_HEIGHT }]));
  for (const node of nodes) {
    const parent = node.parent && at.get(node.parent);
    if (!parent) continue;
    const me = at.get(node.id);
    svg.append(svgElement("path", { d: `M${parent.x},${parent.y} V${me.y} H${me.x}`, class: node.obsolete ? "edge obsolete" : "edge" }));
  }
  for (const node of nodes) svg.append(nodeGroup(node, at.get(node.id), open));
  return svg;
}

function nodeGroup(node, { x, y }, open) {
  const group = svgElement("g", { class: `node${node.obsolete ? " obsolete" : ""}${node.forkReason ? " fork" : ""}` });
  const what = node.id.includes("#") ? node.timestamp.replace("T", " ").slice(0, 16) : plainTitle(node.title);
  const fork = node.forkReason ? ` · fork: ${node.forkReason}` : "";
  const label = svgElement("text", { x: x + 12, y: y + 4 });
  label.textContent = `${node.from} → ${node.to} · ${node.type}${fork}${node.obsolete ? " · obsolete" : ""} · ${what}`;
  group.append(svgElement("circle", { cx: x, cy: y, r: 6 }), label);
  group.addEventListener("click", () => open(node.id.split("#")[0]));
  return group;
}

function svgElement(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}
