/**
 * Wire encoders: a scripted TextReply as the exact bytes each API sends.
 *
 * Each encoder returns the SSE events of a streamed answer as strings ready to write
 * (`data: ...\n\n`, or `event: ...\ndata: ...\n\n` for the event-typed dialects), so the server
 * can stop after any of them (drop-mid-stream, stall). Text and tool arguments are split into
 * several deltas on purpose: clients must reassemble them, as with a real server.
 */
import type { Dialect, ScriptedToolCall, TextReply } from "./script.js";

/** How many pieces text and argument strings are cut into when streamed. */
const DELTA_PIECES = 3;

export interface EncodeContext {
  model: string;
  /** Distinguishes ids across answers of one server. */
  seq: number;
  /** OpenAI chat: the request asked for `stream_options.include_usage`. */
  includeUsage: boolean;
}

function pieces(text: string): string[] {
  if (text.length === 0) return [];
  const size = Math.max(1, Math.ceil(text.length / DELTA_PIECES));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

function argumentsText(call: ScriptedToolCall): string {
  return call.rawArguments ?? JSON.stringify(call.arguments);
}

function callId(call: ScriptedToolCall, ctx: EncodeContext, position: number): string {
  return call.id ?? `call_${ctx.seq}_${position}`;
}

function usageOf(reply: TextReply): { input: number; output: number } {
  return reply.usage ?? { input: 10, output: 5 };
}

const dataLine = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;
const typedEvent = (type: string, payload: Record<string, unknown>): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;

// ---------------------------------------------------------------- OpenAI chat completions

export function openAiChatStream(reply: TextReply, ctx: EncodeContext): string[] {
  const id = `chatcmpl-${ctx.seq}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    dataLine({
      id,
      object: "chat.completion.chunk",
      created,
      model: ctx.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const events = [chunk({ role: "assistant", content: "" }, null)];
  for (const piece of pieces(reply.text ?? "")) events.push(chunk({ content: piece }, null));
  const calls = reply.toolCalls ?? [];
  calls.forEach((call, index) => {
    events.push(
      chunk(
        {
          tool_calls: [
            {
              index,
              id: callId(call, ctx, index),
              type: "function",
              function: { name: call.name, arguments: "" },
            },
          ],
        },
        null,
      ),
    );
    for (const piece of pieces(argumentsText(call))) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
    }
  });
  events.push(chunk({}, calls.length > 0 ? "tool_calls" : "stop"));
  if (ctx.includeUsage) {
    const usage = usageOf(reply);
    events.push(
      dataLine({
        id,
        object: "chat.completion.chunk",
        created,
        model: ctx.model,
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      }),
    );
  }
  events.push("data: [DONE]\n\n");
  return events;
}

export function openAiChatJson(reply: TextReply, ctx: EncodeContext): Record<string, unknown> {
  const calls = reply.toolCalls ?? [];
  const usage = usageOf(reply);
  return {
    id: `chatcmpl-${ctx.seq}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: ctx.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call, index) => ({
                  id: callId(call, ctx, index),
                  type: "function",
                  function: { name: call.name, arguments: argumentsText(call) },
                })),
              }
            : {}),
        },
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
    },
  };
}

// ---------------------------------------------------------------- OpenAI Responses

export function openAiResponsesStream(reply: TextReply, ctx: EncodeContext): string[] {
  const responseId = `resp_${ctx.seq}`;
  let sequence = 0;
  const event = (type: string, payload: Record<string, unknown>) =>
    typedEvent(type, { sequence_number: sequence++, ...payload });
  const base = {
    id: responseId,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: ctx.model,
  };
  const events = [event("response.created", { response: { ...base, status: "in_progress", output: [] } })];
  const output: Record<string, unknown>[] = [];
  const text = reply.text ?? "";
  if (text) {
    const outputIndex = output.length;
    const itemId = `msg_${ctx.seq}`;
    const item = { id: itemId, type: "message", role: "assistant", status: "in_progress", content: [] };
    events.push(event("response.output_item.added", { output_index: outputIndex, item }));
    const emptyPart = { type: "output_text", text: "", annotations: [] };
    const where = { item_id: itemId, output_index: outputIndex, content_index: 0 };
    events.push(event("response.content_part.added", { ...where, part: emptyPart }));
    for (const piece of pieces(text))
      events.push(event("response.output_text.delta", { ...where, delta: piece }));
    events.push(event("response.output_text.done", { ...where, text }));
    const part = { type: "output_text", text, annotations: [] };
    events.push(event("response.content_part.done", { ...where, part }));
    const done = { ...item, status: "completed", content: [part] };
    events.push(event("response.output_item.done", { output_index: outputIndex, item: done }));
    output.push(done);
  }
  (reply.toolCalls ?? []).forEach((call, position) => {
    const outputIndex = output.length;
    const itemId = `fc_${ctx.seq}_${position}`;
    const args = argumentsText(call);
    const item = {
      id: itemId,
      type: "function_call",
      call_id: callId(call, ctx, position),
      name: call.name,
      arguments: "",
      status: "in_progress",
    };
    events.push(event("response.output_item.added", { output_index: outputIndex, item }));
    for (const piece of pieces(args)) {
      events.push(
        event("response.function_call_arguments.delta", {
          item_id: itemId,
          output_index: outputIndex,
          delta: piece,
        }),
      );
    }
    events.push(
      event("response.function_call_arguments.done", {
        item_id: itemId,
        output_index: outputIndex,
        arguments: args,
      }),
    );
    const done = { ...item, arguments: args, status: "completed" };
    events.push(event("response.output_item.done", { output_index: outputIndex, item: done }));
    output.push(done);
  });
  const usage = usageOf(reply);
  events.push(
    event("response.completed", {
      response: {
        ...base,
        status: "completed",
        output,
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        },
      },
    }),
  );
  return events;
}

// ---------------------------------------------------------------- Anthropic messages

export function anthropicStream(reply: TextReply, ctx: EncodeContext): string[] {
  const usage = usageOf(reply);
  const events = [
    typedEvent("message_start", {
      message: {
        id: `msg_${ctx.seq}`,
        type: "message",
        role: "assistant",
        model: ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: 1 },
      },
    }),
  ];
  let index = 0;
  const text = reply.text ?? "";
  if (text) {
    events.push(typedEvent("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const piece of pieces(text)) {
      events.push(typedEvent("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    }
    events.push(typedEvent("content_block_stop", { index }));
    index++;
  }
  const calls = reply.toolCalls ?? [];
  calls.forEach((call, position) => {
    const id = call.id ?? `toolu_${ctx.seq}_${position}`;
    events.push(
      typedEvent("content_block_start", {
        index,
        content_block: { type: "tool_use", id, name: call.name, input: {} },
      }),
    );
    for (const piece of pieces(argumentsText(call))) {
      events.push(
        typedEvent("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        }),
      );
    }
    events.push(typedEvent("content_block_stop", { index }));
    index++;
  });
  events.push(
    typedEvent("message_delta", {
      delta: { stop_reason: calls.length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
  );
  events.push(typedEvent("message_stop", {}));
  return events;
}

// ---------------------------------------------------------------- errors and model lists

/** The error body each API sends with a failing status. */
export function errorBody(dialect: Dialect, status: number, message: string): Record<string, unknown> {
  if (dialect === "bedrock") return { message };
  if (dialect === "anthropic") {
    const type = status === 401 ? "authentication_error" : status === 403 ? "permission_error" : "api_error";
    return { type: "error", error: { type, message } };
  }
  return { error: { message, type: status === 401 ? "invalid_request_error" : "server_error", code: null } };
}

export function modelList(
  dialect: Dialect,
  models: string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  if (dialect === "bedrock") {
    return { modelSummaries: models.map((modelId) => ({ modelId, modelName: modelId })) };
  }
  if (dialect === "anthropic") {
    return {
      data: models.map((id) => ({ type: "model", id, display_name: id, created_at: "2025-01-01T00:00:00Z" })),
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    };
  }
  return {
    object: "list",
    data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "scripted", ...extra })),
  };
}
