/**
 * Custom skills (spec 000): a skill is Markdown instructions for the prompt, plus optional HTTP
 * tools declared in a fenced ```webbrain-tools JSON block. The fence is stripped before the
 * instructions reach the prompt; the declared tools are offered in every mode.
 *
 * Invariants:
 * - Importing/enabling a skill is the trust boundary: its tools reach their declared endpoint
 *   without a per-call permission prompt, but only that endpoint: arguments are URL-encoded
 *   into the template, and the final URL must keep the template's https origin.
 * - Only GET and POST; only https (http only for 127.0.0.1/localhost, for local services).
 * - Results are untrusted (wrapped) unless the skill says `resultPolicy: "trusted"`.
 * - A malformed manifest never breaks the agent: the bad tool is dropped and reported in
 *   `errors`, the instructions still apply.
 */
import type { FetchRequest } from "./browser-port.js";
import { TOOL_CATALOG } from "./tool-catalog.js";

export interface SkillDefinition {
  id: string;
  name: string;
  enabled: boolean;
  /** The skill's Markdown, possibly with a ```webbrain-tools fence. */
  body: string;
}

export interface SkillParameter {
  type: "string" | "number" | "integer" | "boolean";
  description?: string;
}

export interface SkillTool {
  name: string;
  description: string;
  /** JSON Schema object of the arguments. */
  parameters: { type: "object"; properties: Record<string, SkillParameter>; required?: string[] };
  method: "GET" | "POST";
  /** URL template; `{param}` is replaced by the URL-encoded argument. */
  url: string;
  /** POST body template; `{param}` is replaced by the JSON-escaped argument. */
  body?: string;
  headers?: Record<string, string>;
  resultPolicy: "untrusted" | "trusted";
  /** Characters of the response kept (default SKILL_RESULT_MAX_CHARS). */
  maxChars?: number;
  skillId: string;
}

export interface ParsedSkill {
  id: string;
  name: string;
  instructions: string;
  tools: SkillTool[];
  errors: string[];
}

export const SKILL_RESULT_MAX_CHARS = 6_000;
const FENCE = /```webbrain-tools\s*\n([\s\S]*?)```/g;
const TOOL_NAME = /^[a-z][a-z0-9_]{1,47}$/;
const LOCAL_HTTP = /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//;
const BUILTIN = new Set(TOOL_CATALOG.map((spec) => spec.name));

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function checkTool(raw: unknown, skillId: string, taken: Set<string>): SkillTool | string {
  const tool = record(raw);
  if (!tool) return "a tool entry is not an object";
  const name = String(tool.name ?? "");
  if (!TOOL_NAME.test(name)) return `tool name "${name}" must be lower_snake_case, 2-48 characters`;
  if (BUILTIN.has(name) || taken.has(name)) return `tool name "${name}" is already taken`;
  const method = String(tool.method ?? "GET").toUpperCase();
  if (method !== "GET" && method !== "POST") return `${name}: method must be GET or POST, got ${method}`;
  const url = String(tool.url ?? "");
  if (!url.startsWith("https://") && !LOCAL_HTTP.test(url))
    return `${name}: url must be https:// (got "${url}")`;
  const parameters = record(tool.parameters) ?? { type: "object", properties: {} };
  const properties = record(parameters.properties) ?? {};
  for (const [key, spec] of Object.entries(properties)) {
    const type = record(spec)?.type;
    if (!["string", "number", "integer", "boolean"].includes(String(type))) {
      return `${name}: parameter "${key}" must be a string, number, integer or boolean`;
    }
  }
  return {
    name,
    description: String(tool.description ?? name),
    parameters: {
      type: "object",
      properties: properties as Record<string, SkillParameter>,
      ...(Array.isArray(parameters.required) ? { required: parameters.required.map(String) } : {}),
    },
    method,
    url,
    ...(typeof tool.body === "string" ? { body: tool.body } : {}),
    ...(record(tool.headers) ? { headers: tool.headers as Record<string, string> } : {}),
    resultPolicy: tool.resultPolicy === "trusted" ? "trusted" : "untrusted",
    ...(typeof tool.maxChars === "number" ? { maxChars: tool.maxChars } : {}),
    skillId,
  };
}

/** Split a skill into prompt instructions and declared tools. */
export function parseSkill(skill: SkillDefinition, taken = new Set<string>()): ParsedSkill {
  const errors: string[] = [];
  const tools: SkillTool[] = [];
  for (const match of skill.body.matchAll(FENCE)) {
    let manifest: unknown;
    try {
      manifest = JSON.parse(match[1] ?? "");
    } catch (error) {
      errors.push(`webbrain-tools block is not JSON: ${(error as Error).message}`);
      continue;
    }
    const list = Array.isArray(manifest) ? manifest : (record(manifest)?.tools ?? []);
    for (const raw of Array.isArray(list) ? list : []) {
      const checked = checkTool(raw, skill.id, taken);
      if (typeof checked === "string") errors.push(checked);
      else {
        taken.add(checked.name);
        tools.push(checked);
      }
    }
  }
  const instructions = skill.body.replace(FENCE, "").trim();
  return { id: skill.id, name: skill.name, instructions, tools, errors };
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

/** The HTTP request for one call, or an error message for the model. */
export function skillRequest(tool: SkillTool, args: Record<string, unknown>): FetchRequest | string {
  for (const key of tool.parameters.required ?? []) {
    if (args[key] === undefined || args[key] === "")
      return `${tool.name}: missing required argument "${key}".`;
  }
  const value = (key: string) => (args[key] === undefined ? "" : String(args[key]));
  const url = tool.url.replace(/\{([a-zA-Z0-9_]+)\}/g, (_, key: string) => encodeURIComponent(value(key)));
  let sameOrigin: boolean;
  try {
    sameOrigin = new URL(url).origin === new URL(tool.url.replace(/\{[^}]*\}/g, "x")).origin;
  } catch {
    return `${tool.name}: the arguments do not make a valid URL from ${tool.url}.`;
  }
  if (!sameOrigin) return `${tool.name}: the arguments would change the endpoint's origin; refused.`;
  const body = tool.body?.replace(/\{([a-zA-Z0-9_]+)\}/g, (_, key: string) =>
    JSON.stringify(value(key)).slice(1, -1),
  );
  return {
    url,
    method: tool.method,
    headers: {
      ...(tool.headers ?? {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body } : {}),
    maxChars: tool.maxChars ?? SKILL_RESULT_MAX_CHARS,
  };
}
