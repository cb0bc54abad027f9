/** Runs the real `webbrain` bin (the tsx shim) as a child process, for tests. */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  runNodeScript,
  type ScriptOptions,
  type ScriptRun,
  type StartedScript,
  startNodeScript,
} from "@webbrain/testkit";

export const BIN = fileURLToPath(new URL("../bin/webbrain.js", import.meta.url));

export type CliRun = ScriptRun;
export type StartedCli = StartedScript;

export function runCli(args: string[], opts: ScriptOptions = {}): Promise<CliRun> {
  return runNodeScript(BIN, args, opts);
}

/** A `webbrain` child still running: signal it (`child.kill("SIGINT")`), then await `done`. */
export function startCli(args: string[], opts: ScriptOptions = {}): StartedCli {
  return startNodeScript(BIN, args, opts);
}

/**
 * An MCP client connected to a `webbrain mcp …args` child over stdio, the way a coding agent
 * starts it: this process's environment plus `env`, stderr piped so a test can read it.
 */
export async function connectMcpClient(
  args: string[],
  opts: { env?: Record<string, string>; request?: RequestOptions; client?: Client } = {},
): Promise<Client> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  // A test that needs capabilities (elicitation) or handlers brings its own client.
  const client = opts.client ?? new Client({ name: "webbrain-test", version: "0.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", ...args],
      env: { ...env, ...opts.env },
      stderr: "pipe",
    }),
    opts.request,
  );
  return client;
}

/** The text blocks of an MCP tool result, one per line (image blocks left out). */
export function mcpResultText(result: Awaited<ReturnType<Client["callTool"]>>): string {
  return (result.content as { type: string; text?: string }[])
    .filter((block) => block.type === "text")
    .map((block) => block.text ?? "")
    .join("\n");
}
