/**
 * Custom skills (spec 000 "Skills and Dynamic Skill Tools"). A skill is Markdown: instructions
 * for the prompt, plus optional tool declarations in a fenced ```webbrain-tools JSON block and
 * optional metadata in a ```webbrain-skill block. Both fences are stripped before the
 * instructions reach the prompt; declared tools are added to the model's tools at call time.
 *
 * The manifest format is the original project's, so its skills import unchanged:
 *   {"tools": [{"name", "description", "kind": "http" | "httpDownloadJob", "method",
 *     "endpoint", "defaultArgs", "activeTabUrlArg", "inputUrlArg", "inputUrlAllowlist",
 *     "resultPolicy", "responseLimits", "parameters", "modes", "job": {...}}]}
 *
 * Invariants:
 * - Importing a skill is the trust boundary: `importSkill` refuses a malformed manifest with a
 *   `SkillImportError` that names the problem, so nothing half-valid is ever stored.
 * - Only https endpoints (plain http only on 127.0.0.1 / localhost, for local services and
 *   tests); every endpoint of a download job shares the create endpoint's origin.
 * - Results are untrusted (wrapped like page text) unless the skill says `"trusted"`.
 * - A stored skill that no longer parses never breaks the agent: `parseSkill` drops the bad
 *   tool and reports it in `errors`; its instructions still apply.
 */
import { isMode, MODES, type Mode } from "@webbrain/protocol";
import { TOOL_CATALOG } from "../tools/tool-catalog.js";

export interface SkillDefinition {
  id: string;
  name: string;
  enabled: boolean;
  /** The skill's Markdown, possibly with ```webbrain-tools / ```webbrain-skill fences. */
  body: string;
  /** Packaged skills: where it came from and which version was seeded (see seedPackagedSkills). */
  source?: "packaged" | "user";
  packagedHash?: string;
}

export interface SkillParameter {
  type: "string" | "number" | "integer" | "boolean";
  description?: string;
  [key: string]: unknown;
}

/** A URL-like argument may only point at these hosts (and their subdomains) and path prefixes. */
export interface UrlAllowRule {
  host: string;
  paths: string[];
}

export interface ResponseLimits {
  /** Characters of the response body kept. */
  maxTextChars: number;
  /** JSON arrays cut to this many items, by key (a dotted path reaches nested keys). */
  maxArrayItems: Record<string, number>;
}

export interface DownloadJobSpec {
  /** Field of the create response that holds the provider's job id. */
  idField: string;
  /** Same-origin URL templates; `{<idField>}` is replaced by the job id. */
  statusEndpoint: string;
  fileEndpoint: string;
  cleanupEndpoint?: string;
  pollIntervalMs: number;
  timeoutMs: number;
}

export interface SkillTool {
  name: string;
  description: string;
  kind: "http" | "httpDownloadJob";
  /** JSON Schema object of the arguments. */
  parameters: { type: "object"; properties: Record<string, SkillParameter>; required?: string[] };
  method: "GET" | "POST";
  /** Endpoint URL; `{param}` in it is replaced by the URL-encoded argument. */
  endpoint: string;
  defaultArgs: Record<string, unknown>;
  /** When the model omits this argument, the active tab's URL fills it. */
  activeTabUrlArg?: string;
  /** The argument that carries a URL; checked against `inputUrlAllowlist` when one is given. */
  inputUrlArg?: string;
  inputUrlAllowlist?: UrlAllowRule[];
  headers?: Record<string, string>;
  resultPolicy: "untrusted" | "trusted";
  responseLimits: ResponseLimits;
  /** Modes the tool is offered in: http tools everywhere, download jobs in action modes only. */
  modes: Mode[];
  job?: DownloadJobSpec;
  skillId: string;
}

export interface ParsedSkill {
  id: string;
  name: string;
  /** One line for a settings list (the `webbrain-skill` summary, else the first line). */
  summary: string;
  instructions: string;
  tools: SkillTool[];
  errors: string[];
}

export class SkillImportError extends Error {
  override name = "SkillImportError";
}

export const SKILL_RESULT_MAX_CHARS = 6_000;
const MAX_TEXT_CHARS_CEILING = 200_000;
const TOOLS_FENCE = /```webbrain-tools[^\S\n]*\n([\s\S]*?)```/g;
const META_FENCE = /```webbrain-skill[^\S\n]*\n([\s\S]*?)```/g;
const TOOL_NAME = /^[a-z][a-z0-9_]{1,47}$/;
const LOCAL_HTTP = /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//;
const BUILTIN = new Set(TOOL_CATALOG.map((spec) => spec.name));
const ACTION_MODES: readonly Mode[] = ["act", "dev"];

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** An endpoint the skill may call: https, or http on the local machine. */
function checkEndpoint(name: string, field: string, url: unknown): string | { url: string; origin: string } {
  if (typeof url !== "string" || url === "") return `${name}: ${field} is required (an https:// URL)`;
  if (!url.startsWith("https://") && !LOCAL_HTTP.test(url)) {
    return `${name}: ${field} must be an https:// URL (got "${url}")`;
  }
  try {
    return { url, origin: new URL(url.replace(/\{[^}]*\}/g, "x")).origin };
  } catch {
    return `${name}: ${field} is not a valid URL ("${url}")`;
  }
}

function checkAllowlist(name: string, raw: unknown): UrlAllowRule[] | string | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) return `${name}: inputUrlAllowlist must be a list of {host, paths}`;
  const rules: UrlAllowRule[] = [];
  for (const entry of raw) {
    const rule = record(entry);
    if (!rule || typeof rule.host !== "string" || rule.host === "") {
      return `${name}: every inputUrlAllowlist entry needs a host`;
    }
    const paths = Array.isArray(rule.paths) ? rule.paths.map(String) : ["/"];
    rules.push({ host: rule.host.toLowerCase(), paths });
  }
  return rules;
}

function checkLimits(name: string, raw: unknown, legacyMaxChars: unknown): ResponseLimits | string {
  const limits = record(raw) ?? {};
  const max = limits.maxTextChars ?? legacyMaxChars ?? SKILL_RESULT_MAX_CHARS;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1 || max > MAX_TEXT_CHARS_CEILING) {
    return `${name}: responseLimits.maxTextChars must be a whole number from 1 to ${MAX_TEXT_CHARS_CEILING}`;
  }
  const items: Record<string, number> = {};
  for (const [key, value] of Object.entries(record(limits.maxArrayItems) ?? {})) {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      return `${name}: responseLimits.maxArrayItems.${key} must be a whole number`;
    }
    items[key] = value;
  }
  return { maxTextChars: max, maxArrayItems: items };
}

function checkJob(name: string, tool: Record<string, unknown>, origin: string): DownloadJobSpec | string {
  // Both shapes the original documents: a nested "job" object, or the fields on the tool.
  const job = record(tool.job) ?? tool;
  const idField = String(job.idField ?? job.jobIdField ?? "job_id");
  const spec: Partial<DownloadJobSpec> = { idField };
  for (const field of ["statusEndpoint", "fileEndpoint", "cleanupEndpoint"] as const) {
    const value = job[field];
    if (value === undefined && field === "cleanupEndpoint") continue;
    const checked = checkEndpoint(name, field, value);
    if (typeof checked === "string") return checked;
    if (checked.origin !== origin)
      return `${name}: ${field} must be on the same origin as endpoint (${origin})`;
    spec[field] = checked.url;
  }
  const poll = job.pollIntervalMs ?? 1_000;
  const timeout = job.timeoutMs ?? 90_000;
  if (typeof poll !== "number" || poll < 100) return `${name}: pollIntervalMs must be 100 or more`;
  if (typeof timeout !== "number" || timeout < poll)
    return `${name}: timeoutMs must be at least pollIntervalMs`;
  return { ...(spec as DownloadJobSpec), pollIntervalMs: poll, timeoutMs: timeout };
}

function checkModes(name: string, raw: unknown, kind: SkillTool["kind"]): Mode[] | string {
  const allowed: readonly Mode[] = kind === "httpDownloadJob" ? ACTION_MODES : MODES;
  if (raw === undefined) return [...allowed];
  if (!Array.isArray(raw) || raw.some((mode) => !isMode(mode))) {
    return `${name}: modes must be a list of ${MODES.map((each) => JSON.stringify(each)).join(", ")}`;
  }
  // A download job never runs in Ask, whatever the manifest says.
  return (raw as Mode[]).filter((mode) => allowed.includes(mode));
}

function checkTool(raw: unknown, skillId: string, taken: Set<string>): SkillTool | string {
  const tool = record(raw);
  if (!tool) return "a tool entry is not an object";
  const name = String(tool.name ?? "");
  if (!TOOL_NAME.test(name)) return `tool name "${name}" must be lower_snake_case, 2-48 characters`;
  if (BUILTIN.has(name) || taken.has(name)) return `tool name "${name}" is already taken`;
  const kind = tool.kind ?? "http";
  if (kind !== "http" && kind !== "httpDownloadJob") {
    return `${name}: kind must be "http" or "httpDownloadJob" (got ${JSON.stringify(kind)})`;
  }
  const method = String(tool.method ?? "GET").toUpperCase();
  if (method !== "GET" && method !== "POST") return `${name}: method must be GET or POST, got ${method}`;
  if (kind === "http" && tool.readOnly === false) return `${name}: http skill tools must be read-only`;
  const endpoint = checkEndpoint(name, "endpoint", tool.endpoint ?? tool.url);
  if (typeof endpoint === "string") return endpoint;
  const parameters = record(tool.parameters) ?? { type: "object", properties: {} };
  const properties = record(parameters.properties) ?? {};
  for (const [key, spec] of Object.entries(properties)) {
    const type = record(spec)?.type;
    if (!["string", "number", "integer", "boolean"].includes(String(type))) {
      return `${name}: parameter "${key}" must be a string, number, integer or boolean`;
    }
  }
  const allowlist = checkAllowlist(name, tool.inputUrlAllowlist);
  if (typeof allowlist === "string") return allowlist;
  const limits = checkLimits(name, tool.responseLimits, tool.maxChars);
  if (typeof limits === "string") return limits;
  const modes = checkModes(name, tool.modes, kind);
  if (typeof modes === "string") return modes;
  let job: DownloadJobSpec | undefined;
  if (kind === "httpDownloadJob") {
    const checked = checkJob(name, tool, endpoint.origin);
    if (typeof checked === "string") return checked;
    job = checked;
  }
  const headers = record(tool.headers);
  return {
    name,
    description: String(tool.description ?? name),
    kind,
    parameters: {
      type: "object",
      properties: properties as Record<string, SkillParameter>,
      ...(Array.isArray(parameters.required) ? { required: parameters.required.map(String) } : {}),
    },
    method,
    endpoint: endpoint.url,
    defaultArgs: record(tool.defaultArgs) ?? {},
    ...(typeof tool.activeTabUrlArg === "string" ? { activeTabUrlArg: tool.activeTabUrlArg } : {}),
    ...(typeof tool.inputUrlArg === "string" ? { inputUrlArg: tool.inputUrlArg } : {}),
    ...(allowlist ? { inputUrlAllowlist: allowlist } : {}),
    ...(headers
      ? { headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])) }
      : {}),
    resultPolicy: tool.resultPolicy === "trusted" ? "trusted" : "untrusted",
    responseLimits: limits,
    modes,
    ...(job ? { job } : {}),
    skillId,
  };
}

function metadataSummary(body: string): string | undefined {
  for (const match of body.matchAll(META_FENCE)) {
    try {
      const summary = record(JSON.parse(match[1] ?? ""))?.summary;
      if (typeof summary === "string") return summary.slice(0, 200);
    } catch {
      // Metadata is optional: a broken block only loses the summary.
    }
  }
  return undefined;
}

/** The instructions part of a skill: both fences stripped. */
export function skillInstructions(body: string): string {
  return body.replace(TOOLS_FENCE, "").replace(META_FENCE, "").trim();
}

/** Split a skill into prompt instructions and declared tools. */
export function parseSkill(skill: SkillDefinition, taken = new Set<string>()): ParsedSkill {
  const errors: string[] = [];
  const tools: SkillTool[] = [];
  for (const match of skill.body.matchAll(TOOLS_FENCE)) {
    let manifest: unknown;
    try {
      manifest = JSON.parse(match[1] ?? "");
    } catch (error) {
      errors.push(`the webbrain-tools block is not valid JSON: ${(error as Error).message}`);
      continue;
    }
    const list = Array.isArray(manifest) ? manifest : record(manifest)?.tools;
    if (!Array.isArray(list)) {
      errors.push('the webbrain-tools block must be {"tools": [...]}');
      continue;
    }
    for (const raw of list) {
      const checked = checkTool(raw, skill.id, taken);
      if (typeof checked === "string") errors.push(checked);
      else {
        taken.add(checked.name);
        tools.push(checked);
      }
    }
  }
  const instructions = skillInstructions(skill.body);
  const summary =
    metadataSummary(skill.body) ?? instructions.split("\n").find((line) => line.trim() !== "") ?? "";
  return {
    id: skill.id,
    name: skill.name,
    summary: summary.replace(/^#+\s*/, ""),
    instructions,
    tools,
    errors,
  };
}

/** Parse every enabled skill; tool names stay unique across skills. */
export function parseSkills(skills: readonly SkillDefinition[]): ParsedSkill[] {
  const taken = new Set<string>();
  return skills.filter((skill) => skill.enabled).map((skill) => parseSkill(skill, taken));
}

/** The prompt section for enabled skills (empty when none has instructions). */
export function skillsPrompt(skills: readonly ParsedSkill[]): string {
  const parts = skills
    .filter((skill) => skill.instructions)
    .map((skill) => `Skill "${skill.name}":\n${skill.instructions}`);
  return parts.join("\n\n");
}

/** spec 000's name: the instructions of the enabled skills, manifest fences stripped. */
export function buildCustomSkillsPrompt(skills: readonly SkillDefinition[]): string {
  return skillsPrompt(parseSkills(skills));
}

/** The skill's tools offered in a mode. */
export function skillToolsForMode(tools: Iterable<SkillTool>, mode: Mode): SkillTool[] {
  return [...tools].filter((tool) => tool.modes.includes(mode));
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 48) || "skill"
  );
}

/**
 * Import a skill from Markdown (pasted or read from a file): the trust boundary. A manifest
 * with any error is refused whole, with every problem named, so nothing is stored.
 */
export function importSkill(
  markdown: string,
  options: {
    name?: string;
    id?: string;
    existingIds?: Iterable<string>;
    otherToolNames?: Iterable<string>;
  } = {},
): SkillDefinition {
  const body = markdown.replace(/\r\n/g, "\n").trim();
  if (body === "") throw new SkillImportError("The skill is empty: paste its Markdown or pick a .md file.");
  const heading = /^#\s+(.+)$/m.exec(body)?.[1]?.trim();
  const name = (options.name ?? heading ?? "").trim();
  if (name === "") {
    throw new SkillImportError('The skill has no name: start it with a "# Name" heading.');
  }
  const taken = new Set(options.existingIds ?? []);
  let id = options.id ?? slug(name);
  for (let n = 2; !options.id && taken.has(id); n++) id = `${slug(name)}-${n}`;
  const definition: SkillDefinition = { id, name, enabled: true, body, source: "user" };
  const parsed = parseSkill(definition, new Set(options.otherToolNames ?? []));
  if (parsed.errors.length > 0) {
    throw new SkillImportError(
      `The skill "${name}" was not imported; fix its webbrain-tools block: ${parsed.errors.join("; ")}.`,
    );
  }
  if (parsed.instructions === "" && parsed.tools.length === 0) {
    throw new SkillImportError(`The skill "${name}" has neither instructions nor tools.`);
  }
  return definition;
}
