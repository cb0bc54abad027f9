/**
 * One JSON value per line over a socket (the companion's socket for `mcp --own-firefox`, both
 * ends). A line that is not JSON is skipped; a line still growing past `maxLineBytes` (when
 * given) calls `onTooLong` once, and nothing more is read from it.
 */
import type { Socket } from "node:net";

export interface JsonLineOptions {
  maxLineBytes?: number;
  onTooLong?: () => void;
}

export function readJsonLines(
  socket: Socket,
  onValue: (value: unknown) => void,
  options: JsonLineOptions = {},
): void {
  let pending = "";
  let overflowed = false;
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    if (overflowed) return;
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      onValue(value);
    }
    if (options.maxLineBytes !== undefined && Buffer.byteLength(pending) > options.maxLineBytes) {
      overflowed = true;
      pending = "";
      options.onTooLong?.();
    }
  });
}
