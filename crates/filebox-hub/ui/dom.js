// DOM helpers every module of the page shares: find a node, build one, send on Ctrl+Enter.

/** The first node under `root` matching `selector`. */
export const $ = (selector, root = document) => root.querySelector(selector);

/** A new `tag` element with `props` assigned and `children` (nodes or text) appended. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

/** Calls `send` when Ctrl+Enter (Cmd+Enter on a Mac) is pressed in `field`. */
export function onCtrlEnter(field, send) {
  field.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
    }
  });
}
