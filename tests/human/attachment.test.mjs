// Attachments are hostile: the agent `qa` mails the human `evil.svg` and `evil.html`, whose
// script calls `/rpc` (sends mail as `me`, answers the open question Allow, leaves a marker in
// the page's storage), and a picture. The page in Chromium shows the message; every shown
// attachment is clicked in the page and opened in a new tab at its address, and none of that
// runs script; the picture is drawn as pixels, and no URL of attachment content is in the page.
// Screenshots of the reader (desktop and phone width) go to tests/human/out/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { filebox, mailroom, serve, stop } from "./support.mjs";

const here = new URL(".", import.meta.url).pathname;
const out = process.env.FILEBOX_TEST_OUT || join(here, "out");
mkdirSync(out, { recursive: true });
const { dir, env, remove } = mailroom("filebox-attachment-");

// Synchronous requests, so whatever the script does is done when its document has loaded.
const PAYLOAD = `
  localStorage.setItem("pwned", document.URL);
  const rpc = (method, params) => {
    const request = new XMLHttpRequest();
    request.open("POST", "/rpc", false);
    request.setRequestHeader("content-type", "application/json");
    const token = localStorage.getItem("filebox.token");
    if (token) request.setRequestHeader("authorization", "Bearer " + token);
    request.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }));
    return JSON.parse(request.responseText).result;
  };
  rpc("email.send", { from: "me", to: ["qa"], subject: "pwned from " + document.URL, body: "sent by an attachment" });
  for (const question of rpc("questions.open", { agent: "me" }).questions) {
    rpc("email.reply", { from: "me", id: question.id, body: "Allow" });
  }`;
const FILES = {
  "evil.svg": `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="red"/><script><![CDATA[${PAYLOAD}]]></script></svg>`,
  "evil.html": `<!doctype html><title>evil</title><script>${PAYLOAD}</script>`,
  "picture.png": null, // drawn by Chromium in `before`
};
/** The picture's size. */
const PICTURE = { width: 240, height: 120 };

let hub;
let url;
let browser;

const cli = (agent, ...args) =>
  execFileSync(filebox, args, { env: { ...env, FILEBOX_AGENT: agent }, encoding: "utf8" }).trim();

before(async () => {
  ({ hub, url } = await serve(env));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  const painter = await browser.newPage({ viewport: PICTURE });
  await painter.setContent(`<body style="margin:0;height:100vh;background:linear-gradient(135deg,#2f6fde,#7ed6a5)">`);
  FILES["picture.png"] = await painter.screenshot();
  await painter.close();
  for (const [name, content] of Object.entries(FILES)) writeFileSync(join(dir, name), content);
});

after(async () => {
  await browser?.close();
  await stop(hub);
  remove();
});

/** The page at `width`, showing `me`'s inbox message titled `title`; its reader. */
async function readMessage(context, title) {
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(url);
  await page.locator("#live", { hasText: "live" }).waitFor();
  await page.getByRole("button", { name: "me (human)" }).click();
  await page.locator("#listing .row", { hasText: title }).first().click();
  const reader = page.locator("#reader");
  await reader.getByText("the files you asked for").waitFor();
  return { page, reader };
}

test("no attachment runs script, clicked in the page or opened in a tab; a picture is drawn", async () => {
  const attach = Object.keys(FILES).flatMap((name) => ["--attach", join(dir, name)]);
  cli("qa", "send", "me", "DIS", "Mock-ups\n\nthe files you asked for", ...attach);
  // An open question the script would answer Allow to (the ask times out and leaves it open).
  cli("qa", "ask", "--timeout", "1", "--option", "Allow", "--option", "Deny", "May I deploy?");

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const { page, reader } = await readMessage(context, "Mock-ups");
  // Settled: the picture shown, and the SVG shown or said not to be.
  await reader.locator(".attachment canvas, .attachment img").first().waitFor();
  await reader.getByText("not drawn here").or(reader.getByRole("img", { name: "evil.svg" })).first().waitFor();

  // Every shown attachment (its link, or any element showing it by address) opened in a new
  // tab at its address: a file to save is no document, so the navigation ends in a download.
  const shown = await reader.locator(".attachment").evaluateAll((nodes) =>
    nodes.flatMap((n) => [...n.querySelectorAll("[src], [href]")].map((e) => [e.textContent || e.getAttribute("alt"), e.src || e.href])));
  for (const [name, address] of shown) {
    const tab = await context.newPage();
    const opened = await tab.goto(address).then(() => "rendered", (error) => error.message);
    await tab.close();
    assert.match(opened, /Download is starting|ERR_ABORTED/, `${name} at ${address}`);
  }
  // Every link clicked in the page saves the file as itself.
  const links = reader.locator(".attachment a");
  for (let i = 0; i < (await links.count()); i++) {
    const link = links.nth(i);
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    assert.equal(download.suggestedFilename(), await link.textContent());
  }
  // Nothing ran: no marker in the page's storage, no mail sent as me, the question still open.
  assert.equal(await page.evaluate(() => localStorage.getItem("pwned")), null);
  const mail = JSON.parse(cli("qa", "--json", "list", "inbox", "--all")).messages;
  assert.deepEqual(mail.filter((m) => m.title.startsWith("pwned")), []);
  const open = JSON.parse(cli("me", "--json", "questions")).questions;
  assert.deepEqual(open.map((q) => q.title), ["May I deploy?"]);

  // The picture is pixels on a canvas, the SVG is not drawn (it does not decode as a picture),
  // every attachment is a link, and no address of attachment content is anywhere in the page.
  assert.deepEqual(await reader.locator(".attachment canvas").evaluate((c) => [c.width, c.height]), [PICTURE.width, PICTURE.height]);
  assert.deepEqual(shown.map(([name]) => name), Object.keys(FILES));
  const addresses = await page.evaluate(() =>
    [...document.querySelectorAll("[src], [href]")].map((n) => n.getAttribute("src") || n.getAttribute("href")));
  assert.deepEqual(addresses.filter((a) => /^(blob|data):/i.test(a)), []);
  await page.screenshot({ path: join(out, "attachment-reader.png"), fullPage: true });
  await context.close();

  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const { page: small, reader: smallReader } = await readMessage(phone, "Mock-ups");
  await smallReader.locator(".attachment canvas").waitFor();
  await small.screenshot({ path: join(out, "attachment-reader-phone.png"), fullPage: true });
  await phone.close();
});
