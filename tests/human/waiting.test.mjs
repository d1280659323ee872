// The "Waiting for you" section in Chromium: it says it is looking until the first listing
// came, then the truth; questions and permission prompts that hold an agent up come first, then
// newest first, arrivals included; a closed card shows the answer given, here or on another
// page; the tab's title counts the waiting questions; a notification, offered by a button and
// never by an automatic prompt, comes only while the page is in a background tab.
import { test, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chromium } from "playwright-core";
import { channelSession, filebox, launchChromium, mailroom, relayPrompt, serve, stop } from "./support.mjs";

const { env, remove } = mailroom("filebox-waiting-");
let hub;
let url;
let browser;

const cli = (agent, ...args) => execFileSync(filebox, args, { env: { ...env, FILEBOX_AGENT: agent }, encoding: "utf8" }).trim();
/** A question (ASK) or work report (RPT) from qa to me, as an agent's send writes it; its id. */
const ask = (type, text) => cli("qa", "send", "me", type, text).split("\n").pop();
/** Answers every open question as me: after each test, so the next starts with none. */
const answerAll = () => {
  for (const { id } of JSON.parse(cli("me", "--json", "questions")).questions) cli("me", "reply", id, "done");
};
// The page shows the newer of two questions first by their time, which has whole seconds.
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1100));

async function openPage(context) {
  const page = await (context || (await browser.newContext({ viewport: { width: 1100, height: 900 } }))).newPage();
  page.on("pageerror", (e) => console.error("page error:", e.message));
  return page;
}
const cards = (page) => page.locator("#questions .card");
const cardOf = (page, text) => page.locator(".card", { hasText: text });

before(async () => {
  ({ hub, url } = await serve(env));
  browser = await launchChromium(chromium);
});

afterEach(answerAll);

after(async () => {
  await browser?.close();
  await stop(hub);
  remove();
});

test("until the first listing comes the section says it is looking, never 'No open questions'; then the truth", async () => {
  ask("ASK", "Keep the old API for a month?");
  ask("ASK", "Merge the docs branch?");
  const page = await openPage();
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route("**/rpc", async (route) => {
    if (route.request().postDataJSON()?.method === "questions.open") await held;
    await route.continue();
  });
  await page.goto(url);
  await page.locator("#boxes button", { hasText: "me (human)" }).waitFor();
  const none = page.locator("#none");
  assert.match(await none.textContent(), /^Looking for open questions/);
  assert.ok(await none.isVisible());
  assert.equal(await cards(page).count(), 0);
  release();
  await cards(page).nth(1).waitFor();
  assert.ok(await none.isHidden());
  await page.context().close();

  answerAll();
  const empty = await openPage();
  await empty.goto(url);
  await empty.locator("#none", { hasText: "No open questions." }).waitFor();
  await empty.context().close();
});

test("questions and permission prompts that hold an agent up come first, then newest first, arrivals too", async () => {
  ask("RPT", "Report A: the invoices render");
  await nextSecond();
  ask("ASK", "Question B: which font?");
  await nextSecond();
  ask("RPT", "Report C: the logs rotate");
  await nextSecond();
  ask("ASK", "Question D: ship it?");
  const page = await openPage();
  await page.goto(url);
  const order = async (count) => {
    await cards(page).nth(count - 1).waitFor();
    return (await cards(page).allTextContents()).map((text) => text.match(/(Question|Report|Prompt) [A-Z]:/)[0].slice(0, -1));
  };
  assert.deepEqual(await order(4), ["Question D", "Question B", "Report C", "Report A"]);
  await nextSecond();
  ask("RPT", "Report E: the cache is warm");
  assert.deepEqual(await order(5), ["Question D", "Question B", "Report E", "Report C", "Report A"]);
  const session = await channelSession(env);
  try {
    relayPrompt(session, "order", "Prompt F: run the migrations", "make migrate");
    await cards(page).nth(5).waitFor();
    assert.match(await cards(page).first().textContent(), /qa wants to run Bash: Prompt F: run the migrations/);
    assert.equal(await cards(page).first().locator(".kind").textContent(), "permission");
    await cards(page).first().getByRole("button", { name: "Deny" }).click();
    await cards(page).first().locator(".banner", { hasText: "Answered" }).waitFor();
  } finally {
    await stop(session);
  }
  await page.context().close();
});

test("a closed card shows the answer it got: the one sent here, and on another page the one given there", async () => {
  const [a, b] = [await openPage(), await openPage()];
  for (const page of [a, b]) await page.goto(url);
  ask("ASK", "Which region for the database?");
  for (const page of [a, b]) await cardOf(page, "Which region").waitFor();
  await cardOf(a, "Which region").locator("textarea").fill("eu-west, **near** the users");
  await cardOf(a, "Which region").locator("button.send").click();
  await cardOf(a, "Which region").locator(".banner", { hasText: "Answered — sent to the agent." }).waitFor();
  for (const page of [a, b]) {
    const given = cardOf(page, "Which region").locator(".given");
    await given.waitFor();
    assert.equal(await given.locator(".md").textContent(), "eu-west, near the users");
    assert.equal(await given.locator("strong").textContent(), "near");
  }
  await cardOf(b, "Which region").locator(".banner", { hasText: "Answered (on another page" }).waitFor();
  await a.context().close();
  await b.context().close();
});

test("the tab's title counts the questions waiting", async () => {
  const page = await openPage();
  await page.goto(url);
  await page.locator("#none", { hasText: "No open questions." }).waitFor();
  assert.equal(await page.title(), "FileBox");
  ask("ASK", "Title one?");
  ask("RPT", "Title two done");
  await page.waitForFunction(() => document.title === "(2) FileBox");
  await cardOf(page, "Title one?").getByRole("button", { name: "OK" }).click();
  await page.waitForFunction(() => document.title === "(1) FileBox");
  answerAll();
  await page.waitForFunction(() => document.title === "FileBox");
  await page.context().close();
});

test("notifications: offered by a button, asked once on its click, shown only while the page is in a background tab", async () => {
  const context = await browser.newContext();
  // Record what the page asks of the browser (permission requests, notifications, tones), and
  // let the test say whether the page is in view.
  await context.addInitScript(() => {
    Object.assign(window, { asked: 0, shown: [], tones: 0 });
    const RealNotification = window.Notification;
    window.Notification = class extends RealNotification {
      constructor(title, options) {
        super(title, options);
        window.shown.push({ title, body: options?.body });
      }
      static requestPermission(...args) {
        window.asked += 1;
        return RealNotification.requestPermission(...args);
      }
    };
    const RealAudio = window.AudioContext;
    window.AudioContext = class extends RealAudio {
      createOscillator() {
        window.tones += 1;
        return super.createOscillator();
      }
    };
    let hidden = false;
    Object.defineProperty(Document.prototype, "hidden", { configurable: true, get: () => hidden });
    Object.defineProperty(Document.prototype, "visibilityState", { configurable: true, get: () => (hidden ? "hidden" : "visible") });
    window.setHidden = (value) => {
      hidden = value;
      document.dispatchEvent(new Event("visibilitychange"));
    };
  });
  const page = await openPage(context);
  await page.goto(url);
  await page.locator("#live", { hasText: "live" }).waitFor();
  await page.locator("#none", { hasText: "No open questions." }).waitFor();
  const offer = page.getByRole("button", { name: "Notify me" });
  assert.ok(await offer.isVisible());
  assert.equal(await page.evaluate(() => window.asked), 0, "no permission prompt without a click");
  await context.grantPermissions(["notifications"]);
  await offer.click();
  await offer.waitFor({ state: "hidden" }); // allowed: nothing more to offer
  assert.equal(await page.evaluate(() => window.asked), 1);

  // In view: the card and a tone, no notification.
  const tones = await page.evaluate(() => window.tones);
  ask("ASK", "Seen in the open tab?");
  await cardOf(page, "Seen in the open tab?").waitFor();
  assert.deepEqual(await page.evaluate(() => window.shown), []);
  assert.ok((await page.evaluate(() => window.tones)) > tones);
  // In a background tab: a notification too.
  await page.evaluate(() => window.setHidden(true));
  ask("ASK", "Seen from another tab?");
  await page.waitForFunction(() => window.shown.length > 0);
  assert.deepEqual(await page.evaluate(() => window.shown), [{ title: "qa asks", body: "Seen from another tab?" }]);
  await context.close();

  // A browser that already allows it is offered nothing.
  const allowed = await browser.newContext({ permissions: ["notifications"] });
  const again = await openPage(allowed);
  await again.goto(url);
  await again.locator("#live", { hasText: "live" }).waitFor();
  assert.ok(await again.getByRole("button", { name: "Notify me" }).isHidden());
  await allowed.close();
});
