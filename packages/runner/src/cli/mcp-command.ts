/**
 * `webbrain mcp`: an MCP server on stdio until the client closes stdin (or Ctrl-C), over one
 * Firefox. stdout carries only MCP messages; anything for people goes to stderr.
 */

import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type BrowserPort, type MessagingRoute, RecipientGuard, type SkillDefinition } from "@webbrain/agent";
import { EXIT_DONE, type ExitCode } from "../errors.js";
import { SessionBrowser } from "../isolated-sessions.js";
import { startMcpHttpServer } from "../mcp-http-server.js";
import { createMcpServer } from "../mcp-server.js";
import { loadPageScript } from "../page-script-source.js";
import { withRunnerSession } from "../runner-session.js";
import { loadSkillFiles } from "../skill-files.js";
import { offeredTools, ToolRunner } from "../tool-runner.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { mcpCommand } from "./command-specs.js";
import { browserOptionsFrom, messagingRoutesFrom } from "./shared-options.js";

type Options = ParsedOptions<typeof mcpCommand.options>;

export async function mcpCommandHandler(
  _positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const mode = options.mode ?? "act";
  const tier = options.tier ?? "full";
  // Refuse Compact Dev, and malformed skills, before starting Firefox.
  offeredTools(mode, tier, true);
  const skills = await loadSkillFiles(options.skill ?? []);
  const routes = messagingRoutesFrom(options["messaging-route"]);
  if (options.port !== undefined) return serveHttp(options, skills, routes, io);
  return withRunnerSession<ExitCode>(
    {
      ...browserOptionsFrom(options),
      pageScript: loadPageScript,
      signal: io.signal,
      ...(options.url ? { url: options.url } : {}),
    },
    async ({ port, tabId, description }) => {
      const server = createMcpServer(
        (approver) =>
          new ToolRunner({
            port: guarded(port, routes),
            tabId,
            mode,
            tier,
            vision: true,
            advisoryGuards: true,
            skills,
            ...(approver ? { approver } : {}),
          }),
        options.confirm === true,
      );
      const closed = new Promise<void>((resolve) => {
        server.onclose = () => resolve();
        io.stdin.once("end", () => resolve());
        io.signal.addEventListener("abort", () => resolve(), { once: true });
      });
      await server.connect(new StdioServerTransport(io.stdin as Readable, io.stdout as Writable));
      const skillNote = skills.length > 0 ? ` and ${skills.length} skill(s)` : "";
      io.stderr.write(`webbrain mcp: serving ${mode}/${tier} tools${skillNote} on stdio; ${description}\n`);
      await closed;
      await server.close().catch(() => {});
      return EXIT_DONE;
    },
  );
}

/** `--port`: many MCP sessions over Streamable HTTP, each in its own user context of one Firefox. */
async function serveHttp(
  options: Options,
  skills: readonly SkillDefinition[],
  routes: readonly MessagingRoute[],
  io: CliIo,
): Promise<ExitCode> {
  const mode = options.mode ?? "act";
  const tier = options.tier ?? "full";
  const browser = await SessionBrowser.open({ ...browserOptionsFrom(options), pageScript: loadPageScript });
  try {
    const server = await startMcpHttpServer({
      browser,
      host: options.host ?? "127.0.0.1",
      port: options.port ?? 0,
      ...(options.url ? { url: options.url } : {}),
      confirm: options.confirm === true,
      makeRunner: (session, approver) =>
        new ToolRunner({
          port: guarded(session.port, routes),
          tabId: session.tabId,
          mode,
          tier,
          vision: true,
          advisoryGuards: true,
          skills,
          ...(approver ? { approver } : {}),
        }),
      log: (line) => io.stderr.write(`${line}\n`),
    });
    // The line a script or test waits for: where to connect.
    io.stderr.write(`webbrain mcp: serving ${mode}/${tier} tools at ${server.url}; ${browser.description}\n`);
    await new Promise<void>((resolve) => {
      if (io.signal.aborted) resolve();
      io.signal.addEventListener("abort", () => resolve(), { once: true });
      void browser.lost.then(() => resolve());
    });
    await server.close();
  } finally {
    await browser.close();
  }
  return EXIT_DONE;
}

/**
 * The recipient guard in front of an MCP session's port, as `webbrain run` has it. No plan ever
 * names a recipient over MCP, so a send on a protected messaging route is always refused (fail
 * closed); every other call passes unchanged.
 */
function guarded<P extends BrowserPort>(port: P, routes: readonly MessagingRoute[]): P {
  return new RecipientGuard(routes).wrap(port);
}
