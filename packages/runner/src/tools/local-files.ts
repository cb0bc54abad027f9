/**
 * The user's files as the runner lets the agent reach them: file: URLs only with
 * `--allow-file-urls`, uploads only of files the user gave for the run (`--upload-dir DIR`,
 * `--attach FILE`) or the run's own downloads.
 *
 * Invariants:
 * - Every path is resolved (realpath: `..` and symlinks followed) before it is compared, so
 *   `DIR/../../etc/passwd` and a symlink in DIR that points out of it are refused.
 * - Flags are checked when the command starts, before Firefox does: a missing DIR or FILE is
 *   a UsageError (exit 2), as is a URL on the command line that the URL policy refuses.
 */
import { realpathSync, statSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { LocalFileAccess } from "@webbrain/agent";
import { UsageError } from "../errors.js";

/** What the user gave on the command line for local files. */
export interface RunnerLocalFiles {
  allowFileUrls: boolean;
  /** Real paths of `--upload-dir` folders. */
  uploadDirs: readonly string[];
  /** Real paths of `--attach` files. */
  attachments: readonly string[];
}

export const NO_RUNNER_LOCAL_FILES: RunnerLocalFiles = {
  allowFileUrls: false,
  uploadDirs: [],
  attachments: [],
};

/** The URL policy's view of the flags, with the refusal's hint. */
export function localFileAccess(files: RunnerLocalFiles | undefined): LocalFileAccess {
  return {
    allowFileUrls: files?.allowFileUrls === true,
    howToAllow: "To allow them, run webbrain with --allow-file-urls.",
  };
}

function realPathOf(path: string, flag: string, kind: "dir" | "file"): string {
  let stats: ReturnType<typeof statSync>;
  let real: string;
  try {
    real = realpathSync(resolve(path));
    stats = statSync(real);
  } catch {
    throw new UsageError(`${flag} ${path}: no such ${kind === "dir" ? "folder" : "file"}.`);
  }
  if (kind === "dir" && !stats.isDirectory()) throw new UsageError(`${flag} ${path} is not a folder.`);
  if (kind === "file" && !stats.isFile()) throw new UsageError(`${flag} ${path} is not a file.`);
  return real;
}

/** The flags as parsed, checked: every folder and file must exist. */
export function runnerLocalFilesFrom(options: {
  "allow-file-urls"?: boolean;
  "upload-dir"?: readonly string[];
  attach?: readonly string[];
}): RunnerLocalFiles {
  return {
    allowFileUrls: options["allow-file-urls"] === true,
    uploadDirs: (options["upload-dir"] ?? []).map((dir) => realPathOf(dir, "--upload-dir", "dir")),
    attachments: (options.attach ?? []).map((file) => realPathOf(file, "--attach", "file")),
  };
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

export type UploadCheck = { ok: true; path: string } | { ok: false; error: string };

/**
 * Whether upload_file may send `path`: a real file inside an upload folder, one of the attached
 * files, or a file in the run's own downloads folder. Relative paths are read against each
 * upload folder first (what the user meant by "a file in DIR"), then the working directory.
 */
export async function checkUploadPath(
  path: string,
  files: RunnerLocalFiles | undefined,
  downloadsDir: string,
): Promise<UploadCheck> {
  const given = files ?? NO_RUNNER_LOCAL_FILES;
  const candidates = isAbsolute(path)
    ? [path]
    : [...given.uploadDirs.map((dir) => resolve(dir, path)), resolve(path)];
  const downloads = await realpath(downloadsDir).catch(() => resolve(downloadsDir));
  const allowed = (real: string) =>
    given.attachments.includes(real) || [...given.uploadDirs, downloads].some((dir) => inside(dir, real));
  const refused: UploadCheck = {
    ok: false,
    error: `Refused: ${path} is not a file the user gave for this run. upload_file sends only files under --upload-dir DIR, files given with --attach FILE, or this run's downloads (downloadId); ask the user to run webbrain with one of those flags.`,
  };
  let missing: Error | undefined;
  for (const candidate of candidates) {
    let real: string;
    try {
      real = await realpath(candidate);
    } catch (error) {
      // Say "not found" only where the user allowed uploads: elsewhere that would tell the
      // model which of the user's files exist.
      if (allowed(resolve(candidate))) missing ??= error as Error;
      continue;
    }
    return allowed(real) ? { ok: true, path: real } : refused;
  }
  return missing ? { ok: false, error: `Cannot upload: ${missing.message}` } : refused;
}
