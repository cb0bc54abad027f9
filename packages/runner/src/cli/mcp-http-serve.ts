/**
 * `webbrain mcp --port`'s life, whatever its sessions run on (a Firefox of ours, or the person's
 * own): settings checked and the port bound first, then the backing opened, then served until
 * Ctrl-C or the backing is lost.
 */
import { EXIT_DONE, type ExitCode } from "../errors.js";
import { AccessPolicy } from "../mcp/mcp-http-access.js";
import { listenForMcp } from "../mcp/mcp-http-listener.js";
import { type McpSessionBacking, startMcpHttpServer } from "../mcp/mcp-http-server.js";
import { describe as describeTools, type McpToolSelection } from "../mcp/mcp-tool-groups.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { mcpCommand } from "./command-specs.js";
import { exposureWarning, resolveMcpHttpSettings } from "./mcp-http-settings.js";

type Options = ParsedOptions<typeof mcpCommand.options>;

/** Where an HTTP server's sessions run: opened once the port is bound, closed when it stops. */
export interface McpHttpBackings {
  description: string;
  /** Resolves when the backing is gone for good (our Firefox died): the server stops. */
  lost?: Promise<unknown>;
  openBacking: () => Promise<McpSessionBacking>;
  close(): Promise<void>;
}

/**
 * The HTTP server's life: settings checked and the port bound first, then `open` (Firefox, or
 * the person's own), until Ctrl-C or the backing is lost.
 */
export async function serveMcpHttp(
  options: Options,
  tools: McpToolSelection,
  what: string,
  io: CliIo,
  open: () => Promise<McpHttpBackings>,
): Promise<ExitCode> {
  const settings = await resolveMcpHttpSettings(options);
  const listener = await listenForMcp(settings.address, settings.port);
  const log = (line: string) => io.stderr.write(`${line}\n`);
  const warning = exposureWarning(settings);
  if (warning) log(warning);
  let backings: McpHttpBackings;
  try {
    backings = await open();
  } catch (error) {
    await listener.close();
    throw error;
  }
  try {
    const server = startMcpHttpServer({
      listener,
      openBacking: backings.openBacking,
      access: new AccessPolicy({
        port: listener.port,
        listenHosts: [settings.host, settings.address],
        extraHosts: settings.extraHosts,
        extraOrigins: settings.extraOrigins,
        token: settings.token,
      }),
      maxSessions: settings.maxSessions,
      idleTimeoutMs: settings.idleTimeoutMs,
      confirm: options.confirm === true,
      tools,
      log,
    });
    // Shown once: the only place a generated token appears. Clients send it on every request.
    if (settings.tokenGenerated)
      log(`webbrain mcp: token for this start: ${settings.token} (send \`Authorization: Bearer TOKEN\`)`);
    // The line a script or test waits for: where to connect.
    log(
      `webbrain mcp: serving ${what} at ${server.url}; listing ${describeTools(tools)}; ${backings.description}`,
    );
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      io.signal.addEventListener("abort", () => resolve(), { once: true });
      void backings.lost?.then(() => resolve());
    });
    await server.close();
  } finally {
    await backings.close();
  }
  return EXIT_DONE;
}
