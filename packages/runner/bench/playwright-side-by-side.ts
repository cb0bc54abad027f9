/**
 * `npm run bench -w packages/runner` (part of the root `npm run bench`): WebBrain's tree next to
 * Playwright MCP's snapshot (`@playwright/mcp` 0.0.83 driving the same stock firefox-esr over
 * BiDi) on the same pages in the same run, with a real o200k tokenizer (gpt-tokenizer).
 *
 * Per page and tool: tokens of the default snapshot call (ours: get_accessibility_tree as the
 * agent calls it by default, max_chars 7,000; Playwright's: browser_snapshot), the share of the
 * page's visible controls with a handle after one call and after two (ours: the folded parts
 * opened by ref_id, one each; Playwright's snapshot has every ref at once), and tokens per click
 * and per type on the generated page. Once: the tool list's fixed cost (our act-mode tools as
 * the agent sends them, against Playwright MCP's tools/list). Tree build speed: our build in the
 * sandbox against a floor measured in the same Firefox and realm (the walk plus the style and
 * box reads any tree must make: display, visibility, cursor, the rect).
 *
 * Pages: Debian's python3-doc argparse.html and stdtypes.html (apt-get install -y python3-doc;
 * skipped when absent) and the page bench's generated 5,000-element page.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { offeredIn, TOOL_CATALOG } from "@webbrain/agent";
import { callFunction, createTab, evaluate, launchFirefox, navigate } from "@webbrain/bidi";
import { buildPageScript, CALL_HANDLE_FUNCTION } from "@webbrain/page/bundle";
import { type PageResult, pageResultOf } from "@webbrain/protocol";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import {
  BIG_PAGE_PATH,
  CONTROL_SELECTOR,
  PYTHON_DOC_ROOT,
  startBenchFixtures,
} from "../../page/bench/bench-pages.js";
import { serveDirectory } from "../../page/bench/static-server.js";

const require = createRequire(import.meta.url);
const SANDBOX = "webbrain";
/** What the agent asks for when the model gives no max_chars (agent's TREE_MAX_CHARS). */
const DEFAULT_TREE_CHARS = 7_000;
const BUILD_RUNS = 7;

interface PageRow {
  label: string;
  url: string;
  controls: number;
  ours: {
    tokens: number;
    afterOne: number;
    afterTwo: number;
    calls: number;
    buildMs: number;
    floorMs: number;
  };
  pw: { tokens: number; handles: number } | undefined;
}

const tokens = (text: string): number => encode(text).length;
const pct = (n: number, of: number): string => (of === 0 ? "-" : `${((100 * n) / of).toFixed(0)}%`);

function firefoxPath(): string {
  return execFileSync("sh", ["-c", "command -v firefox-esr"], { encoding: "utf8" }).trim();
}

/** Counts visible controls (CONTROL_SELECTOR) in the page's own realm. */
const COUNT_CONTROLS = `(() => Array.from(document.querySelectorAll(${JSON.stringify(CONTROL_SELECTOR)})).filter((el) => el.checkVisibility({ visibilityProperty: true }) && el.getClientRects().length > 0).length)()`;

const SETTLE_EXPRESSION = `new Promise((resolve) => {
  let quiet;
  const observer = new MutationObserver(() => { clearTimeout(quiet); quiet = setTimeout(done, 500); });
  const done = () => { observer.disconnect(); clearTimeout(cap); resolve(true); };
  const cap = setTimeout(done, 5000);
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  quiet = setTimeout(done, 500);
})`;

/** The floor: one walk with the reads any tree needs, in the sandbox, fastest of BUILD_RUNS. */
const FLOOR_FUNCTION = `(runs) => {
  const view = window;
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    const walk = (node) => {
      for (let el = node.firstElementChild; el; el = el.nextElementSibling) {
        const style = view.getComputedStyle(el);
        if (style.getPropertyValue("display") === "none") continue;
        style.getPropertyValue("visibility");
        style.getPropertyValue("cursor");
        el.getBoundingClientRect();
        walk(el);
      }
    };
    walk(document.body);
    best = Math.min(best, performance.now() - t);
  }
  return best;
}`;

async function measureOurs(
  client: Awaited<ReturnType<typeof launchFirefox>>["client"],
  script: string,
  url: string,
): Promise<PageRow["ours"] & { controls: number }> {
  const context = await createTab(client, {});
  await client.send("script.addPreloadScript", {
    functionDeclaration: `() => { ${script} }`,
    sandbox: SANDBOX,
    contexts: [context],
  });
  await navigate(client, context, url);
  // Python's docs add copy buttons from a script after load: measure the page a person sees,
  // once it stops changing (no mutation for 500 ms, at most 5 s), so a fold opened by the second
  // call holds what the first call counted.
  await evaluate(client, context, SETTLE_EXPRESSION);
  const target = { context, sandbox: SANDBOX };
  const call = async (action: string, params: Record<string, unknown>) =>
    pageResultOf(await callFunction(client, target, CALL_HANDLE_FUNCTION, [action, params]));
  const controls = await evaluate<number>(client, context, COUNT_CONTROLS);
  const first = await call("get_accessibility_tree", { max_chars: DEFAULT_TREE_CHARS });
  const tree = String(first.tree);
  // A handle is a ref the model has read: refs printed in the answers so far (the walk numbers
  // every element it passes, printed or folded away, so the registry alone would overcount).
  const printed = new Set<number>();
  const readRefs = (text: string) => {
    for (const line of text.split("\n")) {
      if (line.includes("… folded:")) continue;
      for (const m of line.matchAll(/\[(\d+)\]/g)) printed.add(Number(m[1]));
    }
  };
  const handled = async (): Promise<number> => {
    const result = await call("refs_of", { selector: CONTROL_SELECTOR });
    const refs = (result.refs as Array<number | null> | undefined) ?? [];
    const visible = (result.visible as boolean[] | undefined) ?? [];
    return refs.filter((r, i) => r !== null && visible[i] !== false && printed.has(r)).length;
  };
  readRefs(tree);
  const afterOne = await handled();
  const folds = tree.split("\n").filter((l) => l.includes("… folded:"));
  for (const fold of folds) {
    const ref = Number(/\[(\d+)\]/.exec(fold)?.[1]);
    readRefs(
      String((await call("get_accessibility_tree", { ref_id: ref, max_chars: DEFAULT_TREE_CHARS })).tree),
    );
  }
  const afterTwo = folds.length > 0 ? await handled() : afterOne;
  const builds: number[] = [];
  for (let i = 0; i < BUILD_RUNS; i++) {
    const result = await call("get_accessibility_tree", {});
    builds.push(Number(result.meta?.build_ms));
  }
  const floorMs = await callFunction<number>(client, target, FLOOR_FUNCTION, [BUILD_RUNS]);
  return {
    controls,
    tokens: tokens(tree),
    afterOne: Math.min(afterOne, controls),
    afterTwo: Math.min(afterTwo, controls),
    calls: 1 + folds.length,
    buildMs: Math.min(...builds),
    floorMs,
  };
}

interface McpText {
  content?: Array<{ type: string; text?: string }>;
}

const textOf = (result: unknown): string =>
  ((result as McpText).content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("\n");

async function startPlaywrightMcp(): Promise<Client | undefined> {
  let cli: string;
  try {
    cli = join(dirname(require.resolve("@playwright/mcp")), "cli.js");
  } catch {
    return undefined;
  }
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
      // Its 30 s default per call is too short for stdtypes.html on a loaded machine.
      "--timeout-action",
      "180000",
      "--timeout-navigation",
      "180000",
    ],
    stderr: "ignore",
  });
  const client = new Client({ name: "webbrain-bench", version: "0.1.0" });
  await client.connect(transport);
  return client;
}

/** Refs in a Playwright snapshot that name a control (the roles CONTROL_SELECTOR covers). */
const PW_CONTROL_LINE =
  /- (link|button|textbox|checkbox|radio|combobox|searchbox|spinbutton|slider|tab|menuitem|option|switch)\b[^\n]*\[ref=/g;

async function measurePlaywright(
  pw: Client,
  url: string,
): Promise<{ tokens: number; handles: number; text: string }> {
  await pw.callTool({ name: "browser_navigate", arguments: { url } }, undefined, { timeout: 300_000 });
  const snap = textOf(
    await pw.callTool({ name: "browser_snapshot", arguments: {} }, undefined, { timeout: 300_000 }),
  );
  // A short answer is an error, not a snapshot: say so rather than report its size.
  if (!snap.includes("[ref="))
    console.error(`Playwright MCP gave no snapshot for ${url}: ${snap.slice(0, 300)}`);
  return { tokens: tokens(snap), handles: snap.match(PW_CONTROL_LINE)?.length ?? 0, text: snap };
}

async function main(): Promise<void> {
  const fixtures = await startBenchFixtures();
  const docs = await serveDirectory(PYTHON_DOC_ROOT).catch(() => undefined);
  const pages: Array<{ label: string; url: string }> = [];
  if (docs) {
    for (const p of ["library/argparse.html", "library/stdtypes.html"])
      pages.push({ label: `python3-doc ${p.replace("library/", "")}`, url: `${docs.origin}/${p}` });
  }
  pages.push({ label: "generated 5,000 elements", url: fixtures.url(BIG_PAGE_PATH) });

  const firefox = await launchFirefox({});
  const pw = await startPlaywrightMcp();
  const rows: PageRow[] = [];
  let clickTypes: { ours: { click: number; type: number }; pw?: { click: number; type: number } } | undefined;
  try {
    const script = await buildPageScript();
    for (const page of pages) {
      const ours = await measureOurs(firefox.client, script, page.url);
      const pwFig = pw ? await measurePlaywright(pw, page.url) : undefined;
      rows.push({ label: page.label, url: page.url, controls: ours.controls, ours, pw: pwFig });
    }
    clickTypes = await measureActions(firefox.client, script, fixtures.url(BIG_PAGE_PATH), pw);
    // The act-mode tools of the full tier, as the agent declares them to the model.
    const ourTools = TOOL_CATALOG.filter((t) => offeredIn(t, "act", "full")).map((t) => ({
      name: t.name,
      description: t.description,
      parameters: t.parameters,
    }));
    const pwTools = pw ? (await pw.listTools()).tools : [];
    print(
      rows,
      clickTypes,
      tokens(JSON.stringify(ourTools)),
      pw ? tokens(JSON.stringify(pwTools)) : undefined,
    );
  } finally {
    await pw?.close().catch(() => {});
    await firefox.close();
    await fixtures.close();
    docs?.server.close();
  }
}

async function measureActions(
  client: Awaited<ReturnType<typeof launchFirefox>>["client"],
  script: string,
  url: string,
  pw: Client | undefined,
): Promise<{ ours: { click: number; type: number }; pw?: { click: number; type: number } }> {
  const context = await createTab(client, {});
  await client.send("script.addPreloadScript", {
    functionDeclaration: `() => { ${script} }`,
    sandbox: SANDBOX,
    contexts: [context],
  });
  await navigate(client, context, url);
  // Python's docs add copy buttons from a script after load: measure the page a person sees,
  // once it stops changing (no mutation for 500 ms, at most 5 s), so a fold opened by the second
  // call holds what the first call counted.
  await evaluate(client, context, SETTLE_EXPRESSION);
  const target = { context, sandbox: SANDBOX };
  const call = async (action: string, params: Record<string, unknown>) =>
    pageResultOf(await callFunction(client, target, CALL_HANDLE_FUNCTION, [action, params]));
  const found = String((await call("get_accessibility_tree", { find: "Add 1", role: "button" })).tree);
  const button = Number(/\[(\d+)\] button "Add 1"/.exec(found)?.[1]);
  const field = Number(
    /\[(\d+)\] textbox "Qty 1/.exec(
      String((await call("get_accessibility_tree", { find: "Qty 1", role: "textbox" })).tree),
    )?.[1],
  );
  // What the model reads of an action: the result without its meta (the runner part is gone).
  const modelText = (r: PageResult) => JSON.stringify({ ...r, meta: undefined });
  const click = tokens(modelText(await call("click_ax", { ref_id: button })));
  const type = tokens(modelText(await call("type_ax", { ref_id: field, value: "42" })));
  if (!pw) return { ours: { click, type } };
  await pw.callTool({ name: "browser_navigate", arguments: { url } }, undefined, { timeout: 300_000 });
  const snap = textOf(
    await pw.callTool({ name: "browser_snapshot", arguments: {} }, undefined, { timeout: 300_000 }),
  );
  // A line may carry attributes before its ref (`[cursor=pointer]`).
  const pwButton = /button "Add 1"[^\n]*?\[ref=(\w+)\]/.exec(snap)?.[1];
  // Its textbox may carry no name (the label is text beside it): the first one after "Qty 1".
  const pwField = /textbox[^\n]*?\[ref=(\w+)\]/.exec(snap.slice(snap.indexOf("Qty 1")))?.[1];
  if (!pwButton || !pwField)
    throw new Error(`Playwright's snapshot has no ref for Add 1 / Qty 1: ${snap.slice(0, 400)}`);
  // 0.0.83 names the element `target` (a ref or a selector); an answer that is an error says
  // nothing about what an action costs, so it stops the bench.
  const pwClick = textOf(
    await pw.callTool({ name: "browser_click", arguments: { element: "Add 1", target: pwButton } }),
  );
  const pwType = textOf(
    await pw.callTool({ name: "browser_type", arguments: { element: "Qty 1", target: pwField, text: "42" } }),
  );
  for (const answer of [pwClick, pwType])
    if (answer.includes("### Error")) throw new Error(`Playwright MCP refused the action: ${answer}`);
  return { ours: { click, type }, pw: { click: tokens(pwClick), type: tokens(pwType) } };
}

function print(
  rows: PageRow[],
  actions: { ours: { click: number; type: number }; pw?: { click: number; type: number } } | undefined,
  ourToolTokens: number,
  pwToolTokens: number | undefined,
): void {
  const load = execFileSync("uptime", { encoding: "utf8" }).trim();
  console.log(`\nWebBrain tree vs Playwright MCP 0.0.83 (same firefox-esr, o200k tokens)   load: ${load}\n`);
  const header = [
    "page",
    "controls",
    "tokens ours",
    "tokens PW",
    "ours/PW",
    "handles 1 call ours",
    "handles 2 calls ours",
    "handles PW",
    "build ms",
    "floor ms",
    "build/floor",
  ];
  const table = rows.map((r) => [
    r.label,
    String(r.controls),
    String(r.ours.tokens),
    r.pw ? String(r.pw.tokens) : "-",
    r.pw ? `${(r.ours.tokens / r.pw.tokens).toFixed(3)}x` : "-",
    pct(r.ours.afterOne, r.controls),
    `${pct(r.ours.afterTwo, r.controls)} (${r.ours.calls} calls)`,
    r.pw ? pct(Math.min(r.pw.handles, r.controls), r.controls) : "-",
    r.ours.buildMs.toFixed(1),
    r.ours.floorMs.toFixed(1),
    `${(r.ours.buildMs / r.ours.floorMs).toFixed(2)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const row of table) console.log(line(row));
  console.log("");
  if (actions) {
    console.log(
      `tokens per click (generated page): ours ${actions.ours.click}, PW ${actions.pw?.click ?? "-"}`,
    );
    console.log(
      `tokens per type  (generated page): ours ${actions.ours.type}, PW ${actions.pw?.type ?? "-"}`,
    );
  }
  console.log(
    `tool list fixed cost: ours ${ourToolTokens} tokens (act mode, full tier), PW ${pwToolTokens ?? "-"} tokens`,
  );
  console.log(
    "handles: visible controls (a[href], button, input, select, textarea, ARIA widget roles) with a ref; ours after the default call (max_chars 7,000), then after opening each folded part once by ref_id.",
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
