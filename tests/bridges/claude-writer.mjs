// Claude Code 2.1.88's `writeToMailbox` (src/utils/teammateMailbox.ts), as the reference notes
// describe it: create the inbox with "[]" exclusively, take proper-lockfile's lock with exactly
// Claude Code's options, re-read the array, push, rewrite the file in place, release. With
// CLAUDE_SHAPE=2.1.331, the current version's: each entry also gets `type`, `msgV` and a
// `msg_id`, and the file is replaced atomically (a temp file renamed over it).
//
//   node claude-writer.mjs INBOX FROM COUNT
// appends COUNT messages "FROM #i"; prints how many times the lock gave up (ELOCKED) and the
// call had to be made again (Claude Code itself would lose such a message).
import { randomUUID } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import lockfile from "proper-lockfile";

const CURRENT = process.env.CLAUDE_SHAPE === "2.1.331";

const LOCK_OPTIONS = { retries: { retries: 10, minTimeout: 5, maxTimeout: 100 } };

async function readMailbox(inboxPath) {
  try {
    return JSON.parse(await readFile(inboxPath, "utf-8"));
  } catch (error) {
    if (error.code === "ENOENT") return [];
    throw error;
  }
}

async function writeToMailbox(inboxPath, message) {
  try {
    await writeFile(inboxPath, "[]", { encoding: "utf-8", flag: "wx" });
  } catch (error) {
    if (error.code !== "EEXIST") throw error;
  }
  let release;
  try {
    release = await lockfile.lock(inboxPath, { lockfilePath: `${inboxPath}.lock`, ...LOCK_OPTIONS });
    const messages = await readMailbox(inboxPath);
    if (CURRENT) {
      messages.push({ type: "message", ...message, read: false, msgV: 1, msg_id: randomUUID() });
      const staged = `${inboxPath}.${process.pid}.tmp`;
      await writeFile(staged, JSON.stringify(messages, null, 2), "utf-8");
      await rename(staged, inboxPath);
    } else {
      messages.push({ ...message, read: false });
      await writeFile(inboxPath, JSON.stringify(messages, null, 2), "utf-8");
    }
  } finally {
    if (release) await release();
  }
}

const [inboxPath, from, count] = process.argv.slice(2);
let gaveUp = 0;
for (let i = 0; i < Number(count); i++) {
  const message = { from, text: `${from} #${i}`, timestamp: new Date().toISOString() };
  for (;;) {
    try {
      await writeToMailbox(inboxPath, message);
      break;
    } catch (error) {
      if (error.code !== "ELOCKED") throw error;
      gaveUp++;
    }
  }
}
console.log(JSON.stringify({ from, gaveUp }));
