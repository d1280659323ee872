// The hub as the page reaches it: the token (from a #token= link, kept by this browser), the
// JSON-RPC calls, attachment downloads and the live event stream, every request with the token.

import { el } from "./dom.js";

const TOKEN_KEY = "filebox.token";

/** Keeps the token of a `#token=` address and takes it out of the address; true if there was one. */
function keepLinkedToken() {
  const linked = new URLSearchParams(location.hash.slice(1)).get("token");
  if (!linked) return false;
  localStorage.setItem(TOKEN_KEY, linked);
  history.replaceState(null, "", location.pathname + location.search);
  return true;
}

/** The page's client of the hub, acting with the token this browser keeps. A token pasted into
 * the address of the open page is kept, and the page starts again with it. */
export function connectHub() {
  keepLinkedToken();
  window.addEventListener("hashchange", () => {
    if (keepLinkedToken()) location.reload();
  });
  const token = localStorage.getItem(TOKEN_KEY);
  const headers = (extra = {}) => (token ? { ...extra, authorization: `Bearer ${token}` } : extra);
  let requestId = 0;
  return {
    /** A JSON-RPC call's result; a JSON-RPC error is thrown with its `data.kind` as `kind`. */
    async call(method, params) {
      const response = await fetch("/rpc", {
        method: "POST",
        headers: headers({ "content-type": "application/json" }),
        body: JSON.stringify({ jsonrpc: "2.0", id: ++requestId, method, params }),
      });
      const reply = await response.json();
      if (reply.error) {
        const error = new Error(reply.error.message);
        error.kind = reply.error.data?.kind;
        throw error;
      }
      return reply.result;
    },
    /** Where `agent`'s attachment `name` of message `id` is served (sandboxed, as a file to save). */
    attachmentPath(agent, id, name) {
      return `/attachments/${encodeURIComponent(agent)}/${encodeURIComponent(id)}/${encodeURIComponent(name)}`;
    },
    /** The bytes of an attachment, as a Blob: for drawing, never for a URL. */
    async attachment(agent, id, name) {
      const response = await fetch(this.attachmentPath(agent, id, name), { headers: headers() });
      if (!response.ok) throw new Error(response.statusText);
      return response.blob();
    },
    /** Saves an attachment: a form posted to its path carries the token (a click cannot send a
     * header, and the token never goes in a URL); the hub answers with a file to save, so the
     * page stays. */
    download(agent, id, name) {
      const form = el("form", { method: "post", action: this.attachmentPath(agent, id, name), hidden: true });
      if (token) form.append(el("input", { type: "hidden", name: "token", value: token }));
      document.body.append(form);
      form.submit();
      form.remove();
    },
    /** The response of `/events`, resumed after `lastEventId` when given. */
    events(lastEventId) {
      const resume = lastEventId ? { "last-event-id": lastEventId } : {};
      return fetch("/events", { headers: headers({ accept: "text/event-stream", ...resume }) });
    },
  };
}
