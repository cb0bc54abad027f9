/**
 * `webbrain screenshot <url> [--full] -o FILE`: a PNG of the viewport or the whole page.
 * The file is written to a temp name beside FILE and renamed, so FILE is never half-written.
 */
import { rename, stat, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { withRunnerSession } from "../browser/runner-session.js";
import { EXIT_DONE, type ExitCode, TaskFailedError, UsageError } from "../errors.js";
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
  await checkOutputFolder(out);
  const shot = await withRunnerSession(
    { ...browserOptionsFrom(options), url, signal: io.signal },
    ({ port, tabId }) => port.screenshot(tabId, { full: options.full === true }),
  );
  const temp = `${out}.${process.pid}.part`;
  try {
    await writeFile(temp, Buffer.from(shot.dataBase64, "base64"));
    await rename(temp, out);
  } catch (error) {
    throw new TaskFailedError(`Cannot write ${out}: ${(error as NodeJS.ErrnoException).code ?? error}.`);
  }
  io.stderr.write(`webbrain: wrote ${out} (${shot.width ?? "?"}x${shot.height ?? "?"} px)\n`);
  return EXIT_DONE;
}

/** -o FILE's folder must exist before Firefox starts: a typo there costs no launch. */
export async function checkOutputFolder(out: string): Promise<void> {
  const folder = dirname(out);
  const found = await stat(folder).catch(() => undefined);
  if (!found)
    throw new UsageError(`-o ${out}: the folder ${folder} does not exist; create it or write elsewhere.`);
  if (!found.isDirectory()) throw new UsageError(`-o ${out}: ${folder} is not a folder.`);
}
