// Reading mail on the page (Chromium, en-GB, in Tokyo's time zone): a work report's Markdown
// table is a table whose cells are text; a title holding Markdown is plain text in the listing,
// cut on characters; the listing marks unread and urgent mail and keeps date and type at phone
// width; the reader's header gives the type's name, who wrote to whom and a local, human date
// (the file only as a small detail) and no stray "null".
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chromium } from "playwright-core";
import { filebox, launchChromium, mailroom, serve, stop } from "./support.mjs";

const { env, remove } = mailroom("filebox-reading-");
const ZONE = "Asia/Tokyo";
let hub;
let url;
let browser;

const cli = (agent, ...args) => execFileSync(filebox, args, { env: { ...env, FILEBOX_AGENT: agent }, encoding: "utf8" }).trim();
/** Sends `body` from qa to me; the new message's fields as `status --json` has them. */
function mail(type, body, ...args) {
  const id = cli("qa", "send", "me", type, body, ...args).split("\n").pop();
  return JSON.parse(cli("me", "--json", "status", id)); // looks only: marks nothing read
}
/** `iso` in Tokyo, as `options` of en-GB's Intl.DateTimeFormat write it. */
const tokyo = (iso, options) => new Intl.DateTimeFormat("en-GB", { timeZone: ZONE, ...options }).format(new Date(iso));

/** The page of the human `me`'s inbox, at `width`, with the browser's clock at `now` if given. */
async function inbox({ width = 1100, now } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-GB", timezoneId: ZONE, isMobile: width < 500 });
  const page = await context.newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  if (now) await page.clock.setFixedTime(now);
  await page.goto(url);
  await page.locator("#live", { hasText: "live" }).waitFor();
  await page.getByRole("button", { name: "me (human)" }).click();
  return page;
}

const row = (page, text) => page.locator("#listing .row", { hasText: text }).first();

before(async () => {
  ({ hub, url } = await serve(env));
  browser = await launchChromium(chromium);
});

after(async () => {
  await browser?.close();
  await stop(hub);
  remove();
});

test("a work report's Markdown table is drawn as a table, in the card and the reader, its cells as text", async () => {
  mail("RPT", [
    "Suites ran",
    "",
    "| Suite | Result | Time |",
    "|:--|:-:|--:|",
    "| unit | **pass** | 41 s |",
    "| browser | <img src=x onerror=alert(1)> | 6 min |",
    "| pipes | a \\| b |",
    "",
    "After the table.",
  ].join("\n"));
  const page = await inbox();
  const check = async (table) => {
    await table.waitFor();
    assert.deepEqual(await table.locator("th").allTextContents(), ["Suite", "Result", "Time"]);
    assert.deepEqual(await table.locator("tbody tr").evaluateAll((rows) => rows.map((r) => [...r.cells].map((c) => c.textContent))), [
      ["unit", "pass", "41 s"],
      ["browser", "<img src=x onerror=alert(1)>", "6 min"],
      ["pipes", "a | b", ""],
    ]);
    assert.equal(await table.locator("strong").textContent(), "pass");
    assert.equal(await table.locator("img").count(), 0, "a cell's HTML is text");
    assert.deepEqual(await table.locator("thead th").evaluateAll((cells) => cells.map((c) => getComputedStyle(c).textAlign)), ["left", "center", "right"]);
  };
  await check(page.locator(".card", { hasText: "Suites ran" }).locator("table"));
  await row(page, "Suites ran").click();
  await check(page.locator("#reader table"));
  await page.locator("#reader p", { hasText: "After the table." }).waitFor();
  assert.doesNotMatch(await page.locator("#reader").textContent(), /\|---|\|:--/);
  await page.context().close();
});

test("a title holding Markdown is plain text in the listing, cut on characters with an ellipsis", async () => {
  // The first line is longer than a title: it is cut inside `*Jenkins pipeline*`.
  const long = mail("BR", "Deploy *flaky* again: the release job of the payments service clashes with *Jenkins pipeline* on the shared runner");
  assert.match(long.title, /\*Jenk[a-z ]*…$/, long.title);
  const longer = mail("DIS", "Plan", "--title", `Plan ${"the next quarter's roadmap, ".repeat(8)}end`);
  const page = await inbox();
  const title = row(page, "Deploy flaky again").locator(".title");
  assert.match(await title.textContent(), /^Deploy flaky again: the release job .* clashes with Jenk[a-z ]*…$/);
  assert.equal(await title.locator("*").count(), 0, "no Markdown drawn in a title");
  const cut = await row(page, "roadmap").locator(".title");
  const text = await cut.textContent();
  assert.ok(text.endsWith("…") && [...text].length <= 120, text);
  assert.ok(longer.title.startsWith(text.slice(0, -1).trimEnd()), text);
  assert.equal(await cut.getAttribute("title"), longer.title, "the whole title is the row's tooltip");
  await page.context().close();
});

test("the listing marks unread and urgent mail, and keeps date and type at phone width", async () => {
  mail("BR", "Checkout crashes on an empty cart", "--priority", "urgent");
  mail("SU", "Nightly build is green");
  const page = await inbox();
  const urgent = row(page, "Checkout crashes");
  await urgent.getByRole("img", { name: "urgent" }).waitFor();
  await urgent.getByRole("img", { name: "unread" }).waitFor();
  assert.ok(Number(await urgent.locator(".title").evaluate((n) => getComputedStyle(n).fontWeight)) >= 600, "an unread title is bold");
  const nightly = row(page, "Nightly build");
  assert.equal(await nightly.getByRole("img", { name: "urgent" }).count(), 0);
  // Read, it is no longer marked unread (the page records the read receipt).
  await nightly.click();
  await page.locator("#reader h3", { hasText: "Nightly build" }).waitFor();
  await nightly.and(page.locator(":not(.unread)")).waitFor();
  assert.equal(await nightly.getByRole("img", { name: "unread" }).count(), 0);
  assert.ok(Number(await nightly.locator(".title").evaluate((n) => getComputedStyle(n).fontWeight)) < 600);
  await page.context().close();

  const phone = await inbox({ width: 390 });
  const phoneRow = row(phone, "Checkout crashes");
  await phoneRow.waitFor();
  for (const part of [".when", ".kind", ".title"]) assert.ok(await phoneRow.locator(part).isVisible(), `${part} at phone width`);
  assert.equal(await phoneRow.locator(".kind").textContent(), "bug report");
  assert.match(await phoneRow.locator(".when").textContent(), /^\d\d:\d\d$/);
  await phoneRow.getByRole("img", { name: "urgent" }).waitFor();
  const width = await phone.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page scrolls sideways: ${width}px`);
  await phone.context().close();
});

test("the reader's header: the type's name, from and to, a local human date; the file only as a detail; no stray null", async () => {
  const sent = mail("BR", "Login button does nothing\n\nOn Safari only.");
  // When it was written, from its file name (`20261201T183554-BR-…`), in UTC.
  const [, y, mo, d, h, mi, sec] = sent.file.match(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)-/);
  const created = `${y}-${mo}-${d}T${h}:${mi}:${sec}Z`;
  const page = await inbox();
  await row(page, "Login button").click();
  const reader = page.locator("#reader");
  await reader.locator("h3", { hasText: "Login button does nothing" }).waitFor();
  const about = reader.locator(".about");
  assert.equal(await about.locator(".kind").textContent(), "bug report");
  assert.match(await about.textContent(), /qa → me/);
  // Today, in the browser's time zone (Tokyo), hours and minutes only.
  assert.equal(await about.locator("time").textContent(), tokyo(created, { hour: "2-digit", minute: "2-digit" }));
  assert.doesNotMatch(await about.textContent(), /\d{4}-\d\d-\d\dT|\.md/);
  assert.match(await reader.locator(".file").textContent(), /^inbox\/\d{8}T\d{6}-BR-login-button-does-nothing-[0-9a-f]{8}\.md$/);
  assert.ok(await reader.locator(".file").evaluate((n) => parseFloat(getComputedStyle(n).fontSize) < parseFloat(getComputedStyle(n.parentElement).fontSize)), "the file is a small detail");
  assert.doesNotMatch(await reader.textContent(), /null/);
  await page.context().close();

  // A day later it was yesterday; five days later, its day and month.
  const day = 24 * 60 * 60 * 1000;
  for (const [later, listed] of [[day, "yesterday"], [5 * day, tokyo(created, { day: "numeric", month: "short" })]]) {
    const seen = await inbox({ now: Date.parse(created) + later });
    assert.equal(await row(seen, "Login button").locator(".when").textContent(), listed);
    await row(seen, "Login button").click();
    const header = seen.locator("#reader .about time");
    await header.waitFor();
    assert.equal(await header.textContent(), `${listed} ${tokyo(created, { hour: "2-digit", minute: "2-digit" })}`);
    await seen.context().close();
  }
});
