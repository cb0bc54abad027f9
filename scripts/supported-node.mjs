#!/usr/bin/env node
// Runs a command on a supported Node (see supported-node-lib.mjs).
//
//   node scripts/supported-node.mjs run -- <command> [args...]   the command on a supported Node
//   node scripts/supported-node.mjs bin <current|oldest>         install if needed, print its bin folder
import { fail, installedNodeBin, runOnSupportedNode, versions } from "./supported-node-lib.mjs";

const [verb, ...rest] = process.argv.slice(2);
if (verb === "run") {
  runOnSupportedNode(rest[0] === "--" ? rest.slice(1) : rest);
} else if (verb === "bin" && (rest[0] === "current" || rest[0] === "oldest")) {
  process.stdout.write(`${installedNodeBin(versions[rest[0]])}\n`);
} else {
  fail("usage: supported-node.mjs run -- <command> [args...] | supported-node.mjs bin <current|oldest>");
}
