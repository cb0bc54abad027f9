/**
 * `npx tsx packages/runner/bench/task-cost.ts` (part of `npm run bench -w packages/runner`): what a
 * whole task costs through `webbrain mcp` against Playwright MCP (`@playwright/mcp` 0.0.83, the
 * same stock firefox-esr), both over MCP stdio with the SDK's client, then through `webbrain run`
 * (our agent loop) with testkit's scripted LLM, then N parallel sessions of each.
 *
 * Each task (fixtures under packages/testkit/fixtures/task-bench/) is a list of steps: act on the
 * element with this role and name. One small deterministic "model" per server does the steps by
 * reading only what that server returned (ours: the tree text and its [ref]s; Playwright's: the
 * snapshot YAML and its [ref=eN]s): it looks for the target in the last text it read, reads the
 * page again when the target is not there, and on a refused action reads again and retries once.
 * Success is what the fixture server recorded (each page POSTs /task-bench/submit), never what
 * a page shows.
 *
 * Per task: MCP calls; tokens sent to the model (o200k, gpt-tokenizer): the tool list once per
 * call, as a model pays it, plus every result; wall time from the first call to the recorded
 * submit; peak RSS of the browser's process tree and of the server's own processes (sampled
 * every 100 ms from /proc through `ps`).
 *
 * Flags: --only NAME[,NAME] (tasks), --parallel 1,2,4 (the Ns; default 1,2,4), --skip-mcp,
 * --skip-run, --skip-parallel.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFirefoxProcess } from "@webbrain/bidi";
import {
  type FixtureServer,
  type RecordedRequest,
  readJsonBody,
  type ScriptStep,
  startFixtureServer,
  startScriptedLlm,
  toolResultTexts,
} from "@webbrain/testkit";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { RUNNER_PREFS } from "../src/browser/browser-connection.js";

const require = createRequire(import.meta.url);
const BIN = fileURLToPath(new URL("../bin/webbrain.js", import.meta.url));
/** One MCP call may not take longer than this: a stuck server fails the task, not the bench. */
const CALL_TIMEOUT_MS = 60_000;
/** Playwright MCP must list its tools within this, or the bench stops saying it could not start. */
const START_TIMEOUT_MS = 90_000;

type Act = "click" | "type" | "select";
interface Step {
  act: Act;
  role: string;
  name: string;
  value?: string;
}
interface Task {
  id: string;
  path: string;
  steps: Step[];
  /** True when what the server recorded for this task is what the steps asked for. */
  ok: (data: Record<string, unknown>) => boolean;
}

const click = (role: string, name: string): Step => ({ act: "click", role, name });
const type = (role: string, name: string, value: string): Step => ({ act: "type", role, name, value });

const TASKS: Task[] = [
  {
    id: "signin",
    path: "signin.html",
    steps: [
      type("textbox", "Email", "ada@example.org"),
      type("textbox", "Password", "correct horse"),
      click("checkbox", "Remember me"),
      click("button", "Sign in"),
    ],
    ok: (d) => d.email === "ada@example.org" && d.password === "correct horse" && d.remember === true,
  },
  {
    id: "settings",
    path: "settings.html",
    steps: [
      type("textbox", "Display name", "Ada"),
      type("textbox", "Cost centre", "CC-42"),
      { act: "select", role: "combobox", name: "Time zone", value: "Asia/Tokyo" },
      click("checkbox", "Weekly digest"),
      click("checkbox", "Reminders"),
      click("button", "Save settings"),
    ],
    ok: (d) => d.f0 === "Ada" && d.f19 === "CC-42" && d.tz === "Asia/Tokyo" && d.c1 === "on" && d.c7 === "on",
  },
  {
    id: "search",
    path: "search.html",
    steps: [
      type("searchbox", "Search articles", "backup"),
      click("button", "Search"),
      click("link", "Backup encryption keys"),
      click("button", "Mark as helpful"),
    ],
    ok: (d) => d.article === "Backup encryption keys",
  },
  {
    id: "table",
    path: "table.html",
    steps: [
      type("textbox", "Filter", "hopper"),
      click("button", "Edit Grace Hopper"),
      type("textbox", "Email", "grace@navy.example"),
      click("button", "Save person"),
    ],
    ok: (d) => d.person === "Grace Hopper" && d.email === "grace@navy.example",
  },
  {
    id: "wizard",
    path: "wizard.html",
    steps: [
      type("textbox", "Project name", "Apollo"),
      click("button", "Next"),
      click("radio", "Team plan"),
      click("button", "Continue"),
      click("checkbox", "I accept the terms"),
      click("button", "Create project"),
    ],
    ok: (d) => d.name === "Apollo" && d.plan === "team" && d.terms === true,
  },
  {
    id: "menu-dialog",
    path: "menu-dialog.html",
    steps: [
      click("button", "Project actions"),
      click("menuitem", "Delete project"),
      type("textbox", "Project name", "Apollo"),
      click("button", "Delete forever"),
    ],
    ok: (d) => d.deleted === "Apollo" && d.typed === "Apollo",
  },
  {
    id: "docs",
    path: "docs.html",
    steps: [click("button", "Yes, it helped")],
    ok: (d) => d.helped === true,
  },
  {
    id: "frame",
    path: "frame.html",
    steps: [type("textbox", "Voucher code", "SPRING-24"), click("button", "Redeem voucher")],
    ok: (d) => d.voucher === "SPRING-24",
  },
  {
    id: "cart",
    path: "cart.html",
    steps: [
      click("button", "Add Green teapot to cart"),
      click("button", "Add Coffee beans to cart"),
      click("button", "Checkout"),
    ],
    ok: (d) => JSON.stringify(d.items) === JSON.stringify(["Green teapot", "Coffee beans"]),
  },
  {
    id: "todo",
    path: "todo.html",
    steps: [
      type("textbox", "New todo", "Buy milk"),
      click("button", "Add todo"),
      type("textbox", "New todo", "Call Bob"),
      click("button", "Add todo"),
      click("checkbox", "Done: Call Bob"),
      click("button", "Sync todos"),
    ],
    ok: (d) =>
      JSON.stringify(d.items) ===
      JSON.stringify([
        { text: "Buy milk", done: false },
        { text: "Call Bob", done: true },
      ]),
  },
  {
    id: "tabs",
    path: "tabs.html",
    steps: [
      click("tab", "Billing"),
      type("textbox", "Name on card", "Ada Lovelace"),
      type("textbox", "VAT number", "GB123"),
      click("button", "Save billing"),
    ],
    ok: (d) => d.card === "Ada Lovelace" && d.vat === "GB123",
  },
  {
    id: "contact",
    path: "contact.html",
    steps: [
      { act: "select", role: "combobox", name: "Topic", value: "Bug report" },
      type("textbox", "Subject", "Crash on save"),
      type("textbox", "Message", "It crashes when I press Save."),
      click("checkbox", "Send me a copy"),
      click("button", "Send message"),
    ],
    ok: (d) =>
      d.topic === "Bug report" &&
      d.subject === "Crash on save" &&
      d.message === "It crashes when I press Save." &&
      d.copy === true,
  },
];

const tokens = (text: string): number => encode(text).length;

interface McpText {
  content?: Array<{ type: string; text?: string }>;
  isError?: boolean;
}
const textOf = (result: unknown): string =>
  ((result as McpText).content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("\n");

// ---------------------------------------------------------------------------------------------
// The fixture server and what it recorded.

interface Submissions {
  server: FixtureServer;
  /** The data a page submitted for this task id with this session tag, once it arrives. */
  waitFor(tag: string, timeoutMs: number): Promise<Record<string, unknown> | undefined>;
}

async function startTaskFixtures(): Promise<Submissions> {
  const got = new Map<string, Record<string, unknown>>();
  const waiters = new Map<string, () => void>();
  const server = await startFixtureServer({
    routes: {
      "/task-bench/submit": async (req, res) => {
        const body = await readJsonBody<{ task: string; data: Record<string, unknown> }>(req);
        // The session's tag rides in the page URL's query (?s=TAG), which the page's fetch
        // sends as its Referer: parallel sessions on one task stay apart.
        const tag = new URL(req.headers.referer ?? "http://x/").searchParams.get("s") ?? "";
        got.set(tag, body.data);
        waiters.get(tag)?.();
        res.writeHead(204).end();
      },
    },
  });
  return {
    server,
    waitFor: (tag, timeoutMs) =>
      new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(tag);
          resolve(got.get(tag));
        };
        const timer = setTimeout(done, timeoutMs);
        if (got.has(tag)) done();
        else waiters.set(tag, done);
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Memory: peak RSS of a server process's tree, split into the browser's part and the rest.

interface ProcRow {
  pid: number;
  ppid: number;
  rssKb: number;
  comm: string;
}
function processTable(): ProcRow[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,ppid=,rss=,comm="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), rssKb: Number(m[3]), comm: m[4] ?? "" }));
}
function descendants(rows: ProcRow[], roots: number[]): ProcRow[] {
  const seen = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const r of rows)
      if (!seen.has(r.pid) && seen.has(r.ppid)) {
        seen.add(r.pid);
        grew = true;
      }
  }
  return rows.filter((r) => seen.has(r.pid));
}

/** Samples the trees of `serverPids` (and of `browserPids`, a Firefox not below a server). */
class MemorySampler {
  peakBrowserKb = 0;
  peakServerKb = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly serverPids: () => number[],
    private readonly browserPids: () => number[] = () => [],
  ) {}
  sample(): void {
    const rows = processTable();
    const tree = descendants(rows, [...this.serverPids(), ...this.browserPids()]);
    // The browser is every process below the first firefox process of the tree.
    const ffRoots = tree
      .filter(
        (r) => /firefox/i.test(r.comm) && !tree.some((p) => p.pid === r.ppid && /firefox/i.test(p.comm)),
      )
      .map((r) => r.pid);
    const browser = new Set(descendants(tree, ffRoots).map((r) => r.pid));
    let b = 0;
    let s = 0;
    for (const r of tree) {
      if (browser.has(r.pid)) b += r.rssKb;
      else s += r.rssKb;
    }
    this.peakBrowserKb = Math.max(this.peakBrowserKb, b);
    this.peakServerKb = Math.max(this.peakServerKb, s);
  }
  start(): void {
    this.peakBrowserKb = 0;
    this.peakServerKb = 0;
    this.sample();
    this.timer = setInterval(() => this.sample(), 100);
  }
  stop(): { browserMb: number; serverMb: number } {
    clearInterval(this.timer);
    this.sample();
    return { browserMb: this.peakBrowserKb / 1024, serverMb: this.peakServerKb / 1024 };
  }
}

// ---------------------------------------------------------------------------------------------
// The two servers and their scripted policies.

interface Figures {
  calls: number;
  tokens: number;
  /** The results' share of `tokens` (without the tool list each call repeats). */
  resultTokens: number;
  wallMs: number;
  ok: boolean;
  browserMb: number;
  serverMb: number;
  error?: string;
}

interface Session {
  client: Client;
  toolListTokens: number;
}

async function listToolTokens(client: Client): Promise<number> {
  const { tools } = await client.listTools();
  // What a model is sent: each tool's name, description and input schema.
  return tokens(
    JSON.stringify(
      tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })),
    ),
  );
}

/** A policy reads what its server returned and returns the next call, or undefined when done. */
interface Policy {
  /** Ref of role+name in `text`, or undefined when the text does not show it. */
  find(text: string, role: string, name: string): string | undefined;
  navigate(url: string): { name: string; arguments: Record<string, unknown> };
  /** How to read the page again; `name` is the target the model looks for (ours may search). */
  read(attempt: number, name: string, role: string): { name: string; arguments: Record<string, unknown> };
  reads: number;
  act(step: Step, ref: string): { name: string; arguments: Record<string, unknown> };
  /** The page text the policy reads from an action's result, when it carries one. */
  pageIn(result: string): string | undefined;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The ref on the first line of `lineRe` whose name is `name`, else whose name contains it (as a
 * model reading the list would take "Done: Call Bob" for " Done: Call Bob").
 */
function refOf(text: string, lineRe: RegExp, name: string, nameFirst = false): string | undefined {
  const lines = [...text.matchAll(lineRe)].map((m) =>
    nameFirst ? { name: m[1] ?? "", ref: m[2] } : { ref: m[1], name: m[2] ?? "" },
  );
  return (lines.find((l) => l.name === name) ?? lines.find((l) => l.name.trim().includes(name)))?.ref;
}

const OURS: Policy = {
  find(text, role, name) {
    return refOf(text, new RegExp(`\\[(\\d+)\\] ${escapeRe(role)} "([^"\\n]*)"`, "g"), name);
  },
  navigate: (url) => ({ name: "navigate", arguments: { url } }),
  // First the tree as the agent reads it by default; when the target is folded away, a search.
  read: (attempt, name, role) =>
    attempt === 0
      ? { name: "get_accessibility_tree", arguments: {} }
      : { name: "get_accessibility_tree", arguments: { find: name, role } },
  reads: 2,
  act(step, ref) {
    const ref_id = Number(ref);
    if (step.act === "click") return { name: "click_ax", arguments: { ref_id } };
    if (step.act === "select") return { name: "set_field", arguments: { ref_id, value: step.value } };
    return { name: "type_ax", arguments: { ref_id, value: step.value } };
  },
  pageIn: (result) => (result.includes("\ntree:\n") ? result : undefined),
};

const PLAYWRIGHT: Policy = {
  find(text, role, name) {
    // `- button "Save" [ref=e12]`, attributes may sit between the name and the ref.
    return refOf(
      text,
      // YAML quotes a line whose name holds ": " (`- 'checkbox "Done: Call Bob" [ref=e13]'`).
      new RegExp(`- '?${escapeRe(role)} "([^"\\n]*)"[^\\n]*?\\[ref=(\\w+)\\]`, "g"),
      name,
      true,
    );
  },
  navigate: (url) => ({ name: "browser_navigate", arguments: { url } }),
  read: () => ({ name: "browser_snapshot", arguments: {} }),
  reads: 1,
  act(step, ref) {
    const element = `${step.role} "${step.name}"`;
    if (step.act === "click") return { name: "browser_click", arguments: { element, target: ref } };
    if (step.act === "select")
      return { name: "browser_select_option", arguments: { element, target: ref, values: [step.value] } };
    return { name: "browser_type", arguments: { element, target: ref, text: step.value } };
  },
  // 0.0.83 puts the snapshot inline (```yaml) or only links a file; a model reads the inline one.
  pageIn: (result) => (result.includes("[ref=") ? result : undefined),
};

async function runTask(
  session: Session,
  policy: Policy,
  task: Task,
  url: string,
  fixtures: Submissions,
  tag: string,
): Promise<Omit<Figures, "browserMb" | "serverMb">> {
  let calls = 0;
  let sent = 0;
  let results = 0;
  const start = performance.now();
  const call = async (c: { name: string; arguments: Record<string, unknown> }) => {
    calls++;
    const result = await session.client.callTool(c, undefined, { timeout: CALL_TIMEOUT_MS });
    const text = textOf(result);
    results += tokens(text);
    sent += session.toolListTokens + tokens(text);
    return { text, isError: (result as McpText).isError === true || text.includes("### Error") };
  };
  try {
    const nav = await call(policy.navigate(url));
    let page = policy.pageIn(nav.text) ?? "";
    for (const step of TASKS_BY_ID.get(task.id)?.steps ?? []) {
      let done = false;
      for (let retry = 0; retry < 2 && !done; retry++) {
        let ref = retry === 0 ? policy.find(page, step.role, step.name) : undefined;
        for (let attempt = 0; ref === undefined && attempt < policy.reads; attempt++) {
          const read = await call(policy.read(attempt, step.name, step.role));
          ref = policy.find(read.text, step.role, step.name);
          if (attempt === 0 || ref !== undefined) page = read.text;
        }
        if (ref === undefined) {
          const at = page.indexOf(step.name);
          throw new Error(
            `no ${step.role} "${step.name}" in what the server returned` +
              (at >= 0
                ? ` (the name is there: ${JSON.stringify(page.slice(Math.max(0, at - 120), at + 80))})`
                : ""),
          );
        }
        const acted = await call(policy.act(step, ref));
        if (!acted.isError) {
          done = true;
          page = policy.pageIn(acted.text) ?? page;
        }
      }
      if (!done) throw new Error(`the server refused ${step.act} on ${step.role} "${step.name}" twice`);
    }
    const data = await fixtures.waitFor(tag, 10_000);
    return {
      calls,
      tokens: sent,
      resultTokens: results,
      wallMs: performance.now() - start,
      ok: data !== undefined && task.ok(data),
    };
  } catch (error) {
    return {
      calls,
      tokens: sent,
      resultTokens: results,
      wallMs: performance.now() - start,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}
const TASKS_BY_ID = new Map(TASKS.map((t) => [t.id, t]));

function firefoxPath(): string {
  return execFileSync("sh", ["-c", "command -v firefox-esr"], { encoding: "utf8" }).trim();
}

function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface Started {
  session: Session;
  pid: () => number[];
  close(): Promise<void>;
}

async function startOurs(): Promise<Started> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp"],
    env: childEnv(),
    stderr: "ignore",
  });
  const client = new Client({ name: "webbrain-bench", version: "0.1.0" });
  await withTimeout(client.connect(transport), START_TIMEOUT_MS, "webbrain mcp did not start");
  const toolListTokens = await listToolTokens(client);
  return {
    session: { client, toolListTokens },
    pid: () => (transport.pid ? [transport.pid] : []),
    close: () => client.close(),
  };
}

async function startPlaywright(): Promise<Started> {
  let cli: string;
  try {
    cli = join(dirname(require.resolve("@playwright/mcp")), "cli.js");
  } catch {
    throw new Error(
      "@playwright/mcp is not installed: npm install (it is a devDependency of packages/runner)",
    );
  }
  // Its snapshots and logs go to files under the working folder: keep them out of the repository.
  const cwd = mkdtempSync(join(tmpdir(), "pw-mcp-bench-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      cli,
      "--browser",
      "moz-firefox",
      "--headless",
      "--executable-path",
      firefoxPath(),
      "--isolated",
      "--output-dir",
      cwd,
    ],
    cwd,
    env: childEnv(),
    stderr: "ignore",
  });
  const client = new Client({ name: "webbrain-bench", version: "0.1.0" });
  try {
    await withTimeout(
      client.connect(transport),
      START_TIMEOUT_MS,
      "Playwright MCP did not answer initialize",
    );
    const toolListTokens = await withTimeout(
      listToolTokens(client),
      START_TIMEOUT_MS,
      "Playwright MCP did not list its tools",
    );
    // It launches its browser on the first tool call: launch it now, so no task pays for it
    // (webbrain mcp launches Firefox before it answers initialize).
    const warm = await client.callTool(
      { name: "browser_navigate", arguments: { url: "about:blank" } },
      undefined,
      { timeout: START_TIMEOUT_MS },
    );
    if ((warm as McpText).isError || textOf(warm).includes("### Error"))
      throw new Error(`its browser did not start: ${textOf(warm).slice(0, 400)}`);
    return {
      session: { client, toolListTokens },
      pid: () => (transport.pid ? [transport.pid] : []),
      close: async () => {
        await client.close();
        rmSync(cwd, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await client.close().catch(() => {});
    throw new Error(
      `Playwright MCP could not start (${error instanceof Error ? error.message : String(error)}); ` +
        "check that firefox-esr runs headless and that @playwright/mcp 0.0.83 is installed",
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Table 1: webbrain mcp against Playwright MCP, one session each.

let tagCounter = 0;
const newTag = () => `t${++tagCounter}`;

async function sideBySide(tasks: Task[], fixtures: Submissions) {
  const rows: Array<{ task: string; ours: Figures; pw: Figures }> = [];
  const ours = await startOurs();
  let pw: Started | undefined;
  try {
    pw = await startPlaywright();
    // Both browsers start before the first task, so a cold start counts in neither.
    for (const task of tasks) {
      const fig = async (s: Started, policy: Policy): Promise<Figures> => {
        const sampler = new MemorySampler(s.pid);
        sampler.start();
        const tag = newTag();
        const f = await runTask(s.session, policy, task, pageUrl(fixtures, task, tag), fixtures, tag);
        return { ...f, ...sampler.stop() };
      };
      const o = await fig(ours, OURS);
      const p = await fig(pw, PLAYWRIGHT);
      rows.push({ task: task.id, ours: o, pw: p });
      process.stderr.write(
        `${task.id}: ours ${o.ok ? "ok" : `FAIL ${o.error ?? ""}`}, PW ${p.ok ? "ok" : `FAIL ${p.error ?? ""}`}\n`,
      );
    }
  } finally {
    await pw?.close().catch(() => {});
    await ours.close().catch(() => {});
  }
  return { rows, toolTokens: { ours: ours.session.toolListTokens, pw: pw?.session.toolListTokens ?? 0 } };
}

const pageUrl = (fixtures: Submissions, task: Task, tag: string) =>
  fixtures.server.url(`/task-bench/${task.path}?s=${tag}`);

// ---------------------------------------------------------------------------------------------
// Table 2: `webbrain run`, our agent loop, with a scripted model that reads the tree from the
// request (the last tool result) as OURS does from MCP answers.

interface RunFigures {
  steps: number;
  tokensSent: number;
  wallMs: number;
  ok: boolean;
  error?: string;
}

function agentScript(task: Task): ScriptStep[] {
  let step = 0;
  let attempt = 0;
  let page = "";
  let lastActed = false;
  const next = (req: RecordedRequest) => {
    const result = toolResultTexts(req).at(-1) ?? "";
    if (result.includes("tree:")) page = result;
    if (lastActed) {
      lastActed = false;
      if (/"success":\s*false|stale|error/i.test(result) && !/"success":\s*true/.test(result)) {
        // Refused: read again and retry this step.
        page = "";
      } else {
        step++;
      }
    }
    const target = task.steps[step];
    if (!target) {
      return { toolCalls: [{ name: "done", arguments: { summary: `Did ${task.id}.` } }] };
    }
    const ref = OURS.find(page.replace(/\\n/g, "\n").replace(/\\"/g, '"'), target.role, target.name);
    if (ref === undefined) {
      if (attempt >= 2) return { toolCalls: [{ name: "done", arguments: { summary: "Target not found." } }] };
      const read = OURS.read(attempt++, target.name, target.role);
      return { toolCalls: [read] };
    }
    attempt = 0;
    lastActed = true;
    return { toolCalls: [OURS.act(target, ref)] };
  };
  return Array.from({ length: 60 }, () => next);
}

async function agentRun(task: Task, fixtures: Submissions, connect: string | undefined): Promise<RunFigures> {
  const llm = await startScriptedLlm({ dialect: "openai-chat", script: agentScript(task) });
  const tag = newTag();
  const start = performance.now();
  try {
    const args = [
      BIN,
      "run",
      `Do the ${task.id} task on this page.`,
      "--url",
      pageUrl(fixtures, task, tag),
      "--provider",
      "vllm",
      "--base-url",
      llm.baseUrl,
      "--model",
      "scripted",
      "--tier",
      "full",
      "--max-steps",
      "40",
      "--json",
      ...(connect ? ["--connect", connect] : []),
    ];
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, args, { env: childEnv() });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => {
        stdout += c;
      });
      child.stderr.on("data", (c: Buffer) => {
        stderr += c;
      });
      const kill = setTimeout(() => child.kill("SIGTERM"), 180_000);
      child.on("close", (code: number | null) => {
        clearTimeout(kill);
        resolve({ code, stdout, stderr });
      });
    });
    const data = await fixtures.waitFor(tag, 2_000);
    // What the agent sent the model: every request body as it went over the wire.
    const sent = llm.requests.reduce((n, r) => n + tokens(JSON.stringify(r.body)), 0);
    return {
      steps: llm.requests.length,
      tokensSent: sent,
      wallMs: performance.now() - start,
      ok: data !== undefined && task.ok(data),
      ...(out.code === 0 && data !== undefined
        ? {}
        : { error: `exit ${out.code}: ${out.stdout.slice(-400)} ${out.stderr.slice(-300)}` }),
    };
  } finally {
    await llm.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Table 3: N sessions at once. Ours: one `webbrain mcp --port` (one Firefox, a user context per
// session); Playwright's: N `--isolated` instances (a browser each).

async function startOursHttp(
  n: number,
): Promise<{ sessions: Started[]; pid: () => number[]; close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [BIN, "mcp", "--port", "0", "--max-sessions", String(Math.max(8, n))],
    {
      env: childEnv(),
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  const ready = await withTimeout(
    new Promise<{ url: string; token: string }>((resolve) => {
      child.stderr.on("data", (c: Buffer) => {
        stderr += c;
        const url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
        const token = /token for this start: (\S+)/.exec(stderr)?.[1];
        if (url && token) resolve({ url, token });
      });
    }),
    START_TIMEOUT_MS,
    "webbrain mcp --port did not print its URL and token",
  ).catch((error: unknown) => {
    child.kill();
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}; stderr: ${stderr.slice(-500)}`,
    );
  });
  const sessions: Started[] = [];
  for (let i = 0; i < n; i++) {
    const client = new Client({ name: `webbrain-bench-${i}`, version: "0.1.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(ready.url), {
        requestInit: { headers: { authorization: `Bearer ${ready.token}` } },
      }),
    );
    sessions.push({
      session: { client, toolListTokens: await listToolTokens(client) },
      pid: () => [],
      close: () => client.close(),
    });
  }
  return {
    sessions,
    pid: () => (child.pid ? [child.pid] : []),
    close: async () => {
      for (const s of sessions) await s.close().catch(() => {});
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

interface ParallelRow {
  n: number;
  side: "ours" | "PW";
  perTaskMs: number;
  ok: number;
  total: number;
  browserMb: number;
  serverMb: number;
}

async function parallel(ns: number[], tasks: Task[], fixtures: Submissions): Promise<ParallelRow[]> {
  const rows: ParallelRow[] = [];
  for (const n of ns) {
    for (const side of ["ours", "PW"] as const) {
      let sessions: Started[] = [];
      let pids: () => number[];
      let close: () => Promise<void>;
      if (side === "ours") {
        const h = await startOursHttp(n);
        sessions = h.sessions;
        pids = h.pid;
        close = h.close;
      } else {
        for (let i = 0; i < n; i++) sessions.push(await startPlaywright());
        pids = () => sessions.flatMap((s) => s.pid());
        close = async () => {
          for (const s of sessions) await s.close().catch(() => {});
        };
      }
      const sampler = new MemorySampler(pids);
      sampler.start();
      const start = performance.now();
      let ok = 0;
      try {
        // Every session does every task, one after another, all sessions at once.
        await Promise.all(
          sessions.map(async (s) => {
            for (const task of tasks) {
              const tag = newTag();
              const f = await runTask(
                s.session,
                side === "ours" ? OURS : PLAYWRIGHT,
                task,
                pageUrl(fixtures, task, tag),
                fixtures,
                tag,
              );
              if (f.ok) ok++;
              else
                process.stderr.write(
                  `parallel N=${n} ${side} ${task.id} failed: ${f.error ?? "wrong data"}\n`,
                );
            }
          }),
        );
      } finally {
        const mem = sampler.stop();
        const wall = performance.now() - start;
        rows.push({
          n,
          side,
          perTaskMs: wall / (n * tasks.length),
          ok,
          total: n * tasks.length,
          ...mem,
        });
        await close();
      }
      process.stderr.write(`parallel N=${n} ${side}: ${ok}/${n * tasks.length} ok\n`);
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Printing.

function table(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}
const ratio = (a: number, b: number) => (b === 0 ? "-" : `${(a / b).toFixed(2)}x`);
const sec = (ms: number) => (ms / 1000).toFixed(2);
const mb = (m: number) => m.toFixed(0);

function printSideBySide(
  rows: Array<{ task: string; ours: Figures; pw: Figures }>,
  tools: { ours: number; pw: number },
) {
  const sum = (pick: (f: Figures) => number, side: "ours" | "pw") =>
    rows.reduce((n, r) => n + pick(r[side]), 0);
  const max = (pick: (f: Figures) => number, side: "ours" | "pw") =>
    Math.max(...rows.map((r) => pick(r[side])));
  const body = rows.map((r) => [
    r.task,
    `${r.ours.ok ? "ok" : "FAIL"} / ${r.pw.ok ? "ok" : "FAIL"}`,
    `${r.ours.calls} / ${r.pw.calls}`,
    `${r.ours.tokens} / ${r.pw.tokens}`,
    ratio(r.ours.tokens, r.pw.tokens),
    `${r.ours.resultTokens} / ${r.pw.resultTokens}`,
    ratio(r.ours.resultTokens, r.pw.resultTokens),
    `${sec(r.ours.wallMs)} / ${sec(r.pw.wallMs)}`,
    ratio(r.ours.wallMs, r.pw.wallMs),
    `${mb(r.ours.browserMb)} / ${mb(r.pw.browserMb)}`,
    `${mb(r.ours.serverMb)} / ${mb(r.pw.serverMb)}`,
  ]);
  const okOurs = rows.filter((r) => r.ours.ok).length;
  const okPw = rows.filter((r) => r.pw.ok).length;
  body.push([
    "total",
    `${okOurs}/${rows.length} / ${okPw}/${rows.length}`,
    `${sum((f) => f.calls, "ours")} / ${sum((f) => f.calls, "pw")}`,
    `${sum((f) => f.tokens, "ours")} / ${sum((f) => f.tokens, "pw")}`,
    ratio(
      sum((f) => f.tokens, "ours"),
      sum((f) => f.tokens, "pw"),
    ),
    `${sum((f) => f.resultTokens, "ours")} / ${sum((f) => f.resultTokens, "pw")}`,
    ratio(
      sum((f) => f.resultTokens, "ours"),
      sum((f) => f.resultTokens, "pw"),
    ),
    `${sec(sum((f) => f.wallMs, "ours"))} / ${sec(sum((f) => f.wallMs, "pw"))}`,
    ratio(
      sum((f) => f.wallMs, "ours"),
      sum((f) => f.wallMs, "pw"),
    ),
    `${mb(max((f) => f.browserMb, "ours"))} / ${mb(max((f) => f.browserMb, "pw"))} (peak)`,
    `${mb(max((f) => f.serverMb, "ours"))} / ${mb(max((f) => f.serverMb, "pw"))} (peak)`,
  ]);
  console.log("\n### webbrain mcp vs Playwright MCP 0.0.83 (ours / PW)\n");
  console.log(
    table(
      [
        "task",
        "success",
        "MCP calls",
        "tokens to model",
        "tokens ours/PW",
        "of which results",
        "results ours/PW",
        "wall s",
        "wall ours/PW",
        "browser RSS MB",
        "server RSS MB",
      ],
      body,
    ),
  );
  console.log(`\ntool list per call: ours ${tools.ours} tokens, PW ${tools.pw} tokens (o200k)`);
  for (const r of rows) {
    if (r.ours.error) console.log(`ours ${r.task}: ${r.ours.error}`);
    if (r.pw.error) console.log(`PW ${r.task}: ${r.pw.error}`);
  }
}

function printRuns(rows: Array<{ task: string; f: RunFigures }>) {
  const body = rows.map((r) => [
    r.task,
    r.f.ok ? "ok" : "FAIL",
    String(r.f.steps),
    String(r.f.tokensSent),
    sec(r.f.wallMs),
  ]);
  body.push([
    "total",
    `${rows.filter((r) => r.f.ok).length}/${rows.length}`,
    String(rows.reduce((n, r) => n + r.f.steps, 0)),
    String(rows.reduce((n, r) => n + r.f.tokensSent, 0)),
    sec(rows.reduce((n, r) => n + r.f.wallMs, 0)),
  ]);
  console.log("\n### webbrain run (scripted model reading the tree from each request)\n");
  console.log(table(["task", "success", "model requests", "tokens sent (whole requests)", "wall s"], body));
  for (const r of rows) if (r.f.error && !r.f.ok) console.log(`run ${r.task}: ${r.f.error}`);
}

function printParallel(rows: ParallelRow[]) {
  const body = rows.map((r) => [
    String(r.n),
    r.side,
    `${r.ok}/${r.total}`,
    sec(r.perTaskMs),
    mb(r.browserMb),
    mb(r.serverMb),
    mb(r.browserMb + r.serverMb),
  ]);
  console.log("\n### N sessions at once (every session does every task)\n");
  console.log(
    table(
      [
        "N",
        "side",
        "success",
        "batch wall s / tasks",
        "browser RSS MB (peak)",
        "server RSS MB (peak)",
        "total MB",
      ],
      body,
    ),
  );
}

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const only = flag("--only")?.split(",");
  const tasks = only ? TASKS.filter((t) => only.includes(t.id)) : TASKS;
  const ns = (flag("--parallel") ?? "1,2,4").split(",").map(Number);
  const fixtures = await startTaskFixtures();
  const load = () => execFileSync("uptime", { encoding: "utf8" }).trim();
  try {
    console.log(`task-cost bench ${new Date().toISOString()}  load at start: ${load()}`);
    if (!process.argv.includes("--skip-mcp")) {
      const side = await sideBySide(tasks, fixtures);
      printSideBySide(side.rows, side.toolTokens);
    }
    if (!process.argv.includes("--skip-run")) {
      const runs: Array<{ task: string; f: RunFigures }> = [];
      // One Firefox for every run (`--connect`), so a run's figures hold no browser launch, as
      // the MCP servers' hold none.
      const firefox = await startFirefoxProcess({ headless: true, prefs: { ...RUNNER_PREFS } });
      try {
        for (const task of tasks) {
          const f = await agentRun(task, fixtures, firefox.wsEndpoint);
          runs.push({ task: task.id, f });
          process.stderr.write(`run ${task.id}: ${f.ok ? "ok" : `FAIL ${f.error ?? ""}`}\n`);
        }
      } finally {
        firefox.killGroup();
        await firefox.dispose(5_000);
      }
      printRuns(runs);
    }
    if (!process.argv.includes("--skip-parallel")) printParallel(await parallel(ns, tasks, fixtures));
    console.log(`\nload at end: ${load()}`);
  } finally {
    await fixtures.server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
