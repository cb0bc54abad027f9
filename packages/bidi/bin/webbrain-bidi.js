#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so no build step is needed. On a Node older than
// the supported ones (the machine's end-of-life Node 20), it runs itself again on the current
// LTS, brought from the npm registry once (scripts/supported-node-lib.mjs).
import { fileURLToPath } from "node:url";
import { isSupported, runOnSupportedNode } from "../../../scripts/supported-node-lib.mjs";

if (isSupported(process.versions.node)) {
  const { register } = await import("tsx/esm/api");
  register();
  const { runCli } = await import("../src/cli.ts");
  process.exitCode = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
  });
} else {
  runOnSupportedNode(["node", fileURLToPath(import.meta.url), ...process.argv.slice(2)]);
}
