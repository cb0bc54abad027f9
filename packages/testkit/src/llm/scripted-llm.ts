/**
 * startScriptedLlm: an LLM server on 127.0.0.1 that speaks one real wire format (OpenAI chat
 * completions, OpenAI Responses, Anthropic messages) and replays a script.
 *
 * Invariants:
 * - Each generation request (POST .../chat/completions, .../responses, .../messages) consumes
 *   exactly one script step, in order, and is recorded before the step runs.
 * - When the script is used up the server answers 500 with a message that says so (the test
 *   sees a clear failure, never a hang).
 * - `close()` ends every open connection, hanging ones included, so no test leaks a socket.
 * - GET .../models lists the configured models (for "test connection").
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { bedrockConverseStream } from "./bedrock-event-stream.js";
import { type Dialect, isFailure, type RecordedRequest, type Reply, type ScriptStep } from "./script.js";
import {
  anthropicStream,
  type EncodeContext,
  errorBody,
  modelList,
  openAiChatJson,
  openAiChatStream,
  openAiResponsesStream,
} from "./wire-formats.js";

export interface ScriptedLlmOptions {
  dialect: Dialect;
  script: ScriptStep[];
  /** openai-chat only: SSE by default; plain JSON when false or when the request says stream:false. */
  stream?: boolean;
  /** Model ids listed by GET /models (default ["scripted-1"]). */
  models?: string[];
  /**
   * Every request (listing and generation) must carry this key, as the hosted APIs check it:
   * `x-api-key` for Anthropic, `Authorization: Bearer` otherwise. Any other gets HTTP 401 with
   * the dialect's error body. Absent: no key is checked (a local server).
   */
  apiKey?: string;
  /** openai-chat: extra fields of every /models entry (e.g. `capabilities: ["vision"]`). */
  modelInfo?: Record<string, unknown>;
  /** Milliseconds between SSE events (default 0), so abort tests can land mid-stream. */
  eventDelayMs?: number;
  /**
   * The last event of every stream waits for this, so a test can look at a run mid-stream at its
   * own pace instead of racing a delay (a loaded machine is slower than any delay one picks).
   */
  finishWhen?: Promise<unknown>;
}

export interface ScriptedLlm {
  /** http://127.0.0.1:PORT/v1 for the OpenAI dialects; http://127.0.0.1:PORT for Anthropic (its SDK adds /v1) and Bedrock. */
  baseUrl: string;
  /** Every generation request, in arrival order. */
  requests: RecordedRequest[];
  /** Requests that were not generations (model listing), in arrival order. */
  otherRequests: RecordedRequest[];
  /** Steps not yet consumed. */
  remaining(): number;
  close(): Promise<void>;
}

const GENERATION_PATHS: Record<Dialect, RegExp> = {
  "openai-chat": /\/chat\/completions$/,
  "openai-responses": /\/responses$/,
  anthropic: /\/messages$/,
  bedrock: /\/model\/[^/]+\/converse-stream$/,
};

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  extraHeaders: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...extraHeaders,
  });
  response.end(text);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function presentedKey(dialect: Dialect, headers: Record<string, string>): string | undefined {
  if (dialect === "anthropic") return headers["x-api-key"];
  return /^Bearer (.+)$/i.exec(headers.authorization ?? "")?.[1];
}

export async function startScriptedLlm(options: ScriptedLlmOptions): Promise<ScriptedLlm> {
  const { dialect } = options;
  const models = options.models ?? ["scripted-1"];
  const script = [...options.script];
  const requests: RecordedRequest[] = [];
  const otherRequests: RecordedRequest[] = [];
  let nextStep = 0;

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://scripted.invalid");
    const path = url.pathname;
    const raw = await readBody(request);
    let body: Record<string, unknown> = {};
    if (raw) {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        sendJson(response, 400, errorBody(dialect, 400, "scripted server: request body is not JSON"));
        return;
      }
    }
    const isGeneration = request.method === "POST" && GENERATION_PATHS[dialect].test(path);
    const recorded: RecordedRequest = {
      dialect,
      method: request.method ?? "GET",
      path,
      query: Object.fromEntries(url.searchParams),
      headers: headersOf(request),
      body,
      index: isGeneration ? requests.length : otherRequests.length,
    };
    if (options.apiKey !== undefined && presentedKey(dialect, recorded.headers) !== options.apiKey) {
      (isGeneration ? requests : otherRequests).push(recorded);
      // Bedrock's SDK names the error from this header (a "Protocol error" without it).
      const aws: Record<string, string> =
        dialect === "bedrock" ? { "x-amzn-errortype": "AccessDeniedException" } : {};
      sendJson(response, 401, errorBody(dialect, 401, "scripted server: invalid API key"), aws);
      return;
    }
    if (!isGeneration) {
      otherRequests.push(recorded);
      if (request.method === "GET" && /\/models$/.test(path))
        sendJson(response, 200, modelList(dialect, models, options.modelInfo));
      else
        sendJson(response, 404, errorBody(dialect, 404, `scripted ${dialect} server has no route ${path}`));
      return;
    }
    requests.push(recorded);
    const step = script[nextStep];
    if (step === undefined) {
      const message = `scripted ${dialect} server: script exhausted after ${script.length} steps; request #${recorded.index} has no answer`;
      sendJson(response, 500, errorBody(dialect, 500, message));
      return;
    }
    nextStep++;
    let reply: Reply;
    try {
      reply = typeof step === "function" ? await step(recorded) : step;
    } catch (error) {
      const message = `scripted ${dialect} server: step ${nextStep - 1} threw: ${(error as Error).message}`;
      sendJson(response, 500, errorBody(dialect, 500, message));
      return;
    }
    await send(recorded, reply, response);
  }

  async function send(recorded: RecordedRequest, reply: Reply, response: ServerResponse): Promise<void> {
    const bedrockModel = /\/model\/([^/]+)\/converse-stream$/.exec(recorded.path)?.[1];
    const ctx: EncodeContext = {
      model:
        typeof recorded.body.model === "string"
          ? recorded.body.model
          : bedrockModel
            ? decodeURIComponent(bedrockModel)
            : (models[0] ?? "scripted-1"),
      seq: recorded.index + 1,
      includeUsage:
        (recorded.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true,
    };
    if (isFailure(reply) && reply.fail === "status") {
      const body = reply.body ?? errorBody(dialect, reply.status, `scripted failure: HTTP ${reply.status}`);
      // Bedrock's SDK names the error from this header.
      const awsType =
        reply.status === 401 || reply.status === 403 ? "AccessDeniedException" : "ValidationException";
      sendJson(response, reply.status, body, dialect === "bedrock" ? { "x-amzn-errortype": awsType } : {});
      return;
    }
    const streamed =
      dialect !== "openai-chat" || (options.stream !== false && recorded.body.stream !== false);
    if (isFailure(reply) && reply.fail === "hang" && !reply.midStream) return; // close() ends it
    const dropped = isFailure(reply) && reply.fail === "drop-mid-stream" ? reply : undefined;
    const plain: Reply = isFailure(reply)
      ? { text: dropped?.text ?? "partial answer that never finishes" }
      : reply;
    if (!streamed && !isFailure(reply)) {
      sendJson(response, 200, openAiChatJson(reply, ctx));
      return;
    }
    const events: (string | Buffer)[] =
      dialect === "openai-chat"
        ? openAiChatStream(plain, ctx)
        : dialect === "openai-responses"
          ? openAiResponsesStream(plain, ctx)
          : dialect === "bedrock"
            ? bedrockConverseStream(plain, ctx)
            : anthropicStream(plain, ctx);
    response.writeHead(200, {
      "content-type": dialect === "bedrock" ? "application/vnd.amazon.eventstream" : "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    if (isFailure(reply)) {
      if (dropped) {
        for (const event of events.slice(0, dropped.afterEvents ?? 2)) {
          if (options.eventDelayMs) await sleep(options.eventDelayMs);
          response.write(event);
        }
        // Let the written events leave before the connection is cut.
        await sleep(20);
        response.socket?.destroy();
      } else {
        response.write(events[0] ?? "");
      }
      return; // hang mid-stream: close() ends it
    }
    for (const [index, event] of events.entries()) {
      if (options.eventDelayMs) await sleep(options.eventDelayMs);
      if (index === events.length - 1 && options.finishWhen) await options.finishWhen;
      if (response.destroyed) return;
      response.write(event);
    }
    response.end();
  }

  const server: Server = createServer((request, response) => {
    answer(request, response).catch((error: Error) => {
      if (!response.headersSent)
        sendJson(response, 500, errorBody(dialect, 500, `scripted server: ${error.message}`));
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    baseUrl: dialect === "anthropic" || dialect === "bedrock" ? origin : `${origin}/v1`,
    requests,
    otherRequests,
    remaining: () => script.length - nextStep,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
