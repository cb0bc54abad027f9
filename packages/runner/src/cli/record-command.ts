/**
 * `webbrain record URL --out FILE`: a person's demonstration as a saved workflow. Firefox opens
 * URL (in a window, unless --headless); the person works there; each action becomes a step
 * (person-recording.ts, @webbrain/agent WorkflowRecording) and is printed on stderr as it comes.
 *
 * Invariants:
 * - The recording ends on Ctrl-C (SIGINT: the command's signal), the end shortcut in the page,
 *   the tab closed, or Firefox gone (the window closed): each way, the steps so far are saved.
 * - FILE is written whole or not at all (writePrivateFile: 0600, a temp file renamed) and only
 *   once the recording has ended; a recording with no step writes nothing and exits 1.
 * - A password typed during the recording is in no file: the page layer never sends it.
 * - What this runner recorded it may replay without asking (approved as saved, by its hash).
 */
import { resolve } from "node:path";
import { serializeWorkflow, WorkflowError, WorkflowRecording } from "@webbrain/agent";
import { RECORDING_END_SHORTCUT } from "@webbrain/protocol";
import { checkCommandLineUrl, withRunnerSession } from "../browser/runner-session.js";
import {
  BrowserUnavailableError,
  EXIT_DONE,
  EXIT_NOT_FINISHED,
  type ExitCode,
  TaskFailedError,
  UsageError,
} from "../errors.js";
import { normalizeUrl } from "../port/bidi-browser-port.js";
import { loadPageScript } from "../port/page-script-source.js";
import { PersonRecording, type RecordingEnd } from "../run/person-recording.js";
import { writePrivateFile } from "../run/private-file.js";
import { WorkflowApprovals } from "../run/workflow-approvals.js";
import type { ParsedOptions } from "./argv-parser.js";
import type { CliIo } from "./cli-io.js";
import type { recordCommand } from "./command-specs.js";
import { checkOutputFolder } from "./screenshot-command.js";
import { browserOptionsFrom } from "./shared-options.js";
import { paramsLine } from "./workflow-command.js";

type Options = ParsedOptions<typeof recordCommand.options>;

type Ending = RecordingEnd | "interrupted" | "browser gone";

export async function recordCommandHandler(
  positionals: string[],
  options: Options,
  io: CliIo,
): Promise<ExitCode> {
  const url = positionals[0]!;
  if (!options.out) {
    throw new UsageError("Say where to write the workflow with --out FILE. Run `webbrain record --help`.");
  }
  const out = resolve(options.out);
  await checkOutputFolder(out);
  const browser = browserOptionsFrom({ ...options, headed: options.headless !== true });
  checkCommandLineUrl(url, browser.localFiles);
  const startUrl = normalizeUrl(url) ?? url;
  const recording = new WorkflowRecording(startUrl);
  const say = (line: string) => io.stderr.write(`webbrain: ${line}\n`);

  let ending: Ending;
  try {
    // No signal for the session: Ctrl-C ends the recording, which is then saved.
    ending = await withRunnerSession({ ...browser, pageScript: loadPageScript }, async ({ port, tabId }) => {
      const person = new PersonRecording(port.client, port.contexts, tabId, recording, say);
      try {
        await person.install();
        const opened = await port.navigate(tabId, startUrl);
        if (!opened.success) throw new TaskFailedError(String(opened.error));
        person.followNavigations();
        say(
          `recording on ${startUrl}: work in the Firefox window; press ${RECORDING_END_SHORTCUT} there, close the tab, or Ctrl-C here to stop and save ${options.out}.`,
        );
        return await Promise.race([person.ended, interrupted(io.signal)]);
      } finally {
        await person.dispose();
      }
    });
  } catch (error) {
    // The window closed quits Firefox: what was recorded until then is still the person's work.
    if (!(error instanceof BrowserUnavailableError) || recording.steps === 0) throw error;
    ending = "browser gone";
  }
  return save(recording, out, options, ending, io);
}

function interrupted(signal: AbortSignal): Promise<Ending> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve("interrupted");
    signal.addEventListener("abort", () => resolve("interrupted"), { once: true });
  });
}

async function save(
  recording: WorkflowRecording,
  out: string,
  options: Options,
  ending: Ending,
  io: CliIo,
): Promise<ExitCode> {
  let text: string;
  let described: string;
  try {
    const workflow = recording.toWorkflow(options.name ? { name: options.name } : {});
    text = serializeWorkflow(workflow);
    described = paramsLine(workflow);
  } catch (error) {
    if (!(error instanceof WorkflowError)) throw error;
    io.stderr.write(`webbrain: recording ended (${ending}); ${error.message} Nothing was written.\n`);
    return EXIT_NOT_FINISHED;
  }
  await writePrivateFile(out, text);
  await new WorkflowApprovals(io.env).approve(text, "saved", out);
  const skipped = recording.skipped
    ? ` (${recording.skipped} actions on unnamed parts of the page left out)`
    : "";
  io.stderr.write(
    `webbrain: recording ended (${ending}); saved ${recording.steps} steps to ${options.out}${skipped}; parameters: ${described}\n`,
  );
  return EXIT_DONE;
}
