/**
 * Firefox's native-messaging framing: each message is a 32-bit length in native byte order
 * (little-endian on every platform Firefox ships for) followed by that many bytes of UTF-8 JSON.
 * The companion reads the add-on's messages from stdin and writes its answers to stdout this way.
 *
 * Invariants:
 * - A message may arrive split over many chunks, or many messages in one chunk: the reader keeps
 *   the partial bytes and yields each whole message once, in order.
 * - Firefox drops the host when one message to it passes 1 MiB, so `encodeNativeMessage` refuses
 *   such a message here, with the size, instead of letting the connection die.
 * - A length header past MAX_INCOMING_BYTES is a broken stream (Firefox itself caps what it sends
 *   at 64 MiB): the reader throws rather than buffering without bound.
 */

/** Firefox's limit on one message from a host to the add-on. */
export const MAX_OUTGOING_BYTES = 1024 * 1024;
/** Firefox's limit on one message from the add-on to a host. */
export const MAX_INCOMING_BYTES = 64 * 1024 * 1024;
const HEADER_BYTES = 4;

export class NativeMessageTooLargeError extends Error {
  override readonly name = "NativeMessageTooLargeError";
}

/** One message as Firefox wants it on the host's stdout. */
export function encodeNativeMessage(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  if (body.length > MAX_OUTGOING_BYTES) {
    throw new NativeMessageTooLargeError(
      `A native message of ${body.length} bytes is over Firefox's limit of ${MAX_OUTGOING_BYTES} bytes.`,
    );
  }
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(body.length, 0);
  return Buffer.concat([header, body]);
}

/** Splits a byte stream into messages; feed it every chunk, in order. */
export class NativeMessageReader {
  #pending: Buffer = Buffer.alloc(0);

  /** The whole messages this chunk completes (none while a message is still partial). */
  push(chunk: Buffer): unknown[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const messages: unknown[] = [];
    while (this.#pending.length >= HEADER_BYTES) {
      const length = this.#pending.readUInt32LE(0);
      if (length > MAX_INCOMING_BYTES) {
        throw new NativeMessageTooLargeError(
          `A native message header says ${length} bytes, over the limit of ${MAX_INCOMING_BYTES}: the stream is broken.`,
        );
      }
      if (this.#pending.length < HEADER_BYTES + length) break;
      const body = this.#pending.subarray(HEADER_BYTES, HEADER_BYTES + length);
      this.#pending = this.#pending.subarray(HEADER_BYTES + length);
      messages.push(JSON.parse(body.toString("utf8")));
    }
    return messages;
  }

  /** Bytes of a message not yet complete (a stream that ends with some was cut). */
  get pendingBytes(): number {
    return this.#pending.length;
  }
}

/** Every message of a readable stream (the host's stdin), until it ends. */
export async function* readNativeMessages(stream: AsyncIterable<Buffer | string>): AsyncGenerator<unknown> {
  const reader = new NativeMessageReader();
  for await (const chunk of stream) {
    yield* reader.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  }
}
