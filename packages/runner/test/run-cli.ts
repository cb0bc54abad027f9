/** Runs the real `webbrain` bin (the tsx shim) as a child process, for tests. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";

export const BIN = fileURLToPath(new URL("../bin/webbrain.js", import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  opts: { stdin?: string; env?: Record<string, string>; onStderr?: (text: string) => void } = {},
): Promise<CliRun> {
  return startCli(args, opts).done;
}

/** A `webbrain` child still running: signal it (`child.kill("SIGINT")`), then await `done`. */
export interface StartedCli {
  child: ChildProcess;
  done: Promise<CliRun>;
}

export function startCli(
  args: string[],
  opts: { stdin?: string; env?: Record<string, string>; onStderr?: (text: string) => void } = {},
): StartedCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...opts.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const done = new Promise<CliRun>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      opts.onStderr?.(stderr);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? "");
  });
  return { child, done };
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
