/**
 * `webbrain trace show FILE`: a recorded run as the timeline the add-on's traces page shows.
 */
import { resolve } from "node:path";
import { formatTimeline, summarizeTrace, traceTimeline } from "@webbrain/agent";
import { EXIT_DONE, type ExitCode, UsageError } from "../errors.js";
import { readTraceFile } from "../trace-writer.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { traceCommand } from "./workflow-specs.js";

type Options = ParsedOptions<typeof traceCommand.options>;

export async function traceCommandHandler(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const [action, file] = positionals;
  if (action !== "show") {
    throw new UsageError(`Unknown trace action "${action}"; use \`webbrain trace show FILE\`.`);
  }
  const records = await readTraceFile(resolve(file!));
  if (options.json) {
    const steps = traceTimeline(records).map(({ images, ...step }) => ({
      ...step,
      screenshots: images.length,
    }));
    io.stdout.write(`${JSON.stringify({ summary: summarizeTrace(records), steps })}\n`);
  } else {
    io.stdout.write(formatTimeline(records, { details: options.details === true }));
  }
  return EXIT_DONE;
}
