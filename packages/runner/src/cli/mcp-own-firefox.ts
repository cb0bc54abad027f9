import { attachSocketDir, ensurePrivateDir } from "../companion/attach-socket.js";
import { EXIT_DONE, EXIT_NOT_FINISHED, type ExitCode, UsageError } from "../errors.js";
import { createMcpServer, type McpToolSource } from "../mcp/mcp-server.js";
import { describe as describeTools, type McpToolSelection } from "../mcp/mcp-tool-groups.js";
import { OwnFirefoxLink } from "../mcp/own-firefox-link.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { mcpCommand } from "./command-specs.js";
import { serveMcpHttp } from "./mcp-http-serve.js";
import { serveOnStdio } from "./mcp-stdio.js";

type Options = ParsedOptions<typeof mcpCommand.options>;

/** Flags that mean nothing in the person's own Firefox (its mode and tabs are theirs to choose). */
const NOT_WITH_OWN_FIREFOX = [
  "connect",
  "webdriver",
  "headed",
  "firefox",
  "profile",
  "storage-state",
  "url",
  "skill",
  "zim",
  "confirm",
  "mode",
  "tier",
  "upload-dir",
  "attach",
  "allow-file-urls",
] as const satisfies readonly (keyof Options)[];

export function refuseOwnFirefoxFlags(options: Options): void {
  const flag = NOT_WITH_OWN_FIREFOX.find((name) => options[name] !== undefined && options[name] !== false);
  if (flag)
    throw new UsageError(
      `--${flag} does not apply with --own-firefox: the person chooses the tabs, the mode and what is allowed in the WebBrain sidebar.`,
    );
}

/** The link's tools as an MCP server's source: the add-on lists and runs them. */
function linkSource(link: OwnFirefoxLink): McpToolSource {
  return {
    browserTools: () => link.listTools(),
    skillTools: () => [],
    call: (name, args, { signal }) => link.callTool(name, args, signal),
    introduce: (client) => link.introduce(client),
  };
}

async function openLink(io: CliIo): Promise<OwnFirefoxLink> {
  const dir = attachSocketDir(io.env);
  await ensurePrivateDir(dir);
  return OwnFirefoxLink.open(dir);
}

/**
 * `--own-firefox --port N`: Streamable HTTP with the security of `mcp --port` (Host, Origin,
 * bearer token); each session opens a link of its own, which the person allows or not.
 */
export async function serveOwnFirefoxHttp(
  options: Options,
  tools: McpToolSelection,
  io: CliIo,
): Promise<ExitCode> {
  // Checked before the port is bound: no companion, no server.
  (await openLink(io)).close();
  let links = 0;
  const open = new Set<OwnFirefoxLink>();
  return serveMcpHttp(options, tools, "own-firefox tools", io, async () => ({
    description: "each session is allowed (or not) in the WebBrain sidebar",
    close: async () => {
      for (const link of open) link.close();
    },
    openBacking: async () => {
      const link = await openLink(io);
      open.add(link);
      return {
        label: `own-Firefox link ${++links}`,
        makeSource: () => linkSource(link),
        close: async () => {
          open.delete(link);
          link.close();
        },
      };
    },
  }));
}

export async function serveOwnFirefox(tools: McpToolSelection, io: CliIo): Promise<ExitCode> {
  const link = await openLink(io);
  const server = createMcpServer(() => linkSource(link), { confirm: false, tools });
  let revoked: string | undefined;
  void link.ended.then((reason) => {
    revoked = reason;
    io.stderr.write(`webbrain mcp: ${reason}\n`);
  });
  await serveOnStdio(
    server,
    io,
    `webbrain mcp: attached to your own Firefox through ${link.path} (listing ${describeTools(tools)}); allow this client in the WebBrain sidebar`,
  );
  link.close();
  return revoked === undefined ? EXIT_DONE : EXIT_NOT_FINISHED;
}
