#!/usr/bin/env node
// `filebox` from npm: runs the native binary that this platform's package
// (@filebox/cli-<platform>-<arch>, an optional dependency npm installs only where its os and cpu
// match) carries, with the same arguments and standard streams, and exits as it exits.
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");
const { optionalDependencies } = require("../package.json");

function fail(message) {
  process.stderr.write(`filebox: ${message}\n`);
  process.exit(1);
}

function binary() {
  const platform = `${process.platform}-${process.arch}`;
  const packages = Object.keys(optionalDependencies);
  const name = packages.find((name) => name.endsWith(`/cli-${platform}`));
  if (name === undefined) {
    fail(
      `no binary is packaged for ${platform} (only ${packages.join(", ")}); ` +
        "build it from source: cargo install --locked --path crates/filebox in a checkout",
    );
  }
  try {
    return path.join(path.dirname(require.resolve(`${name}/package.json`)), "bin", "filebox");
  } catch {
    fail(
      `${name}, the package holding the binary, is not installed: npm skips optional ` +
        "dependencies under --omit=optional (or --no-optional); install filebox again without it",
    );
  }
}

const exe = binary();
const env = { ...process.env };
// `filebox setup` writes the command a host starts FileBox with. Run from npx's cache (a folder
// npm may clean at any time), that command is `npx -y filebox`, not this path: say so, naming
// the binary, which trusts the word only about itself (a value it passes on is then ignored).
if (__dirname.split(path.sep).includes("_npx")) {
  env.FILEBOX_LAUNCHER = `npx:${exe}`;
} else {
  delete env.FILEBOX_LAUNCHER;
}

const child = spawn(exe, process.argv.slice(2), { stdio: "inherit", env });
child.on("error", (error) => fail(`cannot run ${exe}: ${error.message}`));
// A terminal's Ctrl-C reaches the binary itself (one process group); a signal sent to this
// process alone is passed on, and this process waits for the binary to end.
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code);
  }
});
