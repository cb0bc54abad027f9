#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so no build step is needed.
import { register } from "tsx/esm/api";

register();
const { runCli } = await import("../src/cli.ts");
process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
});
