/**
 * `webbrain trace show FILE`: a recorded run as the timeline the add-on's traces page shows, or
 * with `--html OUT` as its filmstrip page (trace-filmstrip.ts in @webbrain/agent, the add-on's
 * renderer too).
 */
import { resolve } from "node:path";
import { formatTimeline, summarizeTrace, traceFilmstripHtml, traceTimeline } from "@webbrain/agent";
import { EXIT_DONE, type ExitCode, UsageError } from "../errors.js";
import { writePrivateFile } from "../run/private-file.js";
import { readTraceFile } from "../run/trace-writer.js";
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
  if (options.html !== undefined) {
    const out = resolve(options.html);
    // Private like the trace it comes from: both show what the pages showed.
    await writePrivateFile(out, traceFilmstripHtml(records)).catch((error: Error) => {
      throw new UsageError(`--html ${options.html}: cannot write there (${error.message}).`);
    });
    io.stderr.write(`webbrain: wrote the run's filmstrip to ${out}\n`);
    return EXIT_DONE;
  }
  if (options.json) {
    const steps = traceTimeline(records).map(({ images, shot, ...step }) => ({
      ...step,
      screenshots: images.length,
      ...(shot ? { shotBytes: shot.bytes } : {}),
    }));
    io.stdout.write(`${JSON.stringify({ summary: summarizeTrace(records), steps })}\n`);
  } else {
    io.stdout.write(formatTimeline(records, { details: options.details === true }));
  }
  return EXIT_DONE;
}
