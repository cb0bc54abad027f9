/**
 * Dev mode's execute_js in the add-on: the code runs in the PAGE's own realm (page globals,
 * frameworks' objects), not in the content script's sandbox, and its value comes back as JSON.
 *
 * How: Firefox gives content scripts the page's window as `window.wrappedJSObject`; its `eval`
 * compiles in the page realm. The runner function below is compiled there once per call (from
 * its source text), evaluates the code as global code (as BiDi's script.evaluate does), awaits a
 * promise, and serialises the value in the page realm, so page objects never cross as wrappers.
 *
 * Invariants:
 * - A page whose Content-Security-Policy forbids eval (no 'unsafe-eval' in script-src) forbids it
 *   for add-ons too (checked in Firefox 153: wrappedJSObject.eval, Function and injected <script>
 *   elements are all blocked); the answer then says so (code `csp_blocked`) and nothing ran.
 * - The JSON text is capped at `maxChars`; a longer value comes back as its truncated text.
 */
import type { ExecuteJsMessage } from "./content-messages.js";

/** Objects deeper than this are summarised, not walked. */
const MAX_DEPTH = 4;

/**
 * Compiled in the page realm from its source text: it must not refer to anything outside itself.
 * Answers JSON text `{ok, value}` or `{ok: false, error}`.
 */
function pageRealmRun(code: string, maxDepth: number): Promise<string> {
  const MAX_ENTRIES = 100;
  const seen = new WeakSet<object>();
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
    if (typeof Node !== "undefined" && object instanceof Node) return describeNode(object);
    if (object === window) return "[window]";
    if (object instanceof Error) return `${object.name}: ${object.message}`;
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString();
    if (seen.has(object)) return "[circular]";
    if (depth >= maxDepth) return Array.isArray(object) ? `[array of ${object.length}]` : "[object]";
    seen.add(object);
    try {
      if (
        Array.isArray(object) ||
        object instanceof Set ||
        (typeof NodeList !== "undefined" && object instanceof NodeList)
      ) {
        const items = Array.from(object as Iterable<unknown>);
        const out = items.slice(0, MAX_ENTRIES).map((item) => toJson(item, depth + 1));
        if (items.length > MAX_ENTRIES) out.push(`… ${items.length - MAX_ENTRIES} more`);
        return out;
      }
      const entries: [string, unknown][] =
        object instanceof Map
          ? Array.from(object.entries()).map(([k, v]) => [String(k), v])
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
  const run = (): unknown => globalThis.eval(code);
  return Promise.resolve()
    .then(run)
    .then(
      (value) => JSON.stringify({ ok: true, value: toJson(value, 0) }),
      (error: unknown) =>
        JSON.stringify({
          ok: false,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
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
  "This page's Content-Security-Policy forbids running code in it (no 'unsafe-eval'), and Firefox holds add-ons to that too, so execute_js cannot run here. Nothing ran. Read the page with read_page_source, inspect_element_styles or extract_data instead.";

export async function executeJs(message: ExecuteJsMessage): Promise<Record<string, unknown>> {
  if (!message.code.trim())
    return { success: false, error: "execute_js needs code: a JavaScript expression or statements." };
  let runner: PageRealmRunner;
  try {
    runner = pageWindow().eval(`(${pageRealmRun.toString()})`) as PageRealmRunner;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (/blocked by CSP/i.test(text)) return { success: false, code: "csp_blocked", error: CSP_BLOCKED };
    return { success: false, error: `execute_js could not reach the page's realm: ${text}` };
  }
  const answer = JSON.parse(await runner(message.code, MAX_DEPTH)) as {
    ok: boolean;
    value?: unknown;
    error?: string;
  };
  if (!answer.ok) {
    const text = answer.error ?? "unknown error";
    if (/blocked by CSP/i.test(text)) return { success: false, code: "csp_blocked", error: CSP_BLOCKED };
    return { success: false, error: `The code threw: ${text}` };
  }
  const json = JSON.stringify(answer.value);
  if (json.length <= message.maxChars) return { success: true, result: answer.value ?? null };
  return {
    success: true,
    result: `${json.slice(0, message.maxChars)} … truncated`,
    truncated: true,
    result_chars: json.length,
  };
}
