/**
 * One CLI command's browser: a connection, the BrowserPort on it, the tab the agent works in,
 * and a downloads folder, all released together.
 *
 * Invariants:
 * - `withRunnerSession` always closes what it opened (Firefox, profile, downloads folder), on
 *   success, failure, Ctrl-C, or Firefox dying.
 * - If the browser goes away while the command runs, the command's promise is abandoned and a
 *   BrowserUnavailableError saying so is thrown at once (exit code 3), instead of waiting for
 *   timeouts. A command that reports the loss itself (`finishOnBrowserLoss`: run's --json
 *   summary) is told through `browserLost` and given LOST_GRACE_MS to return its report.
 */
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { documentRefusal, urlRefusal } from "@webbrain/agent";
import { BrowserUnavailableError, TaskFailedError, UsageError } from "../errors.js";
import { BidiBrowserPort, normalizeUrl } from "../port/bidi-browser-port.js";
import { browserGoneMessage } from "../port/browser-gone.js";
import type { PersonAtHand } from "../run/wait-for-person.js";
import { localFileAccess, type RunnerLocalFiles } from "../tools/local-files.js";
import { type BrowserConnectionOptions, openBrowserConnection } from "./browser-connection.js";
import type { DialogPolicy } from "./dialog-handler.js";
import { checkStorageStateFile, loadStorageState } from "./storage-state.js";

export interface RunnerSessionOptions extends BrowserConnectionOptions {
  /** The page layer script (IIFE); omitted by commands that never touch the page (screenshot). */
  pageScript?: () => Promise<string>;
  /** Open this page first; a page that does not load fails the command. */
  url?: string;
  dialogPolicy?: DialogPolicy;
  signal?: AbortSignal;
  /** Load cookies and local storage from this file (storage-state.ts) before opening `url`. */
  storageState?: string;
  /** Someone who can take over the browser now (offers pause_for_user). */
  person?: PersonAtHand;
  /** Size limit of one download (`--max-download-mb`). */
  maxDownloadBytes?: number;
  /** The body ends its own work when `browserLost` fires and returns a report of it. */
  finishOnBrowserLoss?: boolean;
  /** What the user allowed of their files (--allow-file-urls, --upload-dir, --attach). */
  localFiles?: RunnerLocalFiles;
}

/**
 * A URL from the command line (a positional, --url), checked before Firefox starts: a refused
 * one (javascript:, file: without --allow-file-urls) is a one-line UsageError at once.
 */
export function checkCommandLineUrl(url: string, localFiles: RunnerLocalFiles | undefined): void {
  const refusal = urlRefusal(normalizeUrl(url) ?? url, localFileAccess(localFiles));
  if (refusal) throw new UsageError(refusal.message);
}

export interface RunnerSession {
  port: BidiBrowserPort;
  /** The tab the command works in. */
  tabId: string;
  description: string;
  /** Aborted, with the reason, once the browser goes away without our asking. */
  browserLost: AbortSignal;
}

/** How long a `finishOnBrowserLoss` body may take to return its report once the browser is gone. */
const LOST_GRACE_MS = 10_000;

/** Prefix of per-run download folders in the OS temp dir. */
const DOWNLOADS_DIR_PREFIX = "webbrain-downloads-";

export async function withRunnerSession<T>(
  opts: RunnerSessionOptions,
  body: (session: RunnerSession) => Promise<T>,
): Promise<T> {
  opts.signal?.throwIfAborted();
  // Checked before Firefox starts: a bad file is a usage error, not a launch and a stack trace.
  if (opts.storageState) await checkStorageStateFile(opts.storageState);
  if (opts.url) checkCommandLineUrl(opts.url, opts.localFiles);
  const pageScript = opts.pageScript ? await opts.pageScript() : "";
  const connection = await openBrowserConnection(opts);
  // Created by the first download only: most runs download nothing and leave nothing behind.
  const downloadsDir = join(tmpdir(), `${DOWNLOADS_DIR_PREFIX}${randomUUID()}`);
  let port: BidiBrowserPort | undefined;
  const browserLost = new AbortController();
  let graceTimer: NodeJS.Timeout | undefined;
  const lost = connection.lost.then(async (reason) => {
    browserLost.abort(reason);
    if (opts.finishOnBrowserLoss)
      await new Promise((resolve) => (graceTimer = setTimeout(resolve, LOST_GRACE_MS)));
    throw new BrowserUnavailableError(browserGoneMessage(reason));
  });
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = () => reject(new TaskFailedError("Stopped by the user (interrupted)."));
    if (opts.signal?.aborted) onAbort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
  });
  const work = (async () => {
    port = await BidiBrowserPort.open({
      client: connection.client,
      pageScript,
      downloadsDir,
      ...(opts.maxDownloadBytes ? { maxDownloadBytes: opts.maxDownloadBytes } : {}),
      ownsBrowser: !opts.connect && !opts.webdriver,
      ...(opts.dialogPolicy ? { dialogPolicy: opts.dialogPolicy } : {}),
      ...(opts.person ? { person: opts.person } : {}),
      ...(opts.localFiles ? { localFiles: opts.localFiles } : {}),
    });
    const tabId = port.tabs.activeId!;
    if (opts.storageState) await loadStorageState(connection.client, tabId, opts.storageState);
    if (opts.url) {
      const opened = await port.navigate(tabId, opts.url);
      if (!opened.success) throw new TaskFailedError(String(opened.error));
      // A redirect may land on a document the user did not allow: nothing of it is read.
      const landed = documentRefusal(String(opened.url ?? ""), port.localFiles);
      if (landed) throw new TaskFailedError(landed.message);
    }
    return body({ port, tabId, description: connection.description, browserLost: browserLost.signal });
  })().catch((error: unknown) => {
    // What fails because the browser went away is that loss, whatever the failed call said.
    if (browserLost.signal.aborted)
      throw new BrowserUnavailableError(browserGoneMessage(browserLost.signal.reason as Error));
    throw error;
  });
  try {
    return await Promise.race([work, lost, aborted]);
  } finally {
    clearTimeout(graceTimer);
    // The abandoned work may still reject once the connection closes; that is expected.
    work.catch(() => {});
    lost.catch(() => {});
    aborted.catch(() => {});
    // Removed first: closing Firefox takes seconds, and a caller (an MCP client) may kill us.
    await rm(downloadsDir, { recursive: true, force: true });
    // A Firefox we connected to is someone else's: leave it as we found it.
    if (port && (opts.connect || opts.webdriver) && !connection.client.closed) await port.closeOwnTabs();
    port?.dispose();
    await connection.close().catch(() => {});
  }
}
