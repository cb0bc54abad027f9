/**
 * Runs the real `webbrain` bin (the tsx shim) as a child process, for tests; or its `main` in this
 * process (`runMain`) where the process adds nothing to what a test checks.
 */
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { format } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CONSOLE_METHODS,
  type ConsoleMethod,
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

/**
 * `webbrain ARGS` as `main` runs it in the bin, but in this process: the same exit code, stdout
 * and stderr, without a Node and tsx start (about a second each on a loaded two-core machine).
 * For what `main` and a command decide before they reach a browser or a model (help, usage
 * errors, refused files, commands on files); a test of the process itself (the bin, signals,
 * exit) uses `runCli`. No terminal: stdin is `opts.stdin`, then closed; nothing aborts the run.
 * Whatever else the call prints meanwhile (console, process.stdout/stderr) is collected too, as
 * the process's output would hold it: a stray line fails a test as it would through the bin.
 * `opts.env` is the environment the command reads (its io.env); what Node or a library reads
 * from the process at start (NODE_*, proxies, the temp folder) cannot be given so, and is refused.
 */
export async function runMain(
  args: string[],
  opts: Pick<ScriptOptions, "stdin" | "env"> = {},
): Promise<CliRun> {
  const processOnly = Object.keys(opts.env ?? {}).filter((name) => PROCESS_START_ENV.test(name));
  if (processOnly.length > 0) {
    throw new Error(
      `runMain: ${processOnly.join(", ")} take effect when a process starts (Node and its proxy settings, the temp folder), not in this one: use runCli`,
    );
  }
  // Imported here: a file that never calls this loads no CLI code.
  const { main } = await import("../src/cli/main.js");
  const stdout: string[] = [];
  const stderr: string[] = [];
  const collect = (into: string[]) =>
    new Writable({
      write(chunk, _encoding, done) {
        into.push(String(chunk));
        done();
      },
    });
  const restore = captureStrayOutput(stdout, stderr);
  try {
    const code = await main(args, {
      stdout: collect(stdout),
      stderr: collect(stderr),
      stdin: Readable.from([opts.stdin ?? ""]),
      env: { ...process.env, ...opts.env },
      interactive: false,
      signal: new AbortController().signal,
    });
    return { code, stdout: stdout.join(""), stderr: stderr.join("") };
  } finally {
    restore();
  }
}

/** Environment that Node or a library reads from the process itself, which runMain cannot give a call. */
const PROCESS_START_ENV = /^(NODE_\w+|\w+_PROXY|TMPDIR|TMP|TEMP)$/i;

/** Sends console output and direct process.stdout/stderr writes into `stdout` and `stderr` until restored. */
function captureStrayOutput(stdout: string[], stderr: string[]): () => void {
  const line =
    (into: string[]) =>
    (...args: unknown[]) => {
      into.push(`${format(...args)}\n`);
    };
  // Typed by testkit's list: a method the leak guard watches cannot be missed here.
  const consoleMethods: Record<ConsoleMethod, string[]> = {
    log: stdout,
    info: stdout,
    debug: stdout,
    warn: stderr,
    error: stderr,
  };
  const savedConsole = CONSOLE_METHODS.map((name) => [name, console[name]] as const);
  for (const name of CONSOLE_METHODS) console[name] = line(consoleMethods[name]);
  const savedWrites = [process.stdout.write, process.stderr.write] as const;
  const write =
    (into: string[]) =>
    (chunk: unknown, ...rest: unknown[]): boolean => {
      into.push(String(chunk));
      const done = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
      done?.();
      return true;
    };
  process.stdout.write = write(stdout) as typeof process.stdout.write;
  process.stderr.write = write(stderr) as typeof process.stderr.write;
  return () => {
    for (const [name, fn] of savedConsole) console[name] = fn;
    [process.stdout.write, process.stderr.write] = savedWrites;
  };
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
