/**
 * `webbrain exec <url>`: tool calls as JSON lines on stdin, one JSON answer per line on stdout.
 *
 * Invariants:
 * - Calls run strictly in order; each answer is written and flushed before the next line is
 *   read, so a script can read a ref from one answer before it writes the next call.
 * - A bad line (not JSON, no "tool") gets an answer with `success: false` and the run goes on;
 *   only a dead browser ends it early (exit 3).
 * - Exit 0 when every call succeeded, 1 when any failed.
 */
import { createInterface } from "node:readline";
import { withRunnerSession } from "../browser/runner-session.js";
import { EXIT_DONE, EXIT_NOT_FINISHED, type ExitCode } from "../errors.js";
import { loadPageScript } from "../port/page-script-source.js";
import { offeredTools, type ToolAnswer, ToolRunner } from "../tools/tool-runner.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { execCommand } from "./command-specs.js";
import { browserOptionsFrom } from "./shared-options.js";

type Options = ParsedOptions<typeof execCommand.options>;

interface ExecLine {
  tool: string;
  args: Record<string, unknown>;
}

export async function execCommandHandler(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const url = positionals[0]!;
  const mode = options.mode ?? "act";
  const tier = options.tier ?? "full";
  offeredTools(mode, tier, true); // Compact Dev is refused before Firefox starts.
  return withRunnerSession(
    { ...browserOptionsFrom(options), pageScript: loadPageScript, url, signal: io.signal },
    async ({ port, tabId }) => {
      const runner = new ToolRunner({
        port,
        tabId,
        mode,
        tier,
        vision: true,
      });
      let allOk = true;
      let lineNumber = 0;
      const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of lines) {
        lineNumber++;
        if (!line.trim()) continue;
        const parsed = parseLine(line, lineNumber);
        const answer =
          "error" in parsed
            ? { tool: null, result: { success: false, error: parsed.error } }
            : await run(runner, parsed);
        if (answer.result.success !== true) allOk = false;
        await writeLine(io.stdout, JSON.stringify(answer));
      }
      return allOk ? EXIT_DONE : EXIT_NOT_FINISHED;
    },
  );
}

async function run(runner: ToolRunner, call: ExecLine) {
  const answer: ToolAnswer = await runner.call(call.tool, call.args);
  return {
    tool: call.tool,
    result: answer.result,
    text: answer.text,
    ...(answer.images.length ? { images: answer.images } : {}),
    ...(answer.end ? { end: answer.end } : {}),
  };
}

function parseLine(line: string, lineNumber: number): ExecLine | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return {
      error: `line ${lineNumber} is not JSON (${(error as Error).message}); write {"tool": NAME, "args": {...}}.`,
    };
  }
  const record =
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  if (typeof record.tool !== "string" || !record.tool) {
    return { error: `line ${lineNumber} has no "tool"; write {"tool": NAME, "args": {...}}.` };
  }
  const args = record.args ?? {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { error: `line ${lineNumber}: "args" must be a JSON object.` };
  }
  return { tool: record.tool, args: args as Record<string, unknown> };
}

/** Resolves once the line is handed to the OS, so answers arrive one by one, not batched. */
function writeLine(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.write(`${text}\n`, (error) => (error ? reject(error) : resolve()));
  });
}
