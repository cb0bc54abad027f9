import type { BatchFrameInput } from "@webbrain/bidi/batch";
import { describe, expect, it } from "vitest";
import { decideProjectTrust } from "../src/project-trust.js";
import { resolveSettings, type SettingsFile, type SettingsInputs } from "../src/settings.js";
import { applyScreencastDir } from "../src/tool.js";

const missing = (path: string): SettingsFile => ({ kind: "missing", path });
const parsed = (path: string, section: unknown): SettingsFile => ({
  kind: "parsed",
  path,
  data: { "firefox-bidi": section },
});

function inputs(overrides: Partial<SettingsInputs> = {}): SettingsInputs {
  return {
    flag: undefined,
    env: {},
    projectTrusted: true,
    project: missing("/p/.pi/settings.json"),
    user: missing("/u/settings.json"),
    ...overrides,
  };
}

describe("resolveSettings precedence", () => {
  it("uses defaults when nothing is set", () => {
    const s = resolveSettings(inputs());
    expect(s.enable).toMatchObject({ ok: true, value: false, source: "default" });
    expect(s.executablePath).toMatchObject({ ok: true, value: undefined, source: "default" });
    expect(s.screencastDir).toMatchObject({ ok: true, value: undefined, source: "default" });
  });

  it("orders flag, env, trusted project, user for enable", () => {
    const project = parsed("/p", { enable: false });
    const user = parsed("/u", { enable: true });
    expect(resolveSettings(inputs({ user })).enable).toMatchObject({ value: true, source: "user" });
    expect(resolveSettings(inputs({ user, project })).enable).toMatchObject({
      value: false,
      source: "project",
    });
    expect(resolveSettings(inputs({ user, project, env: { PI_FIREFOX: "1" } })).enable).toMatchObject({
      value: true,
      source: "env",
    });
    expect(
      resolveSettings(inputs({ user, project, env: { PI_FIREFOX: "0" }, flag: true })).enable,
    ).toMatchObject({
      value: true,
      source: "flag",
    });
  });

  it("treats a false or absent flag as unset: the flag can only turn the tool on", () => {
    expect(resolveSettings(inputs({ flag: false, env: { PI_FIREFOX: "true" } })).enable).toMatchObject({
      value: true,
      source: "env",
    });
    expect(
      resolveSettings(inputs({ flag: false, user: parsed("/u", { enable: true }) })).enable,
    ).toMatchObject({ source: "user" });
  });

  it("accepts exactly true/false/1/0 as env booleans", () => {
    for (const [raw, value] of [
      ["true", true],
      ["1", true],
      ["false", false],
      ["0", false],
    ] as const) {
      expect(resolveSettings(inputs({ env: { PI_FIREFOX: raw } })).enable).toEqual({
        ok: true,
        value,
        source: "env",
        origin: "PI_FIREFOX",
      });
    }
    for (const raw of ["yes", "TRUE", " 1", ""]) {
      expect(
        resolveSettings(inputs({ env: { PI_FIREFOX: raw }, user: parsed("/u", { enable: true }) })).enable,
      ).toMatchObject({
        ok: false,
        source: "env",
      });
    }
  });

  it("requires JSON booleans in settings files and never falls back past an invalid value", () => {
    const bad = resolveSettings(
      inputs({ project: parsed("/p", { enable: "true" }), user: parsed("/u", { enable: true }) }),
    ).enable;
    expect(bad).toMatchObject({ ok: false, source: "project" });
    expect(bad.ok ? "" : bad.problem).toContain('expected a JSON boolean (true or false), got "true"');
    expect(resolveSettings(inputs({ user: parsed("/u", { enable: 1 }) })).enable).toMatchObject({
      ok: false,
      source: "user",
    });
  });

  it("reads project settings only when the project is trusted", () => {
    const project = parsed("/p", { enable: true, executablePath: "/p/evil", screencastDir: "/p/casts" });
    const untrusted = resolveSettings(inputs({ projectTrusted: false, project }));
    expect(untrusted.enable).toMatchObject({ value: false, source: "default" });
    expect(untrusted.executablePath).toMatchObject({ value: undefined, source: "default" });
    expect(untrusted.screencastDir).toMatchObject({ value: undefined, source: "default" });
    // An invalid value in an untrusted project is not read either.
    expect(
      resolveSettings(inputs({ projectTrusted: false, project: parsed("/p", { enable: "x" }) })).enable.ok,
    ).toBe(true);
    const trusted = resolveSettings(inputs({ projectTrusted: true, project }));
    expect(trusted.executablePath).toMatchObject({ value: "/p/evil", source: "project" });
  });

  it("takes executablePath from FIREFOX_BIN before the files and refuses an empty value", () => {
    const user = parsed("/u", { executablePath: "/u/firefox" });
    expect(resolveSettings(inputs({ user })).executablePath).toMatchObject({
      value: "/u/firefox",
      source: "user",
    });
    expect(
      resolveSettings(inputs({ user, env: { FIREFOX_BIN: "/env/firefox" } })).executablePath,
    ).toMatchObject({
      value: "/env/firefox",
      source: "env",
    });
    expect(resolveSettings(inputs({ user, env: { FIREFOX_BIN: "" } })).executablePath).toMatchObject({
      ok: false,
      source: "env",
    });
    expect(
      resolveSettings(inputs({ user: parsed("/u", { executablePath: "" }) })).executablePath,
    ).toMatchObject({ ok: false });
    expect(
      resolveSettings(inputs({ user: parsed("/u", { executablePath: 3 }) })).executablePath,
    ).toMatchObject({ ok: false });
  });

  it("marks every key of a broken source invalid instead of guessing", () => {
    const unreadable: SettingsFile = {
      kind: "unreadable",
      path: "/u",
      problem: "the file is not valid JSON",
    };
    const s = resolveSettings(inputs({ user: unreadable }));
    expect([s.enable.ok, s.executablePath.ok, s.screencastDir.ok]).toEqual([false, false, false]);
    const notObject = resolveSettings(inputs({ user: parsed("/u", true) }));
    expect(notObject.enable).toMatchObject({ ok: false, problem: '"firefox-bidi" must be an object' });
    // A file without the section is simply unset.
    expect(
      resolveSettings(inputs({ user: { kind: "parsed", path: "/u", data: { other: 1 } } })).enable.ok,
    ).toBe(true);
  });
});

describe("applyScreencastDir", () => {
  const frames: BatchFrameInput[] = [
    { method: "browsingContext.getTree" },
    { method: "browsingContext.startScreencast", params: { context: "C" } },
    { method: "browsingContext.startScreencast", params: { context: "C", destinationFolder: "/mine" } },
  ];

  it("fills destinationFolder unless the frame gives one", () => {
    const s = resolveSettings(inputs({ user: parsed("/u", { screencastDir: "/casts" }) }));
    expect(applyScreencastDir(frames, s).map((f) => f.params)).toEqual([
      undefined,
      { context: "C", destinationFolder: "/casts" },
      { context: "C", destinationFolder: "/mine" },
    ]);
    expect(applyScreencastDir(frames, resolveSettings(inputs()))).toBe(frames);
  });

  it("fails only calls that carry startScreencast when the setting is invalid", () => {
    const s = resolveSettings(inputs({ user: parsed("/u", { screencastDir: 42 }) }));
    expect(() => applyScreencastDir(frames, s)).toThrow(/invalid screencastDir from user/);
    const plain = [{ method: "browsingContext.getTree" }];
    expect(applyScreencastDir(plain, s)).toBe(plain);
  });
});

describe("decideProjectTrust", () => {
  it("asks the host when it offers isProjectTrusted", () => {
    expect(decideProjectTrust({ isProjectTrusted: () => true }, {})).toEqual({
      trusted: true,
      basis: "host",
    });
    expect(
      decideProjectTrust({ isProjectTrusted: () => false }, { PI_FIREFOX_BIDI_TRUST_PROJECT: "1" }),
    ).toEqual({
      trusted: false,
      basis: "host",
    });
  });

  it("on Pi 0.73.1 (no trust API) trusts only an explicit opt-in", () => {
    expect(decideProjectTrust({}, {})).toEqual({ trusted: false, basis: "default" });
    expect(decideProjectTrust({}, { PI_FIREFOX_BIDI_TRUST_PROJECT: "1" })).toEqual({
      trusted: true,
      basis: "env",
    });
    expect(decideProjectTrust({}, { PI_FIREFOX_BIDI_TRUST_PROJECT: "0" })).toEqual({
      trusted: false,
      basis: "env",
    });
    const bad = decideProjectTrust({}, { PI_FIREFOX_BIDI_TRUST_PROJECT: "yes" });
    expect(bad.trusted).toBe(false);
    expect(bad.warning).toContain("invalid PI_FIREFOX_BIDI_TRUST_PROJECT");
  });
});
