/**
 * `webbrain` entry: picks the command, parses its flags, runs it, maps errors to exit codes.
 *
 * Invariants:
 * - Every path ends in one exit code (see errors.ts); typed errors print their message alone,
 *   an unexpected error prints its stack so it can be reported.
 * - Command modules are imported lazily, so `--help` and usage errors never load a browser
 *   or a provider library.
 */
import { EXIT_DONE, EXIT_USAGE, type ExitCode, exitCodeFor, UsageError } from "../errors.js";
import { type CommandSpec, formatCommandHelp, type OptionSpecs, parseCommandArgs } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import { COMMANDS } from "./command-specs.js";

const VERSION = "0.1.0";

type CommandHandler = (
  positionals: string[],
  options: Record<string, unknown>,
  io: CliIo,
) => Promise<ExitCode>;

const HANDLERS: Record<string, () => Promise<CommandHandler>> = {
  run: async () => (await import("./run-command.js")).runCommandHandler as CommandHandler,
  snapshot: async () => (await import("./snapshot-command.js")).snapshotCommandHandler as CommandHandler,
  exec: async () => (await import("./exec-command.js")).execCommandHandler as CommandHandler,
  screenshot: async () =>
    (await import("./screenshot-command.js")).screenshotCommandHandler as CommandHandler,
  mcp: async () => (await import("./mcp-command.js")).mcpCommandHandler as CommandHandler,
  login: async () => (await import("./session-commands.js")).loginCommandHandler as CommandHandler,
  state: async () => (await import("./session-commands.js")).stateCommandHandler as CommandHandler,
  trace: async () => (await import("./trace-command.js")).traceCommandHandler as CommandHandler,
  workflow: async () => (await import("./workflow-command.js")).workflowCommandHandler as CommandHandler,
  record: async () => (await import("./record-command.js")).recordCommandHandler as CommandHandler,
  bench: async () => (await import("./bench-command.js")).benchCommandHandler as CommandHandler,
  companion: async () => (await import("./companion-command.js")).companionCommandHandler as CommandHandler,
};

export function formatMainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 4;
  const lines = [
    "Usage: webbrain <command> [flags]",
    "",
    "WebBrain drives Firefox over WebDriver BiDi: an LLM agent with trusted input, full-page",
    "screenshots, closed shadow roots and uploads.",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    "Run `webbrain <command> --help` for its flags. `webbrain --version` prints the version.",
    "Exit codes: 0 done, 1 not finished, 2 usage error, 3 browser or model unavailable.",
  ];
  return `${lines.join("\n")}\n`;
}

export async function main(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(formatMainHelp());
    return name === undefined ? EXIT_USAGE : EXIT_DONE;
  }
  if (name === "--version" || name === "-v") {
    io.stdout.write(`webbrain ${VERSION}\n`);
    return EXIT_DONE;
  }
  const spec = COMMANDS.find((c) => c.name === name) as CommandSpec<OptionSpecs> | undefined;
  const loadHandler = HANDLERS[name];
  try {
    if (!spec || !loadHandler) {
      throw new UsageError(
        `Unknown command "${name}". Commands: ${COMMANDS.map((c) => c.name).join(", ")}. Run \`webbrain --help\`.`,
      );
    }
    const parsed = parseCommandArgs(spec, rest);
    if (parsed.help) {
      io.stdout.write(formatCommandHelp(spec));
      return EXIT_DONE;
    }
    const handler = await loadHandler();
    return await handler(parsed.positionals, parsed.options, io);
  } catch (error) {
    const code = exitCodeFor(error);
    const known = error instanceof Error && "exitCode" in error;
    const text =
      error instanceof Error ? (known ? error.message : (error.stack ?? error.message)) : String(error);
    io.stderr.write(`webbrain: ${text}\n`);
    return code;
  }
}
