// The live events: `/events` read with fetch (not EventSource, so the token travels in a header,
// never in a URL), resumed from the last event id after a reconnect, shown in the "live" pill.

/** Follows the events for as long as the page is open, reconnecting a second after a failure.
 * `connected()` runs on every (re)connection before events are read; `received(event)` gets
 * each event's data (an object with `agent` when it concerns one mailbox). */
export async function followEvents(hub, pill, { connected, received }) {
  let lastEventId = null;
  for (;;) {
    try {
      const response = await hub.events(lastEventId);
      if (!response.ok) throw new Error(await response.text());
      showState(pill, "live", "on");
      await connected();
      for await (const block of eventBlocks(response.body)) {
        lastEventId = block.match(/^id: ?(.*)$/m)?.[1] ?? lastEventId;
        const data = block.match(/^data: ?(.*)$/m);
        if (/^(event|data):/m.test(block)) received(data ? JSON.parse(data[1] || "{}") : {});
      }
    } catch (error) {
      console.warn("events:", error.message);
    }
    showState(pill, "reconnecting", "off");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function showState(pill, text, tone) {
  pill.textContent = text;
  pill.className = `pill ${tone}`;
}

/** The blank-line separated blocks of an SSE stream, as text. */
async function* eventBlocks(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      yield buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
    }
  }
}
