/**
 * `webbrain companion serve` on the process's stdio, as Firefox runs it: messages in on stdin,
 * answers out on stdout (nothing else may be written there: Firefox would read it as a frame),
 * diagnostics on stderr (Firefox copies a host's stderr to its own).
 */
import type { CompanionEvent, CompanionResponse } from "@webbrain/protocol";
import type { CliIo } from "../cli/cli-io.js";
import { attachSocketDir } from "./attach-socket.js";
import { Companion, serveCompanion } from "./companion-host.js";
import { encodeNativeMessage, NativeMessageTooLargeError, readNativeMessages } from "./native-messaging.js";

export async function serveStdio(io: CliIo): Promise<void> {
  const send = (message: CompanionResponse | CompanionEvent) => {
    let frame: Buffer;
    try {
      frame = encodeNativeMessage(message);
    } catch (error) {
      // Events are bounded at the socket (attach-socket.ts), so only an answer can be too large.
      if (!(error instanceof NativeMessageTooLargeError) || !("id" in message)) throw error;
      frame = encodeNativeMessage({ id: message.id, ok: false, error: error.message });
    }
    io.stdout.write(frame);
  };
  await serveCompanion(
    readNativeMessages(io.stdin as AsyncIterable<Buffer>),
    send,
    new Companion({ env: io.env }),
    attachSocketDir(io.env),
  );
}
