/**
 * Dev mode's execute_js in the add-on: the code runs in the PAGE's own realm (page globals,
 * frameworks' objects), and its value comes back as JSON.
 *
 * How: Firefox gives content scripts the page's window as `window.wrappedJSObject`.
 * - Where the page's CSP allows eval, the runner below is compiled in the page realm by its
 *   `eval` (from its source text), evaluates the code as global code there (as BiDi's
 *   script.evaluate does) and serialises the value in the page realm.
 * - Where the page's CSP forbids eval (no 'unsafe-eval': most large sites), Firefox holds the
 *   page realm's eval, Function and inline <script> to it, also for add-ons (checked on 153).
 *   A `<script src="blob:…">` that this content script adds is not held to it: loads an add-on
 *   triggers override the page's CSP. The runner and the code (made a function body that returns
 *   its last expression, since eval is not there) go into that script; it answers by an event.
 *   Probed on Firefox 153 and not used: evaluating in the content script's own sandbox with
 *   `with (window.wrappedJSObject)` reads page objects, but the page may not call back into the
 *   sandbox (`appState.cart.reduce((a, b) => a + b)` fails "Permission denied to access object").
 *
 * Invariants:
 * - The runner refers to nothing outside itself and tells values apart without `instanceof`.
 * - Nothing runs twice: the eval path fails at compiling the runner, before any code ran.
 * - The JSON text is capped at `maxChars`; a longer value comes back as its truncated text.
 */
import type { ExecuteJsMessage } from "./content-messages.js";

/** Objects deeper than this are summarised, not walked. */
const MAX_DEPTH = 4;

/**
 * Compiled in the page realm from its source text: it must not refer to anything outside itself.
 * Answers JSON text `{ok, value}` or `{ok: false, error}`.
 */
function pageRealmRun(
  code: string,
  maxDepth: number,
  evaluate?: (source: string) => unknown,
): Promise<string> {
  const MAX_ENTRIES = 100;
  const seen = new WeakSet<object>();
  const tagOf = (object: object): string => Object.prototype.toString.call(object).slice(8, -1);
  const isNode = (object: object): object is Node =>
    typeof (object as Node).nodeType === "number" && typeof (object as Node).nodeName === "string";
  const isWindow = (object: object): boolean => (object as Window).window === object;
  const describeNode = (node: Node): string => {
    if (node.nodeType !== 1) return `[${node.nodeName}]`;
    const el = node as Element;
    const id = el.id ? `#${el.id}` : "";
    const classes =
      typeof el.className === "string" && el.className
        ? `.${el.className.trim().split(/\s+/).join(".")}`
        : "";
    return `<${el.localName}${id}${classes}>`;
  };
  const toJson = (value: unknown, depth: number): unknown => {
    if (value === null) return null;
    switch (typeof value) {
      case "string":
      case "boolean":
        return value;
      case "number":
        return Number.isFinite(value) ? value : String(value);
      case "undefined":
        return "[undefined]";
      case "bigint":
        return `${value}n`;
      case "symbol":
        return String(value);
      case "function":
        return `[function ${(value as { name?: string }).name || "anonymous"}]`;
    }
    const object = value as object;
    const tag = tagOf(object);
    if (isNode(object)) return describeNode(object);
    if (isWindow(object)) return "[window]";
    if (tag === "Error") return `${(object as Error).name}: ${(object as Error).message}`;
    if (tag === "Date") {
      const date = object as Date;
      return Number.isNaN(date.getTime()) ? "Invalid Date" : date.toISOString();
    }
    if (seen.has(object)) return "[circular]";
    if (depth >= maxDepth) return Array.isArray(object) ? `[array of ${object.length}]` : "[object]";
    seen.add(object);
    try {
      if (Array.isArray(object) || tag === "Set" || tag === "NodeList" || tag === "HTMLCollection") {
        const items = Array.from(object as Iterable<unknown>);
        const out = items.slice(0, MAX_ENTRIES).map((item) => toJson(item, depth + 1));
        if (items.length > MAX_ENTRIES) out.push(`… ${items.length - MAX_ENTRIES} more`);
        return out;
      }
      const entries: [string, unknown][] =
        tag === "Map"
          ? Array.from((object as Map<unknown, unknown>).entries()).map(([k, v]) => [String(k), v])
          : Object.entries(object);
      const out: Record<string, unknown> = {};
      for (const [key, item] of entries.slice(0, MAX_ENTRIES)) out[key] = toJson(item, depth + 1);
      if (entries.length > MAX_ENTRIES) out["…"] = `${entries.length - MAX_ENTRIES} more keys`;
      return out;
    } finally {
      seen.delete(object);
    }
  };
  // Indirect eval: the code runs as global code of the page, as BiDi's script.evaluate runs it.
  // biome-ignore lint/security/noGlobalEval: execute_js exists to run the model's code in the page (Dev mode, permission-gated)
  const run = (): unknown => (evaluate ? evaluate(code) : globalThis.eval(code));
  return Promise.resolve()
    .then(run)
    .then(
      (value) => JSON.stringify({ ok: true, value: toJson(value, 0) }),
      (error: unknown) =>
        JSON.stringify({
          ok: false,
          error:
            typeof error === "object" && error !== null && "message" in error
              ? `${(error as Error).name}: ${(error as Error).message}`
              : String(error),
        }),
    );
}

type PageRealmRunner = (code: string, maxDepth: number) => PromiseLike<string>;

interface PageWindow {
  eval(source: string): unknown;
}

function pageWindow(): PageWindow {
  return (window as unknown as { wrappedJSObject: PageWindow }).wrappedJSObject;
}

const CSP_BLOCKED =
  "This page's Content-Security-Policy forbids running code in it, and Firefox refused the add-on's script too, so execute_js cannot run here. Nothing ran. Read the page with read_page_source, inspect_element_styles or extract_data instead.";

/** How long a page-realm script may take to load and answer, ms (a promise it awaits included). */
const SCRIPT_ANSWER_TIMEOUT_MS = 30_000;

/** How many statement boundaries, from the end, are tried as the place of the last expression. */
const MAX_BODY_CANDIDATES = 20;

/**
 * Statements' completion value without eval: the code as a function body that returns its last
 * expression. Candidates, best first: the whole code as an expression, then the code cut at a
 * statement boundary (from the end) with the rest returned, then the code as it is. Which one
 * parses is known only once Firefox compiles it (a script with a syntax error runs nothing).
 */
export function functionBodies(code: string): string[] {
  const bodies = [`return (${code}\n);`];
  const trimmed = code.replace(/[\s;]+$/, "");
  for (let cut = trimmed.length - 1; cut > 0 && bodies.length <= MAX_BODY_CANDIDATES; cut--) {
    const char = trimmed[cut];
    if (char !== ";" && char !== "\n" && char !== "}") continue;
    const tail = trimmed.slice(cut + 1).trim();
    if (tail) bodies.push(`${trimmed.slice(0, cut + 1)}\nreturn (${tail}\n);`);
  }
  bodies.push(code);
  return bodies;
}

type ScriptOutcome = { kind: "answer"; json: string } | { kind: "syntax" } | { kind: "refused" };

/**
 * Runs the code in the page's realm through a `<script src="blob:…">` this content script adds.
 * Firefox lets loads that a content script triggers override the page's CSP (an add-on's
 * principal "overrides CSP"), so the script runs where eval may not. Its answer comes back as a
 * one-time event whose name only this call knows. A candidate body with a syntax error runs
 * nothing (the window's error event names our script), so the next one is tried. Answers
 * undefined when Firefox refused the script.
 */
async function runByPageScript(code: string, maxDepth: number): Promise<string | undefined> {
  for (const body of functionBodies(code)) {
    const outcome = await runScript(body, maxDepth);
    if (outcome.kind === "answer") return outcome.json;
    if (outcome.kind === "refused") return undefined;
  }
  return JSON.stringify({ ok: false, error: "SyntaxError: the code does not parse as JavaScript" });
}

function runScript(body: string, maxDepth: number): Promise<ScriptOutcome> {
  const eventName = `webbrain-execute-js-${crypto.randomUUID()}`;
  const source = `(${pageRealmRun.toString()})("", ${maxDepth}, async () => {${body}\n}).then((json) => document.dispatchEvent(new CustomEvent(${JSON.stringify(eventName)}, { detail: json })));`;
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const script = document.createElement("script");
  return new Promise<ScriptOutcome>((resolve) => {
    const finish = (outcome: ScriptOutcome) => {
      clearTimeout(timer);
      document.removeEventListener(eventName, onAnswer);
      window.removeEventListener("error", onError, true);
      script.remove();
      URL.revokeObjectURL(url);
      resolve(outcome);
    };
    const onAnswer = (event: Event) => {
      const detail = (event as CustomEvent<unknown>).detail;
      finish(
        typeof detail === "string"
          ? { kind: "answer", json: detail }
          : {
              kind: "answer",
              json: JSON.stringify({ ok: false, error: "the page script answered no text" }),
            },
      );
    };
    const onError = (event: ErrorEvent) => {
      if (event.filename === url && /SyntaxError/.test(String(event.message))) finish({ kind: "syntax" });
    };
    const timer = setTimeout(
      () =>
        finish({
          kind: "answer",
          json: JSON.stringify({ ok: false, error: `no answer within ${SCRIPT_ANSWER_TIMEOUT_MS / 1000} s` }),
        }),
      SCRIPT_ANSWER_TIMEOUT_MS,
    );
    document.addEventListener(eventName, onAnswer);
    window.addEventListener("error", onError, true);
    script.addEventListener("error", () => finish({ kind: "refused" }), { once: true });
    script.src = url;
    (document.head ?? document.documentElement).append(script);
  });
}

export async function executeJs(message: ExecuteJsMessage): Promise<Record<string, unknown>> {
  if (!message.code.trim())
    return { success: false, error: "execute_js needs code: a JavaScript expression or statements." };
  let json: string | undefined;
  let via: "eval" | "script" = "eval";
  try {
    const runner = pageWindow().eval(`(${pageRealmRun.toString()})`) as PageRealmRunner;
    json = await runner(message.code, MAX_DEPTH);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (!/blocked by CSP|call to eval\(\) blocked/i.test(text))
      return { success: false, error: `execute_js could not reach the page's realm: ${text}` };
    // The page's CSP forbids eval in its realm; a script the add-on loads is not bound by it.
    via = "script";
    json = await runByPageScript(message.code, MAX_DEPTH);
    if (json === undefined) return { success: false, code: "csp_blocked", error: CSP_BLOCKED };
  }
  const answer = JSON.parse(json) as { ok: boolean; value?: unknown; error?: string };
  const where = via === "script" ? { via: "page script (the page's CSP forbids eval)" } : {};
  if (!answer.ok)
    return { success: false, error: `The code threw: ${answer.error ?? "unknown error"}`, ...where };
  const text = JSON.stringify(answer.value);
  if (text.length <= message.maxChars) return { success: true, result: answer.value ?? null, ...where };
  return {
    success: true,
    result: `${text.slice(0, message.maxChars)} … truncated`,
    truncated: true,
    result_chars: text.length,
    ...where,
  };
}
