/**
 * Secrets the agent typed: values of fields the page layer reports as secret (`secret: true` on
 * a type result: password inputs, autocomplete current-password / new-password / one-time-code,
 * card numbers and codes). They go to the page and to the model that chose them, and nowhere
 * else: traces, saved workflows, progress lines and the add-on's journal keep SECRET_PLACEHOLDER.
 *
 * Invariants:
 * - A typed argument is redacted by its name (TYPED_VALUE_ARG), whatever its length.
 * - Anywhere else (a task, a model's summary, a Deep verbose request) a known secret is cut out
 *   of every string it occurs in once it is MIN_SCRUBBED_CHARS long; a shorter one only where a
 *   whole string equals it, so a one-letter secret does not blank a trace.
 */
import { TOOL_CATALOG } from "../tools/tool-catalog.js";

/** What a secret reads as in anything we record. */
export const SECRET_PLACEHOLDER = "[secret]";

/** Secrets at least this long are cut out of longer strings too. */
export const MIN_SCRUBBED_CHARS = 4;

/** Tools whose argument carries the text typed, by argument name (each tool's `typedArg`). */
export const TYPED_VALUE_ARG: Readonly<Record<string, string>> = Object.fromEntries(
  TOOL_CATALOG.flatMap((spec) => (spec.typedArg ? [[spec.name, spec.typedArg]] : [])),
);

/** The text a call typed, if the tool types. */
export function typedValue(tool: string, args: Record<string, unknown>): string | undefined {
  const arg = TYPED_VALUE_ARG[tool];
  const value = arg ? args[arg] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** Whether a tool's structured result says it typed into a secret field. */
export function isSecretResult(result: unknown): boolean {
  return (
    typeof result === "object" &&
    result !== null &&
    !Array.isArray(result) &&
    (result as { secret?: unknown }).secret === true
  );
}

/** The call's arguments with its typed text replaced by the placeholder. */
export function redactTypedArg(tool: string, args: Record<string, unknown>): Record<string, unknown> {
  const arg = TYPED_VALUE_ARG[tool];
  if (!arg || typeof args[arg] !== "string") return args;
  return { ...args, [arg]: SECRET_PLACEHOLDER };
}

/** Secrets learned during one run, and the scrub that keeps them out of what is recorded. */
export class SecretScrubber {
  readonly #secrets = new Set<string>();

  /** Learns a secret; answers whether it was new. */
  add(value: string): boolean {
    if (value === "" || this.#secrets.has(value)) return false;
    this.#secrets.add(value);
    return true;
  }

  get size(): number {
    return this.#secrets.size;
  }

  /** `text` with every known secret replaced. */
  scrubText(text: string): string {
    let out = text;
    for (const secret of this.#secrets) {
      if (out === secret) return SECRET_PLACEHOLDER;
      if (secret.length >= MIN_SCRUBBED_CHARS && out.includes(secret))
        out = out.split(secret).join(SECRET_PLACEHOLDER);
    }
    return out;
  }

  /** A copy of `value` with every string scrubbed (keys are kept; `skipKeys` at the top level too). */
  scrub<T>(value: T, skipKeys: ReadonlySet<string> = NO_KEYS): T {
    if (this.#secrets.size === 0) return value;
    return this.#walk(value, skipKeys) as T;
  }

  #walk(value: unknown, skipKeys: ReadonlySet<string>): unknown {
    if (typeof value === "string") return this.scrubText(value);
    if (Array.isArray(value)) return value.map((item) => this.#walk(item, NO_KEYS));
    if (typeof value === "object" && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(value))
        out[key] = skipKeys.has(key) ? field : this.#walk(field, NO_KEYS);
      return out;
    }
    return value;
  }
}

const NO_KEYS: ReadonlySet<string> = new Set();
