/**
 * Storage state: a session's cookies and local storage as one JSON file, saved from a browser
 * and loaded into another (`webbrain state save FILE`, `--storage-state FILE`).
 *
 * The file has Playwright's storageState shape, so a file written by either tool loads in the
 * other: `{cookies: [{name, value, domain, path, expires, httpOnly, secure, sameSite}],
 * origins: [{origin, localStorage: [{name, value}]}]}` (`expires` in seconds, -1 = session).
 *
 * Invariants:
 * - Cookies go through BiDi `storage.getCookies` / `storage.setCookie`, in the user context the
 *   session works in (the default one unless given), so they land where its tabs read them.
 * - Local storage is read and written by script in a tab showing that origin: it has no BiDi
 *   command. Loading navigates the given tab to each origin and leaves it on about:blank.
 * - A file that is not a storage state is a StorageStateError naming the file and what is wrong;
 *   commands check it with `checkStorageStateFile` before Firefox starts (a usage error, exit 2).
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import type { BidiClient } from "@webbrain/bidi";
import type * as Bidi from "webdriver-bidi-protocol";
import { UsageError } from "../errors.js";

export interface StoredCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Seconds since the epoch; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: "Strict" | "Lax" | "None";
}

export interface StoredOrigin {
  origin: string;
  localStorage: { name: string; value: string }[];
}

export interface StorageState {
  cookies: StoredCookie[];
  origins: StoredOrigin[];
}

export class StorageStateError extends Error {
  override readonly name = "StorageStateError";
}

/** How long loading waits for one origin's page before writing its local storage. */
const ORIGIN_LOAD_TIMEOUT_MS = 30_000;

const SAME_SITE_TO_BIDI = { Strict: "strict", Lax: "lax", None: "none" } as const;

function fromBidiSameSite(value: string | undefined): StoredCookie["sameSite"] {
  if (value === "strict") return "Strict";
  if (value === "none") return "None";
  return "Lax";
}

function partitionOf(userContext: string | undefined): Bidi.Storage.PartitionDescriptor | undefined {
  return userContext ? { type: "storageKey", userContext } : undefined;
}

/** Every cookie of the user context. */
export async function readCookies(client: BidiClient, userContext?: string): Promise<StoredCookie[]> {
  const partition = partitionOf(userContext);
  const { cookies } = await client.send("storage.getCookies", partition ? { partition } : {});
  return cookies.map((cookie) => ({
    name: cookie.name,
    value:
      cookie.value.type === "string"
        ? cookie.value.value
        : Buffer.from(cookie.value.value, "base64").toString(),
    domain: cookie.domain,
    path: cookie.path,
    expires: cookie.expiry ?? -1,
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: fromBidiSameSite(cookie.sameSite),
  }));
}

/** The local storage of the page shown in `context`, with its origin. */
export async function readLocalStorage(
  client: BidiClient,
  context: string,
): Promise<StoredOrigin | undefined> {
  const answer = await client.send("script.evaluate", {
    expression:
      "JSON.stringify({origin: location.origin, items: Object.keys(localStorage).map((name) => ({name, value: localStorage.getItem(name)}))})",
    target: { context },
    awaitPromise: false,
  });
  if (answer.type !== "success" || answer.result.type !== "string") return undefined;
  const parsed = JSON.parse(answer.result.value) as { origin: string; items: StoredOrigin["localStorage"] };
  if (!/^https?:/.test(parsed.origin)) return undefined;
  return { origin: parsed.origin, localStorage: parsed.items };
}

export async function writeStorageStateFile(file: string, state: StorageState): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  await rename(temp, file);
}

export async function readStorageStateFile(file: string): Promise<StorageState> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new StorageStateError(
      `Cannot read the storage state ${file}: ${(error as Error).message}. Save one with \`webbrain state save ${file}\`.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text it choked on, newlines included: kept to one line.
    const why = (error as Error).message.replace(/\s+/g, " ").trim();
    throw new StorageStateError(`The storage state ${file} is not JSON (${why}).`);
  }
  return validateStorageState(value, file);
}

function validateStorageState(value: unknown, file: string): StorageState {
  const bad = (what: string) =>
    new StorageStateError(
      `The storage state ${file} is not one: ${what}. Expected {"cookies": [...], "origins": [...]} as \`webbrain state save\` writes it.`,
    );
  if (typeof value !== "object" || value === null) throw bad("not an object");
  if (Array.isArray(value)) throw bad("a list, not an object");
  const record = value as Record<string, unknown>;
  if (!("cookies" in record) && !("origins" in record)) throw bad('it has neither "cookies" nor "origins"');
  const cookies = record.cookies ?? [];
  const origins = record.origins ?? [];
  if (!Array.isArray(cookies)) throw bad('"cookies" is not a list');
  if (!Array.isArray(origins)) throw bad('"origins" is not a list');
  cookies.forEach((cookie: unknown, index) => {
    const c = cookie as Partial<StoredCookie> | null;
    if (!c || typeof c.name !== "string" || typeof c.value !== "string" || typeof c.domain !== "string") {
      throw bad(`cookie ${index} lacks a string name, value or domain`);
    }
  });
  origins.forEach((origin: unknown, index) => {
    const o = origin as Partial<StoredOrigin> | null;
    if (!o || typeof o.origin !== "string" || !Array.isArray(o.localStorage)) {
      throw bad(`origin ${index} lacks "origin" or a "localStorage" list`);
    }
  });
  return { cookies: cookies as StoredCookie[], origins: origins as StoredOrigin[] };
}

/**
 * `--storage-state FILE` checked before any browser starts: a file that cannot be read or is not
 * a storage state is a UsageError (one line, exit 2), so a typo costs no Firefox launch.
 */
export async function checkStorageStateFile(file: string): Promise<StorageState> {
  try {
    return await readStorageStateFile(file);
  } catch (error) {
    if (error instanceof StorageStateError) throw new UsageError(`--storage-state: ${error.message}`);
    throw error;
  }
}

/** Sets every cookie of the state in the user context. */
export async function writeCookies(
  client: BidiClient,
  cookies: StoredCookie[],
  userContext?: string,
): Promise<void> {
  const partition = partitionOf(userContext);
  for (const cookie of cookies) {
    await client.send("storage.setCookie", {
      cookie: {
        name: cookie.name,
        value: { type: "string", value: cookie.value },
        domain: cookie.domain,
        path: cookie.path ?? "/",
        httpOnly: cookie.httpOnly ?? false,
        secure: cookie.secure ?? false,
        sameSite: SAME_SITE_TO_BIDI[cookie.sameSite] ?? "lax",
        ...(typeof cookie.expires === "number" && cookie.expires > 0
          ? { expiry: Math.round(cookie.expires) }
          : {}),
      },
      ...(partition ? { partition } : {}),
    });
  }
}

/** Writes each origin's local storage through `context`, then leaves it on about:blank. */
export async function writeLocalStorage(
  client: BidiClient,
  context: string,
  origins: StoredOrigin[],
): Promise<void> {
  for (const origin of origins) {
    if (origin.localStorage.length === 0) continue;
    await client.send(
      "browsingContext.navigate",
      { context, url: `${origin.origin}/`, wait: "interactive" },
      { timeoutMs: ORIGIN_LOAD_TIMEOUT_MS },
    );
    await client.send("script.callFunction", {
      functionDeclaration:
        "(items) => { for (const {name, value} of JSON.parse(items)) localStorage.setItem(name, value); }",
      arguments: [{ type: "string", value: JSON.stringify(origin.localStorage) }],
      target: { context },
      awaitPromise: false,
    });
  }
  if (origins.some((origin) => origin.localStorage.length > 0)) {
    await client.send("browsingContext.navigate", { context, url: "about:blank", wait: "complete" });
  }
}

/** Loads a saved state into a session: cookies in its user context, local storage via `context`. */
export async function loadStorageState(
  client: BidiClient,
  context: string,
  file: string,
  userContext?: string,
): Promise<StorageState> {
  const state = await readStorageStateFile(file);
  await writeCookies(client, state.cookies, userContext);
  await writeLocalStorage(client, context, state.origins);
  return state;
}
