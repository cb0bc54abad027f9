/**
 * AWS Bedrock ConverseStream as the bytes AWS sends: `application/vnd.amazon.eventstream`
 * binary frames, one per event, each
 *
 *   total length (u32 BE) | headers length (u32 BE) | prelude CRC32 | headers | payload | message CRC32
 *
 * with string headers `:event-type`, `:content-type` and `:message-type`, and the event's
 * JSON structure as the payload. The SDK checks both CRCs, so a wrong frame fails loudly.
 */

import type { ScriptedToolCall, TextReply } from "./script.js";
import type { EncodeContext } from "./wire-formats.js";

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Header value type 7: a UTF-8 string with a u16 length. */
const STRING_HEADER_TYPE = 7;
const PRELUDE_BYTES = 12;
const CRC_BYTES = 4;

function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = Buffer.from(name, "utf8");
    const valueBytes = Buffer.from(value, "utf8");
    const head = Buffer.alloc(1 + nameBytes.length + 1 + 2);
    head.writeUInt8(nameBytes.length, 0);
    nameBytes.copy(head, 1);
    head.writeUInt8(STRING_HEADER_TYPE, 1 + nameBytes.length);
    head.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
    parts.push(head, valueBytes);
  }
  return Buffer.concat(parts);
}

/** One event-stream frame. */
export function eventFrame(headers: Record<string, string>, payload: Uint8Array): Buffer {
  const headerBytes = encodeHeaders(headers);
  const total = PRELUDE_BYTES + headerBytes.length + payload.length + CRC_BYTES;
  const frame = Buffer.alloc(total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(headerBytes.length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(0, 8)), 8);
  headerBytes.copy(frame, PRELUDE_BYTES);
  Buffer.from(payload).copy(frame, PRELUDE_BYTES + headerBytes.length);
  frame.writeUInt32BE(crc32(frame.subarray(0, total - CRC_BYTES)), total - CRC_BYTES);
  return frame;
}

function event(type: string, body: Record<string, unknown>): Buffer {
  return eventFrame(
    { ":event-type": type, ":content-type": "application/json", ":message-type": "event" },
    Buffer.from(JSON.stringify(body), "utf8"),
  );
}

/** An exception frame, as Bedrock sends mid-stream failures. */
export function bedrockExceptionFrame(type: string, message: string): Buffer {
  return eventFrame(
    { ":exception-type": type, ":content-type": "application/json", ":message-type": "exception" },
    Buffer.from(JSON.stringify({ message }), "utf8"),
  );
}

const DELTA_PIECES = 3;

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

/** The frames of one streamed Converse answer: text block first, then tool-use blocks. */
export function bedrockConverseStream(reply: TextReply, ctx: EncodeContext): Buffer[] {
  const frames = [event("messageStart", { role: "assistant" })];
  let index = 0;
  const text = reply.text ?? "";
  if (text) {
    // Bedrock sends no contentBlockStart for text blocks.
    for (const piece of pieces(text))
      frames.push(event("contentBlockDelta", { contentBlockIndex: index, delta: { text: piece } }));
    frames.push(event("contentBlockStop", { contentBlockIndex: index }));
    index++;
  }
  const calls = reply.toolCalls ?? [];
  calls.forEach((call, position) => {
    const toolUseId = call.id ?? `tooluse_${ctx.seq}_${position}`;
    frames.push(
      event("contentBlockStart", {
        contentBlockIndex: index,
        start: { toolUse: { toolUseId, name: call.name } },
      }),
    );
    for (const piece of pieces(argumentsText(call))) {
      frames.push(
        event("contentBlockDelta", { contentBlockIndex: index, delta: { toolUse: { input: piece } } }),
      );
    }
    frames.push(event("contentBlockStop", { contentBlockIndex: index }));
    index++;
  });
  frames.push(event("messageStop", { stopReason: calls.length > 0 ? "tool_use" : "end_turn" }));
  const usage = reply.usage ?? { input: 10, output: 5 };
  frames.push(
    event("metadata", {
      usage: {
        inputTokens: usage.input,
        outputTokens: usage.output,
        totalTokens: usage.input + usage.output,
      },
      metrics: { latencyMs: 1 },
    }),
  );
  return frames;
}
