/**
 * Script types for the scripted LLM servers, and helpers a script step uses to read the
 * request it answers (the last tool result, a ref picked by role and name from a tree).
 *
 * Invariants: a step answers exactly one generation request, in order; a function step sees
 * the request already parsed and recorded; helpers read every dialect's request shape.
 */

export type Dialect = "openai-chat" | "openai-responses" | "anthropic" | "bedrock";

/** One HTTP request the server received, body parsed as JSON. */
export interface RecordedRequest {
  dialect: Dialect;
  method: string;
  path: string;
  /** The query string's parameters (Azure sends `api-version` here). */
  query: Record<string, string>;
  headers: Record<string, string>;
  /** The JSON body (generation requests), or null. */
  body: Record<string, unknown>;
  /** 0-based position among generation requests. */
  index: number;
}

export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown>;
  id?: string;
  /** Send these raw argument characters instead of JSON of `arguments` (malformed-call tests). */
  rawArguments?: string;
}

export interface ScriptedUsage {
  input: number;
  output: number;
}

/** A normal model answer: text, tool calls, or both. */
export interface TextReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: ScriptedUsage;
}

/** An answer that fails on purpose. */
export type FailureReply =
  /** Answer an HTTP error status with `body` (default: the dialect's error JSON). */
  | { fail: "status"; status: number; body?: string | Record<string, unknown> }
  /**
   * Start the stream, send part of it, then destroy the connection. `text` is the answer being
   * streamed (default: a fixed partial answer); `afterEvents` how many of its events go out
   * before the drop (default 2: the stream's opening, no text yet).
   */
  | { fail: "drop-mid-stream"; text?: string; afterEvents?: number }
  /** Never answer (midStream: send headers and the first event, then stall). */
  | { fail: "hang"; midStream?: boolean };

export type Reply = TextReply | FailureReply;

export type ScriptStep = Reply | ((request: RecordedRequest) => Reply | Promise<Reply>);

export function isFailure(reply: Reply): reply is FailureReply {
  return "fail" in reply;
}

type Json = Record<string, unknown>;

function asRecord(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** Text of a content value in any dialect: a string, or an array of text-bearing parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => {
      const record = asRecord(part);
      if (!record) return "";
      if (typeof record.text === "string") return record.text;
      return "";
    })
    .join("");
}

/** Texts of every tool result in the request, oldest first. */
export function toolResultTexts(request: RecordedRequest): string[] {
  const body = request.body;
  const texts: string[] = [];
  if (request.dialect === "openai-responses") {
    for (const item of Array.isArray(body.input) ? body.input : []) {
      const record = asRecord(item);
      if (record?.type === "function_call_output") texts.push(contentText(record.output));
    }
    return texts;
  }
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    const record = asRecord(message);
    if (!record) continue;
    if (request.dialect === "openai-chat" && record.role === "tool") texts.push(contentText(record.content));
    if (request.dialect === "anthropic" && Array.isArray(record.content)) {
      for (const block of record.content) {
        const part = asRecord(block);
        if (part?.type === "tool_result") texts.push(contentText(part.content));
      }
    }
    if (request.dialect === "bedrock" && Array.isArray(record.content)) {
      for (const block of record.content) {
        const result = asRecord(asRecord(block)?.toolResult);
        if (result) texts.push(contentText(result.content));
      }
    }
  }
  return texts;
}

/** Text of the newest tool result; throws when the request has none. */
export function lastToolResultText(request: RecordedRequest): string {
  const texts = toolResultTexts(request);
  const last = texts.at(-1);
  if (last === undefined) {
    throw new Error(`request #${request.index} carries no tool result; the script expected one`);
  }
  return last;
}

/** Texts of every user message (string content, or its text parts), oldest first. */
export function userTexts(request: RecordedRequest): string[] {
  const body = request.body;
  const list = request.dialect === "openai-responses" ? body.input : body.messages;
  const texts: string[] = [];
  for (const message of Array.isArray(list) ? list : []) {
    const record = asRecord(message);
    if (record?.role !== "user") continue;
    const text = contentText(record.content);
    if (text) texts.push(text);
  }
  return texts;
}

/** The system prompt as sent (system/developer message, `instructions`, or `system`). */
export function systemPromptText(request: RecordedRequest): string {
  const body = request.body;
  if (request.dialect === "anthropic" || request.dialect === "bedrock") return contentText(body.system);
  if (request.dialect === "openai-responses" && typeof body.instructions === "string")
    return body.instructions;
  const list = request.dialect === "openai-responses" ? body.input : body.messages;
  for (const message of Array.isArray(list) ? list : []) {
    const record = asRecord(message);
    if (record?.role === "system" || record?.role === "developer") return contentText(record.content);
  }
  return "";
}

/** Names of the tools offered in the request. */
export function toolNames(request: RecordedRequest): string[] {
  const bedrockTools = asRecord(request.body.toolConfig)?.tools;
  const tools = Array.isArray(request.body.tools)
    ? request.body.tools
    : Array.isArray(bedrockTools)
      ? bedrockTools.map((tool) => asRecord(tool)?.toolSpec)
      : [];
  return tools.map((tool) => {
    const record = asRecord(tool);
    const fn = asRecord(record?.function);
    return String(fn?.name ?? record?.name ?? "");
  });
}

/** Number of images anywhere in the request (any dialect's image part shape). */
export function imageCount(request: RecordedRequest): number {
  const text = JSON.stringify(request.body);
  const typed = text.match(/"type":"(image_url|input_image|image)"/g) ?? [];
  // Bedrock's image blocks are `{"image": {"format", "source": {"bytes"}}}`.
  const bedrock = request.dialect === "bedrock" ? (text.match(/"image":\{"format"/g) ?? []) : [];
  return typed.length + bedrock.length;
}

const TREE_LINE = /\[(\d+)\]\s+(\S+)(?:\s+"((?:[^"\\]|\\.)*)")?/;

/**
 * The ref of the first tree line with this role whose name equals `name` (or, failing that,
 * contains it, case-insensitive). Throws with the candidate lines when nothing matches, so a
 * failing script says why.
 */
export function findRef(treeText: string, role: string, name: string): number {
  // The tree may arrive inside a JSON string (escaped newlines and quotes): unescape first. A
  // one-line tree has no escaped newline, only escaped quotes.
  const escaped = treeText.includes("\\n") || treeText.includes('\\"');
  const text = escaped ? treeText.replace(/\\n/g, "\n").replace(/\\"/g, '"') : treeText;
  const lines = text.split("\n");
  const candidates: { ref: number; name: string }[] = [];
  for (const line of lines) {
    const match = TREE_LINE.exec(line);
    if (!match || match[2] !== role) continue;
    candidates.push({ ref: Number(match[1]), name: match[3] ?? "" });
  }
  const exact = candidates.find((candidate) => candidate.name === name);
  if (exact) return exact.ref;
  const lower = name.toLowerCase();
  const partial = candidates.find((candidate) => candidate.name.toLowerCase().includes(lower));
  if (partial) return partial.ref;
  const seen = candidates.map((candidate) => `[${candidate.ref}] ${role} "${candidate.name}"`).join("; ");
  throw new Error(`no ${role} named "${name}" in the tree (${role} lines: ${seen || "none"})`);
}

/**
 * A script step that acts as a model reading a tree would: calls `tool` on the element named
 * `name` with `role` in the last tool result (a tree), plus `args`.
 */
export function callOnNamed(
  tool: string,
  role: string,
  name: string,
  args: Record<string, unknown> = {},
): (request: RecordedRequest) => TextReply {
  return (request) => ({
    toolCalls: [
      { name: tool, arguments: { ref_id: findRef(lastToolResultText(request), role, name), ...args } },
    ],
  });
}
