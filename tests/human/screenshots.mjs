// Regenerates docs/page-desktop.png (1280×800) and docs/page-phone.png (390×844): the page of a
// realistic mailbox (a work report with a table, an urgent unread bug, an open question, one
// answered on the page, a permission prompt). Not part of the test run:
//
//   FILEBOX_BIN=$PWD/target/debug/filebox node tests/human/screenshots.mjs
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { channelSession, filebox, launchChromium, mailroom, relayPrompt, serve, start, stop } from "./support.mjs";

const docs = new URL("../../docs/", import.meta.url).pathname;
const { env, remove } = mailroom("filebox-screenshots-");
const cli = (agent, ...args) => execFileSync(filebox, args, { env: { ...env, FILEBOX_AGENT: agent }, encoding: "utf8" }).trim();
const ask = (question, ...options) =>
  start(filebox, ["ask", question, "--project", "/src/shop", ...options.flatMap((o) => ["--option", o])], { ...env, FILEBOX_AGENT: "qa" });

const REPORT = `Checkout release candidate: every suite ran

| Suite | Tests | Result | Time |
|:------|------:|:------:|-----:|
| unit | 1,204 | pass | 41 s |
| integration | 187 | pass | 3 min 12 s |
| browser (Chromium) | 64 | 2 flaky, passed on retry | 6 min 05 s |

The two flaky ones wait on a *fixed* sleep; I left a note in \`checkout.spec.ts\`.`;

const { hub, url } = await serve(env);
const waiting = [];
const browser = await launchChromium(chromium);
try {
  cli("qa", "send", "me", "SU", "Nightly build is green again\n\nThe cache key now includes the lock file.");
  cli("qa", "send", "me", "DIS", "Rename `orders_v2` to **orders** before the freeze?\n\nNothing reads the old name since #412.");
  cli("me", "read", cli("me", "list", "inbox").split("\n")[0].split(" ").pop().replace(/[()]/g, ""));
  cli("qa", "send", "me", "RPT", REPORT);
  cli("qa", "send", "me", "BR", "Payment page crashes on an empty cart\n\n`TypeError: cart.items is undefined` at `summary.js:88`, on every browser.", "--priority", "urgent");
  waiting.push(ask("Ship the release candidate **today**, or wait for the flaky-test fix?", "Ship today", "Wait"));
  waiting.push(ask("Which region for the new database: eu-west or eu-central?", "eu-west", "eu-central"));
  const session = await channelSession(env);
  waiting.push(session);
  relayPrompt(session, "shots", "Run the browser suite once more", "npx playwright test checkout.spec.ts --retries=0");

  for (const [name, viewport] of [["page-desktop.png", { width: 1280, height: 800 }], ["page-phone.png", { width: 390, height: 844 }]]) {
    const context = await browser.newContext({ viewport, locale: "en-GB", isMobile: viewport.width < 500, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(url);
    await page.locator("#live", { hasText: "live" }).waitFor();
    await page.locator(".card", { hasText: "wants to run Bash" }).waitFor();
    await page.locator(".card", { hasText: "every suite ran" }).waitFor();
    await page.getByRole("button", { name: "me (human)" }).click();
    await page.locator("#listing .row", { hasText: "Payment page" }).waitFor();
    const region = page.locator(".card", { hasText: "Which region" });
    if (viewport.width > 500) {
      await region.getByRole("button", { name: "eu-west" }).click();
      await region.locator(".given").waitFor();
      await page.locator("#listing .row", { hasText: "every suite ran" }).click();
      await page.locator("#reader table").waitFor();
      // The listing redrawn after both: the question answered (gone to done), the report read.
      await page.locator("#listing .row", { hasText: "Which region" }).waitFor({ state: "detached" });
      await page.locator("#listing .row:not(.unread)", { hasText: "every suite ran" }).waitFor();
    }
    await page.evaluate(() => window.scrollTo(0, 0)); // the sticky header at the top of the shot
    await page.screenshot({ path: join(docs, name), fullPage: true });
    console.log(`${docs}${name}`);
    await context.close();
  }
} finally {
  for (const child of waiting) await stop(child);
  await browser.close();
  await stop(hub);
  remove();
}
