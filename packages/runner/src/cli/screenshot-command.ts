/**
 * `webbrain screenshot <url> [--full] -o FILE`: a PNG of the viewport or the whole page.
 * The file is written to a temp name beside FILE and renamed, so FILE is never half-written.
 */
import { rename, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { EXIT_DONE, type ExitCode, UsageError } from "../errors.js";
import { withRunnerSession } from "../runner-session.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { screenshotCommand } from "./command-specs.js";
import { browserOptionsFrom } from "./shared-options.js";

type Options = ParsedOptions<typeof screenshotCommand.options>;

export async function screenshotCommandHandler(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const url = positionals[0]!;
  if (!options.out)
    throw new UsageError("Say where to write the PNG with -o FILE. Run `webbrain screenshot --help`.");
  const out = resolve(options.out);
  const shot = await withRunnerSession(
    { ...browserOptionsFrom(options), url, signal: io.signal },
    ({ port, tabId }) => port.screenshot(tabId, { full: options.full === true }),
  );
  const temp = `${out}.${process.pid}.part`;
  await writeFile(temp, Buffer.from(shot.dataBase64, "base64"));
  await rename(temp, out);
  io.stderr.write(`webbrain: wrote ${out} (${shot.width ?? "?"}x${shot.height ?? "?"} px)\n`);
  return EXIT_DONE;
}
