#!/usr/bin/env node
// The `webbrain` bin: registers tsx so the TypeScript CLI runs without a build step. On a Node
// older than the supported ones (the machine's end-of-life Node 20), it runs itself again on the
// current LTS, brought from the npm registry once (scripts/supported-node-lib.mjs).
import { fileURLToPath } from "node:url";
import { isSupported, runOnSupportedNode } from "../../../scripts/supported-node-lib.mjs";

if (isSupported(process.versions.node)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/webbrain.ts");
} else {
  runOnSupportedNode(["node", fileURLToPath(import.meta.url), ...process.argv.slice(2)]);
}
