/**
 * A small, strict command-line parser for `webbrain`.
 *
 * Invariants:
 * - Unknown flags, missing values, bad enum values and extra positionals are UsageErrors whose
 *   message names the flag and points at `--help`; nothing is silently ignored.
 * - `--flag value` and `--flag=value` are the same; `--` ends the flags.
 * - `--help` / `-h` anywhere wins over every other check, so a half-typed command still helps.
 */
import { UsageError } from "../errors.js";

export type OptionSpec =
  | { kind: "boolean"; help: string; short?: string }
  | { kind: "string"; help: string; valueName: string; short?: string; repeatable?: boolean }
  | { kind: "integer"; help: string; valueName: string; min: number; max?: number; short?: string }
  | { kind: "enum"; help: string; values: readonly string[]; short?: string };

export type OptionSpecs = Record<string, OptionSpec>;

type ValueOf<S extends OptionSpec> = S extends { kind: "boolean" }
  ? boolean
  : S extends { repeatable: true }
    ? string[]
    : S extends { kind: "integer" }
      ? number
      : S extends { kind: "enum"; values: readonly (infer V)[] }
        ? V
        : string;

export type ParsedOptions<S extends OptionSpecs> = { [K in keyof S]?: ValueOf<S[K]> };

export interface PositionalSpec {
  name: string;
  required: boolean;
  /** Not required when one of these flags is given (`run <task>`, `run --tasks FILE`, `run --job FILE`). */
  unlessOption?: string | readonly string[];
}

export interface CommandSpec<S extends OptionSpecs = OptionSpecs> {
  name: string;
  summary: string;
  positionals: readonly PositionalSpec[];
  options: S;
  /** Paragraphs shown under the usage line. */
  description: string;
  examples: readonly string[];
}

export type ParseOutcome<S extends OptionSpecs> =
  | { help: true }
  | { help: false; positionals: string[]; options: ParsedOptions<S> };

export function parseCommandArgs<S extends OptionSpecs>(
  spec: CommandSpec<S>,
  argv: readonly string[],
): ParseOutcome<S> {
  if (argv.some((arg) => arg === "--help" || arg === "-h")) return { help: true };
  const hint = `Run \`webbrain ${spec.name} --help\` for the flags it takes.`;
  const byShort = new Map<string, string>();
  for (const [name, option] of Object.entries(spec.options)) {
    if (option.short) byShort.set(option.short, name);
  }
  const options: Record<string, string | number | boolean | string[]> = {};
  const positionals: string[] = [];
  let flagsEnded = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (flagsEnded || !arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    if (arg === "--") {
      flagsEnded = true;
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
    } else {
      const long = byShort.get(arg.slice(1));
      if (!long) throw new UsageError(`Unknown flag ${arg} for \`webbrain ${spec.name}\`. ${hint}`);
      name = long;
    }
    const option = spec.options[name];
    if (!option) throw new UsageError(`Unknown flag --${name} for \`webbrain ${spec.name}\`. ${hint}`);
    if (option.kind === "boolean") {
      if (inline !== undefined) throw new UsageError(`--${name} takes no value (got "${inline}"). ${hint}`);
      options[name] = true;
      continue;
    }
    let raw = inline;
    if (raw === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith("--") && next.length > 2)) {
        throw new UsageError(`--${name} needs a value. ${hint}`);
      }
      raw = next;
      i++;
    }
    const value = convertValue(name, option, raw, hint);
    // A repeatable flag (--param a=1 --param b=2) collects every value in order.
    if (option.kind === "string" && option.repeatable)
      options[name] = [...((options[name] as string[]) ?? []), String(value)];
    else options[name] = value;
  }
  const maxPositionals = spec.positionals.length;
  const required = spec.positionals.filter(
    (p) => p.required && ![p.unlessOption ?? []].flat().some((flag) => flag in options),
  );
  if (positionals.length < required.length) {
    const missing = required[positionals.length]!;
    throw new UsageError(`Missing <${missing.name}> for \`webbrain ${spec.name}\`. ${hint}`);
  }
  if (positionals.length > maxPositionals) {
    const extra = positionals[maxPositionals]!;
    throw new UsageError(
      `Unexpected argument "${extra}" for \`webbrain ${spec.name}\` (quote a task that has spaces). ${hint}`,
    );
  }
  return { help: false, positionals, options: options as ParsedOptions<S> };
}

function convertValue(name: string, option: OptionSpec, raw: string, hint: string): string | number {
  if (option.kind === "integer") {
    if (!/^-?\d+$/.test(raw)) throw new UsageError(`--${name} needs a whole number (got "${raw}"). ${hint}`);
    const value = Number(raw);
    if (value < option.min)
      throw new UsageError(`--${name} must be at least ${option.min} (got ${value}). ${hint}`);
    if (option.max !== undefined && value > option.max)
      throw new UsageError(`--${name} must be at most ${option.max} (got ${value}). ${hint}`);
    return value;
  }
  if (option.kind === "enum" && !option.values.includes(raw)) {
    throw new UsageError(`--${name} must be one of ${option.values.join(", ")} (got "${raw}"). ${hint}`);
  }
  if (raw === "") throw new UsageError(`--${name} needs a non-empty value. ${hint}`);
  return raw;
}

/** The `--help` text of one command, generated from its spec so flags and help never drift. */
export function formatCommandHelp(spec: CommandSpec): string {
  const args = spec.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}]`)).join(" ");
  const lines = [`Usage: webbrain ${spec.name}${args ? ` ${args}` : ""} [flags]`, "", spec.summary, ""];
  if (spec.description) lines.push(spec.description, "");
  lines.push("Flags:");
  const rows = Object.entries(spec.options).map(([name, option]) => {
    const short = option.short ? `-${option.short}, ` : "";
    const value =
      option.kind === "boolean"
        ? ""
        : option.kind === "enum"
          ? ` ${option.values.join("|")}`
          : ` ${option.valueName}`;
    return [`  ${short}--${name}${value}`, option.help] as const;
  });
  rows.push(["  -h, --help", "Show this help."]);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  for (const [left, help] of rows) lines.push(left.padEnd(width) + help);
  if (spec.examples.length > 0) {
    lines.push("", "Examples:");
    for (const example of spec.examples) lines.push(`  ${example}`);
  }
  return `${lines.join("\n")}\n`;
}
