/**
 * An MCP server's life on stdio, for `webbrain mcp` (a Firefox of ours) and `mcp --own-firefox`:
 * it serves until the client closes stdin, the server closes, or Ctrl-C. stdout carries only MCP
 * messages; `startedLine` (what scripts wait for) goes to stderr once the transport is up.
 */
import type { Readable, Writable } from "node:stream";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CliIo } from "./cli-io.js";

export async function serveOnStdio(server: Server, io: CliIo, startedLine: string): Promise<void> {
  // Set before connect: the server chains its own onclose after this one.
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    io.stdin.once("end", () => resolve());
    io.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await server.connect(new StdioServerTransport(io.stdin as Readable, io.stdout as Writable));
  io.stderr.write(`${startedLine}\n`);
  await closed;
  await server.close().catch(() => {});
}
