// The transport's answer to Firefox holding a message's tail until our TCP ACK (ack-nudge.ts),
// against a raw TCP WebSocket server that does the same on purpose: it sends a large text frame's
// first part and sends the tail only once the client has sent anything. Without the nudge the
// message would never complete; with it the client sends one unsolicited pong.
import { createHash } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type BidiTransport, connectWebSocketTransport } from "../src/index.js";

const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const OPCODE_PONG = 0xa;

/** A text frame as a server sends it (unmasked), with a 64-bit length when needed. */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  const head =
    payload.length < 126
      ? Buffer.from([0x81, payload.length])
      : payload.length < 65_536
        ? Buffer.from([0x81, 126, payload.length >> 8, payload.length & 0xff])
        : Buffer.concat([Buffer.from([0x81, 127]), bigLength(payload.length)]);
  return Buffer.concat([head, payload]);
}

function bigLength(length: number): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt(length));
  return out;
}

interface HeldServer {
  url: string;
  /** Opcodes of the frames the client sent after the handshake, in order. */
  clientOpcodes: number[];
  /** Sends `frame`, holding everything after `firstPart` bytes until the client sends data. */
  sendHeld(frame: Buffer, firstPart: number): void;
  /** Sends `frame` in one write. */
  send(frame: Buffer): void;
}

const servers: Server[] = [];
const transports: BidiTransport[] = [];
afterEach(async () => {
  for (const transport of transports.splice(0)) await transport.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function heldServer(): Promise<HeldServer> {
  let client: Socket | undefined;
  let upgraded = false;
  let pendingTail: Buffer | undefined;
  const clientOpcodes: number[] = [];
  const server = createServer((socket) => {
    client = socket;
    socket.on("data", (data: Buffer) => {
      if (!upgraded) {
        const key = /Sec-WebSocket-Key: (.+)\r\n/i.exec(data.toString("latin1"))?.[1]?.trim() ?? "";
        const accept = createHash("sha1")
          .update(key + WS_GUID)
          .digest("base64");
        socket.write(
          `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
        );
        upgraded = true;
        return;
      }
      // Client frames are small here: one frame per chunk, the opcode in the first byte.
      clientOpcodes.push((data[0] ?? 0) & 0x0f);
      if (pendingTail) {
        socket.write(pendingTail);
        pendingTail = undefined;
      }
    });
    socket.on("error", () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `ws://127.0.0.1:${port}/session`,
    clientOpcodes,
    sendHeld(frame, firstPart) {
      pendingTail = frame.subarray(firstPart);
      client?.write(frame.subarray(0, firstPart));
    },
    send(frame) {
      client?.write(frame);
    },
  };
}

function nextMessage(transport: BidiTransport): Promise<string> {
  return new Promise((resolve) => transport.onMessage((text) => resolve(text)));
}

describe("WebSocket transport: a message held back for our ACK", () => {
  it("completes once the client sends an unsolicited pong, and sends only one", async () => {
    const server = await heldServer();
    const transport = await connectWebSocketTransport(server.url);
    transports.push(transport);
    const text = JSON.stringify({ type: "success", id: 1, result: { data: "x".repeat(50_000) } });
    const received = nextMessage(transport);
    server.sendHeld(textFrame(text), 32_768);
    expect(await received).toBe(text);
    expect(server.clientOpcodes).toEqual([OPCODE_PONG]);
  });

  it("sends nothing for a large message that arrives whole, or for a small one", async () => {
    const server = await heldServer();
    const transport = await connectWebSocketTransport(server.url);
    transports.push(transport);
    for (const size of [50_000, 100]) {
      const text = "y".repeat(size);
      const received = nextMessage(transport);
      server.send(textFrame(text));
      expect(await received).toBe(text);
    }
    // The nudge would fire 1 ms after a chunk that leaves a message incomplete; give it ample time.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.clientOpcodes).toEqual([]);
  });
});
