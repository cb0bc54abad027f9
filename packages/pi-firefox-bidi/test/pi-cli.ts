/**
 * Runs the real `pi` CLI (0.73.1) with this package loaded, against a scripted
 * OpenAI-compatible server, in a throwaway workspace:
 * - `agentDir` (PI_CODING_AGENT_DIR) holds models.json and the user settings;
 * - `cwd` is the project (its `.pi/settings.json` is the project settings);
 * - `tmp` is the child's TMPDIR, so the Firefox profile and the spool folders
 *   land there and `leftovers` can prove nothing was left behind.
 * Every child is killed in `dispose`, also when a test failed.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { lastToolResultText, type RecordedRequest, type ScriptedLlm } from "@webbrain/testkit";
import { afterEach } from "vitest";

const PACKAGE_DIR = resolve(fileURLToPath(new URL("..", import.meta.url)));
const PI_BIN = resolve(PACKAGE_DIR, "../../node_modules/.bin/pi");
/** Long enough for a Firefox launch on a loaded two-core machine. */
// Generous: under CI load, pi alone can take 20-40 s to start and answer.
const RUN_TIMEOUT_MS = 120_000;

export interface PiWorkspace {
  root: string;
  agentDir: string;
  cwd: string;
  tmp: string;
}

export function makeWorkspace(baseUrl: string): PiWorkspace {
  const root = mkdtempSync(join(tmpdir(), "pi-ffbidi-e2e-"));
  const ws = { root, agentDir: join(root, "agent"), cwd: join(root, "project"), tmp: join(root, "tmp") };
  for (const dir of [ws.agentDir, ws.cwd, ws.tmp]) mkdirSync(dir, { recursive: true });
  const models = {
    providers: {
      scripted: {
        baseUrl,
        api: "openai-completions",
        apiKey: "x",
        compat: { supportsDeveloperRole: false, supportsUsageInStreaming: false, supportsStore: false },
        models: [{ id: "scripted-1", contextWindow: 32000, maxTokens: 1024 }],
      },
    },
  };
  writeFileSync(join(ws.agentDir, "models.json"), JSON.stringify(models));
  return ws;
}

export function writeUserSettings(ws: PiWorkspace, settings: unknown): void {
  writeFileSync(
    join(ws.agentDir, "settings.json"),
    typeof settings === "string" ? settings : JSON.stringify(settings),
  );
}

export function writeProjectSettings(ws: PiWorkspace, settings: unknown): void {
  mkdirSync(join(ws.cwd, ".pi"), { recursive: true });
  writeFileSync(join(ws.cwd, ".pi", "settings.json"), JSON.stringify(settings));
}

function childEnv(ws: PiWorkspace, env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    PI_CODING_AGENT_DIR: ws.agentDir,
    PI_OFFLINE: "1",
    TMPDIR: ws.tmp,
  };
  for (const key of ["PI_FIREFOX", "FIREFOX_BIN", "PI_FIREFOX_BIDI_DEBUG", "PI_FIREFOX_BIDI_TRUST_PROJECT"])
    delete base[key];
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base;
}

function baseArgs(): string[] {
  return [
    "--no-session",
    "--no-context-files",
    "-e",
    PACKAGE_DIR,
    "--provider",
    "scripted",
    "--model",
    "scripted-1",
  ];
}

const children = new Set<ChildProcess>();

export interface PrintRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `pi -p <prompt> [...extra]`; extra goes last because Pi's parser would take `--firefox "prompt"` as a value. */
export function runPrint(
  ws: PiWorkspace,
  prompt: string,
  extra: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<PrintRun> {
  const child = spawn(PI_BIN, [...baseArgs(), "-p", prompt, ...extra], {
    cwd: ws.cwd,
    env: childEnv(ws, env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolveRun, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`pi -p did not finish within ${RUN_TIMEOUT_MS} ms; stderr: ${stderr.slice(-2000)}`));
    }, RUN_TIMEOUT_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolveRun({ code, stdout, stderr });
    });
  });
}

export type RpcLine = Record<string, unknown> & { type?: string };

/** `pi --mode rpc`: JSONL on stdin and stdout, split on "\n" only (rpc.md "Framing"). */
export class PiRpc {
  readonly lines: RpcLine[] = [];
  readonly #child: ChildProcess;
  #buffer = "";
  #stderr = "";
  readonly #waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;

  constructor(ws: PiWorkspace, extra: string[] = [], env: Record<string, string | undefined> = {}) {
    this.#child = spawn(PI_BIN, [...baseArgs(), "--mode", "rpc", ...extra], {
      cwd: ws.cwd,
      env: childEnv(ws, env),
      stdio: ["pipe", "pipe", "pipe"],
    });
    children.add(this.#child);
    this.exited = new Promise((resolveExit) => {
      this.#child.on("exit", (code) => {
        children.delete(this.#child);
        resolveExit(code);
        for (const wake of this.#waiters) wake();
      });
    });
    this.#child.stdout?.on("data", (chunk: Buffer) => {
      this.#buffer += chunk.toString("utf8");
      let newline = this.#buffer.indexOf("\n");
      while (newline !== -1) {
        const line = this.#buffer.slice(0, newline).replace(/\r$/, "");
        this.#buffer = this.#buffer.slice(newline + 1);
        if (line.trim()) this.lines.push(JSON.parse(line) as RpcLine);
        newline = this.#buffer.indexOf("\n");
      }
      for (const wake of this.#waiters) wake();
    });
    this.#child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr += chunk.toString("utf8");
    });
  }

  send(command: Record<string, unknown>): void {
    this.#child.stdin?.write(`${JSON.stringify(command)}\n`);
  }

  /** Resolves with the first line (at or after `from`) that matches. */
  waitFor(
    match: (line: RpcLine) => boolean,
    what: string,
    from = 0,
    timeoutMs = RUN_TIMEOUT_MS,
  ): Promise<RpcLine> {
    return new Promise((resolveLine, reject) => {
      const check = () => {
        const found = this.lines.slice(from).find(match);
        if (found) {
          done();
          resolveLine(found);
        } else if (this.#child.exitCode !== null) {
          done();
          reject(new Error(`pi exited before ${what}; stderr: ${this.#stderr.slice(-2000)}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `timed out waiting for ${what}; last lines: ${JSON.stringify(this.lines.slice(-5)).slice(0, 3000)}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(check);
      };
      this.#waiters.add(check);
      check();
    });
  }

  /** Sends a prompt and resolves once the agent finished it (agent_end), or the command's notify for `/` commands. */
  async prompt(message: string): Promise<RpcLine[]> {
    const from = this.lines.length;
    this.send({ type: "prompt", message });
    if (message.startsWith("/")) {
      await this.waitFor(
        (line) => line.type === "extension_ui_request" && line.method === "notify",
        `notify after ${message}`,
        from,
      );
    } else {
      await this.waitFor((line) => line.type === "agent_end", `agent_end after ${message}`, from);
    }
    return this.lines.slice(from);
  }

  notifications(): { message: string; notifyType: string }[] {
    return this.lines
      .filter((line) => line.type === "extension_ui_request" && line.method === "notify")
      .map((line) => ({ message: String(line.message), notifyType: String(line.notifyType) }));
  }

  /** Closes stdin so Pi shuts down (session_shutdown), and waits for the exit. */
  async close(): Promise<number | null> {
    this.#child.stdin?.end();
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/** Processes whose command line mentions the workspace (Firefox profiles live under its tmp). */
export function processesUsing(ws: PiWorkspace): string[] {
  try {
    return execFileSync("pgrep", ["-af", ws.tmp], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.includes("pgrep"));
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

/** What is left in the workspace's TMPDIR (spool folders, profiles), besides Pi's own jiti cache. */
export function tmpEntries(ws: PiWorkspace): string[] {
  return readdirSync(ws.tmp).filter((name) => name !== "jiti");
}

/** Kills what a failed test may have left (pi children, then Firefox processes by pid), then removes the workspace. */
export function disposeWorkspace(ws: PiWorkspace | undefined): void {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  if (!ws) return;
  for (const line of processesUsing(ws)) {
    const pid = Number(line.split(" ")[0]);
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
  rmSync(ws.root, { recursive: true, force: true });
}

/**
 * The scripted model and the Pi workspace of the running test, released after each test
 * (this registers the afterEach): a failed test leaves no pi, Firefox or temp folder behind.
 */
export interface PiTestResources {
  llm?: ScriptedLlm;
  ws?: PiWorkspace;
}

export function usePiTestResources(): PiTestResources {
  const held: PiTestResources = {};
  afterEach(async () => {
    await held.llm?.close();
    disposeWorkspace(held.ws);
    held.llm = undefined;
    held.ws = undefined;
  });
  return held;
}

/** A scripted model turn that calls the firefox_bidi tool with these arguments. */
export function firefoxCall(args: Record<string, unknown>) {
  return { toolCalls: [{ name: "firefox_bidi", arguments: args }] };
}

/** The firefox_bidi tool result as the tests read it (README "Tool result"). */
export interface ToolPayload {
  session: { pid: number; browser: string; headless: boolean; launchedThisCall: boolean; access: string };
  frames: {
    id: number | null;
    method: string;
    status: string;
    response?: { result?: Record<string, unknown> };
    error?: { kind: string; message: string };
    spooled?: { path: string; bytes: number };
  }[];
  wait?: { status: string; matched: { method: string; params: { context: string } }[] };
  events: unknown[];
}

/** The tool result the model received in this request. */
export function payloadOf(request: RecordedRequest | undefined): ToolPayload {
  if (!request) throw new Error("the scripted model got no such request");
  return JSON.parse(lastToolResultText(request)) as ToolPayload;
}
