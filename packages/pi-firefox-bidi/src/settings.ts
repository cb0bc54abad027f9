/**
 * Settings of the firefox-bidi extension, resolved per key from five sources.
 *
 * Rules (README "Settings"):
 * - precedence per key: flag, env, trusted project, user, default; the first
 *   source that sets a key decides it;
 * - an invalid value never falls back to a lower source: the key resolves to
 *   `{ok: false}` naming the source and the problem;
 * - env booleans accept exactly `true`, `false`, `1`, `0`; settings booleans must
 *   be JSON booleans; an empty env value is set, and invalid;
 * - `--firefox` is a boolean flag: it can only turn the tool on, so `false` or
 *   absent means "not set by the flag";
 * - project settings count only when the project is trusted (decided by the
 *   caller, see project-trust.ts).
 * A settings file that exists but cannot be parsed, or whose `firefox-bidi`
 * entry is not an object, sets every key of that source to invalid: we cannot
 * tell what the user meant, and guessing would be a silent fallback.
 * Pure: file contents and env are inputs.
 */

export type SettingSource = "flag" | "env" | "project" | "user" | "default";

export type Resolved<T> =
  | { ok: true; value: T; source: SettingSource; origin: string }
  | { ok: false; source: SettingSource; origin: string; problem: string };

/** A settings file as read: absent, unreadable or unparseable, or parsed JSON. */
export type SettingsFile =
  | { kind: "missing"; path: string }
  | { kind: "unreadable"; path: string; problem: string }
  | { kind: "parsed"; path: string; data: unknown };

export interface SettingsInputs {
  flag: boolean | string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  projectTrusted: boolean;
  project: SettingsFile;
  user: SettingsFile;
}

export interface FirefoxBidiSettings {
  enable: Resolved<boolean>;
  /** `undefined` value: look for `firefox` on PATH. */
  executablePath: Resolved<string | undefined>;
  /** `undefined` value: Gecko's default (~/Downloads). */
  screencastDir: Resolved<string | undefined>;
}

export const SETTINGS_SECTION = "firefox-bidi";
export const ENV_ENABLE = "PI_FIREFOX";
export const ENV_EXECUTABLE = "FIREFOX_BIN";

type FileLookup =
  | { state: "unset" }
  | { state: "set"; value: unknown; origin: string }
  | { state: "broken"; origin: string; problem: string };

function lookupInFile(file: SettingsFile, key: string): FileLookup {
  if (file.kind === "missing") return { state: "unset" };
  if (file.kind === "unreadable") return { state: "broken", origin: file.path, problem: file.problem };
  const data = file.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return { state: "broken", origin: file.path, problem: "the file is not a JSON object" };
  }
  if (!Object.hasOwn(data, SETTINGS_SECTION)) return { state: "unset" };
  const section = (data as Record<string, unknown>)[SETTINGS_SECTION];
  if (section === null || typeof section !== "object" || Array.isArray(section)) {
    return { state: "broken", origin: file.path, problem: `"${SETTINGS_SECTION}" must be an object` };
  }
  if (!Object.hasOwn(section, key)) return { state: "unset" };
  return {
    state: "set",
    value: (section as Record<string, unknown>)[key],
    origin: `${file.path} (${SETTINGS_SECTION}.${key})`,
  };
}

/** Parses an env boolean: exactly true/false/1/0. */
export function parseEnvBoolean(raw: string): boolean | undefined {
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  return undefined;
}

type Validate<T> = (value: unknown) => { ok: true; value: T } | { ok: false; problem: string };

const jsonBoolean: Validate<boolean> = (value) =>
  typeof value === "boolean"
    ? { ok: true, value }
    : { ok: false, problem: `expected a JSON boolean (true or false), got ${JSON.stringify(value)}` };

const nonEmptyString: Validate<string> = (value) =>
  typeof value === "string" && value.length > 0
    ? { ok: true, value }
    : { ok: false, problem: `expected a non-empty string, got ${JSON.stringify(value)}` };

function fromFiles<T>(inputs: SettingsInputs, key: string, validate: Validate<T>): Resolved<T> | undefined {
  const files: [SettingSource, SettingsFile][] = [];
  if (inputs.projectTrusted) files.push(["project", inputs.project]);
  files.push(["user", inputs.user]);
  for (const [source, file] of files) {
    const found = lookupInFile(file, key);
    if (found.state === "unset") continue;
    if (found.state === "broken") return { ok: false, source, origin: found.origin, problem: found.problem };
    const checked = validate(found.value);
    return checked.ok
      ? { ok: true, value: checked.value, source, origin: found.origin }
      : { ok: false, source, origin: found.origin, problem: checked.problem };
  }
  return undefined;
}

export function resolveSettings(inputs: SettingsInputs): FirefoxBidiSettings {
  return {
    enable: resolveEnable(inputs),
    executablePath: resolveExecutablePath(inputs),
    screencastDir: fromFiles(inputs, "screencastDir", nonEmptyString) ?? {
      ok: true,
      value: undefined,
      source: "default",
      origin: "default",
    },
  };
}

function resolveEnable(inputs: SettingsInputs): Resolved<boolean> {
  if (inputs.flag === true) return { ok: true, value: true, source: "flag", origin: "--firefox" };
  const raw = inputs.env[ENV_ENABLE];
  if (raw !== undefined) {
    const parsed = parseEnvBoolean(raw);
    return parsed === undefined
      ? {
          ok: false,
          source: "env",
          origin: ENV_ENABLE,
          problem: `expected true, false, 1 or 0, got ${JSON.stringify(raw)}`,
        }
      : { ok: true, value: parsed, source: "env", origin: ENV_ENABLE };
  }
  return (
    fromFiles(inputs, "enable", jsonBoolean) ?? {
      ok: true,
      value: false,
      source: "default",
      origin: "default",
    }
  );
}

function resolveExecutablePath(inputs: SettingsInputs): Resolved<string | undefined> {
  const raw = inputs.env[ENV_EXECUTABLE];
  if (raw !== undefined) {
    return raw.length > 0
      ? { ok: true, value: raw, source: "env", origin: ENV_EXECUTABLE }
      : {
          ok: false,
          source: "env",
          origin: ENV_EXECUTABLE,
          problem: "expected a non-empty path, got an empty value",
        };
  }
  return (
    fromFiles(inputs, "executablePath", nonEmptyString) ?? {
      ok: true,
      value: undefined,
      source: "default",
      origin: "default",
    }
  );
}

/** One line for a warning: which key, which source, what is wrong, what happens now. */
export function describeInvalid(
  key: string,
  resolved: Extract<Resolved<unknown>, { ok: false }>,
  consequence: string,
): string {
  return `firefox-bidi: invalid ${key} from ${resolved.source} (${resolved.origin}): ${resolved.problem}. ${consequence}`;
}
