/**
 * `webbrain companion serve` on the process's stdio, as Firefox runs it: messages in on stdin,
 * answers out on stdout (nothing else may be written there: Firefox would read it as a frame),
 * diagnostics on stderr (Firefox copies a host's stderr to its own).
 */
import type { CompanionResponse } from "@webbrain/protocol";
import type { CliIo } from "../cli/cli-io.js";
import { Companion, serveCompanion } from "./companion-host.js";
import { encodeNativeMessage, NativeMessageTooLargeError, readNativeMessages } from "./native-messaging.js";

export async function serveStdio(io: CliIo): Promise<void> {
  const send = (response: CompanionResponse) => {
    let frame: Buffer;
    try {
      frame = encodeNativeMessage(response);
    } catch (error) {
      if (!(error instanceof NativeMessageTooLargeError)) throw error;
      frame = encodeNativeMessage({ id: response.id, ok: false, error: error.message });
    }
    io.stdout.write(frame);
  };
  await serveCompanion(
    readNativeMessages(io.stdin as AsyncIterable<Buffer>),
    send,
    new Companion({ env: io.env }),
  );
}
