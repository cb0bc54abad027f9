import {
  type BrowserPort,
  type MessagingRoute,
  type PermissionApprover,
  RecipientGuard,
  type SkillDefinition,
} from "@webbrain/agent";
import { SessionBrowser } from "../browser/isolated-sessions.js";
import { withRunnerSession } from "../browser/runner-session.js";
import { EXIT_DONE, type ExitCode, UsageError } from "../errors.js";
import { userContextBackings } from "../mcp/mcp-http-server.js";
import { createMcpServer, runnerToolSource } from "../mcp/mcp-server.js";
import {
  describe as describeTools,
  type McpToolSelection,
  parseMcpToolSelection,
} from "../mcp/mcp-tool-groups.js";
import { loadPageScript } from "../port/page-script-source.js";
import type { SkillNetwork } from "../run/offline-wikipedia-file.js";
import { loadSkillFiles } from "../run/skill-files.js";
import { offeredTools, ToolRunner } from "../tools/tool-runner.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { mcpCommand } from "./command-specs.js";
import { serveMcpHttp } from "./mcp-http-serve.js";
import { refuseOwnFirefoxFlags, serveOwnFirefox, serveOwnFirefoxHttp } from "./mcp-own-firefox.js";
import { serveOnStdio } from "./mcp-stdio.js";
import { browserOptionsFrom, messagingRoutesFrom, skillNetworkFrom } from "./shared-options.js";

type Options = ParsedOptions<typeof mcpCommand.options>;

const HTTP_ONLY_FLAGS = [
  "host",
  "token-file",
  "allow-origin",
  "allow-host",
  "session-idle-timeout",
  "max-sessions",
] as const satisfies readonly (keyof Options)[];

export async function mcpCommandHandler(
  _positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const httpOnly = HTTP_ONLY_FLAGS.find((flag) => options[flag] !== undefined);
  if (options.port === undefined && httpOnly)
    throw new UsageError(`--${httpOnly} only applies with --port (MCP over HTTP).`);
  if (options["own-firefox"]) {
    refuseOwnFirefoxFlags(options);
    const selection = parseMcpToolSelection(options.tools, "act");
    if (options.port !== undefined) return serveOwnFirefoxHttp(options, selection, io);
    return serveOwnFirefox(selection, io);
  }
  const mode = options.mode ?? "act";
  const tier = options.tier ?? "full";
  // Refuse Compact Dev, unknown tool groups and malformed skills before starting Firefox.
  offeredTools(mode, tier, true);
  const tools = parseMcpToolSelection(options.tools, mode);
  const skills = await loadSkillFiles(options.skill ?? []);
  const routes = messagingRoutesFrom(options["messaging-route"]);
  // --zim is checked before Firefox starts, and serves every session; closed when the server ends.
  const network = await skillNetworkFrom(options, skills);
  try {
    if (options.port !== undefined) return await serveHttp(options, tools, skills, routes, network, io);
    return await serveStdio(options, tools, skills, routes, network, io);
  } finally {
    await network.close();
  }
}

/** MCP on stdio until the client closes stdin (or Ctrl-C), over one Firefox. */
async function serveStdio(
  options: Options,
  tools: McpToolSelection,
  skills: readonly SkillDefinition[],
  routes: readonly MessagingRoute[],
  network: SkillNetwork,
  io: CliIo,
): Promise<ExitCode> {
  const mode = options.mode ?? "act";
  const tier = options.tier ?? "full";
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
          runnerToolSource(mcpToolRunner({ port, tabId }, options, skills, routes, network, approver)),
        { confirm: options.confirm === true, tools },
      );
      const skillNote = skills.length > 0 ? ` and ${skills.length} skill(s)` : "";
      const fallback = network.description ? `; ${network.description}` : "";
      await serveOnStdio(
        server,
        io,
        `webbrain mcp: serving ${mode}/${tier} tools${skillNote}${fallback} on stdio (listing ${describeTools(tools)}); ${description}`,
      );
      return EXIT_DONE;
    },
  );
}

/**
 * `--port`: many MCP sessions over Streamable HTTP, each in its own user context of one Firefox.
 * Flags are checked and the port is bound before Firefox starts, so a bad host, port or token
 * file costs no browser launch.
 */
async function serveHttp(
  options: Options,
  tools: McpToolSelection,
  skills: readonly SkillDefinition[],
  routes: readonly MessagingRoute[],
  network: SkillNetwork,
  io: CliIo,
): Promise<ExitCode> {
  const mode = options.mode ?? "act";
  const tier = options.tier ?? "full";
  return serveMcpHttp(options, tools, `${mode}/${tier} tools`, io, async () => {
    const browser = await SessionBrowser.open({ ...browserOptionsFrom(options), pageScript: loadPageScript });
    return {
      description: browser.description,
      lost: browser.lost,
      close: () => browser.close(),
      openBacking: userContextBackings(browser, options.url, (session, approver) =>
        mcpToolRunner(session, options, skills, routes, network, approver),
      ),
    };
  });
}

/**
 * One MCP session's tools over its tab: the mode and tier asked for, images on (MCP clients take
 * them), guards that warn and never refuse (the client is the agent), skills, and the recipient
 * guard.
 */
function mcpToolRunner(
  session: { port: BrowserPort; tabId: string },
  options: Options,
  skills: readonly SkillDefinition[],
  routes: readonly MessagingRoute[],
  network: SkillNetwork,
  approver: PermissionApprover | undefined,
): ToolRunner {
  return new ToolRunner({
    port: guarded(session.port, routes),
    tabId: session.tabId,
    mode: options.mode ?? "act",
    tier: options.tier ?? "full",
    vision: true,
    advisoryGuards: true,
    skills,
    skillHttp: network.http,
    ...(approver ? { approver } : {}),
  });
}

/**
 * The recipient guard in front of an MCP session's port, as `webbrain run` has it. No plan ever
 * names a recipient over MCP, so a send on a protected messaging route is always refused (fail
 * closed); every other call passes unchanged.
 */
function guarded<P extends BrowserPort>(port: P, routes: readonly MessagingRoute[]): P {
  return new RecipientGuard(routes).wrap(port);
}
