/**
 * Files that may hold what a user would not show others (traces, saved workflows, the approved
 * workflow list): readable by the user alone (mode 0600), and written whole: the text goes to a
 * temp file beside the target, which then replaces it by rename, so a reader never sees half a
 * file and an older file's wider mode is not kept.
 */
import { chmod, open, rename, rm } from "node:fs/promises";

/** Owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;

export async function writePrivateFile(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
  const file = await open(temp, "wx", PRIVATE_FILE_MODE);
  try {
    await file.writeFile(text);
    // The umask may only narrow the mode, but a file system may ignore it: say it outright.
    await file.chmod(PRIVATE_FILE_MODE);
  } finally {
    await file.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Narrows an existing file to PRIVATE_FILE_MODE. */
export async function makePrivate(path: string): Promise<void> {
  await chmod(path, PRIVATE_FILE_MODE);
}
