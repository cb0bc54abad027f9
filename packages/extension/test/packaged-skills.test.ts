/**
 * Packaged skills across add-on versions: each "start" is a fresh SkillsStore over the same
 * storage area (what the background page does after an update or a browser restart), seeded
 * with the packaged skills of that version.
 */
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  buildSkillRequest,
  importSkill,
  PACKAGED_SKILL_IDS,
  parseSkill,
  type SkillDefinition,
  type SkillHttpRequest,
  type SkillTool,
} from "@webbrain/agent";
import { describe, expect, it } from "vitest";
import { LocalAreaStore } from "../src/scheduling/local-area-store.js";
import { PACKAGED_SKILLS, type PackagedSkill } from "../src/skills/packaged-skills.js";
import { CUSTOM_SKILLS_KEY, SkillsStore } from "../src/skills/skills-store.js";
import { MemoryArea } from "./memory-area.js";

function packaged(body: string): PackagedSkill {
  return { id: "wikipedia", name: "Wikipedia", body, enabledByDefault: true };
}

const V1 = "# Wikipedia\nLook things up on Wikipedia (version 1).";
const V2 = "# Wikipedia\nLook things up on Wikipedia (version 2, better instructions).";

async function start(area: MemoryArea, version: string): Promise<SkillsStore> {
  const store = new SkillsStore(new LocalAreaStore(area));
  await store.seed([packaged(version)]);
  return store;
}

async function stored(area: MemoryArea): Promise<SkillDefinition[]> {
  return ((await area.get(CUSTOM_SKILLS_KEY))[CUSTOM_SKILLS_KEY] as SkillDefinition[] | undefined) ?? [];
}

describe("packaged skills", () => {
  it("are seeded once on first run, enabled", async () => {
    const area = new MemoryArea();
    await start(area, V1);
    await start(area, V1);
    const skills = await stored(area);
    expect(skills).toHaveLength(1);
    expect(skills[0]).toMatchObject({ id: "wikipedia", enabled: true, body: V1, source: "packaged" });
  });

  it("a changed packaged skill refreshes its stored copy while it is enabled", async () => {
    const area = new MemoryArea();
    await start(area, V1);
    await start(area, V2);
    const skills = await stored(area);
    expect(skills).toHaveLength(1);
    expect(skills[0]?.body).toBe(V2);
    expect(skills[0]?.enabled).toBe(true);
  });

  it("a changed packaged skill the user disabled keeps the user's copy and stays disabled", async () => {
    const area = new MemoryArea();
    const first = await start(area, V1);
    await first.setEnabled("wikipedia", false);
    await start(area, V2);
    const skills = await stored(area);
    expect(skills).toHaveLength(1);
    expect(skills[0]?.body).toBe(V1);
    expect(skills[0]?.enabled).toBe(false);
  });

  it("a deleted packaged skill is never re-added, not even when a new version changes it", async () => {
    const area = new MemoryArea();
    const first = await start(area, V1);
    await first.remove("wikipedia");
    expect(await stored(area)).toEqual([]);
    await start(area, V1);
    expect(await stored(area)).toEqual([]);
    await start(area, V2);
    expect(await stored(area)).toEqual([]);
  });

  it("a user's skill with a packaged skill's id is never overwritten by seeding", async () => {
    const area = new MemoryArea();
    const mine: SkillDefinition = {
      id: "wikipedia",
      name: "Mine",
      enabled: true,
      body: "# Mine\nMy own.",
      source: "user",
    };
    await area.set({ [CUSTOM_SKILLS_KEY]: [mine] });
    await start(area, V2);
    expect(await stored(area)).toEqual([mine]);
  });
});

/** The packaged skill files, as the build bundles them (@webbrain/agent's skills/<id>.md). */
const SKILLS_DIR = dirname(createRequire(import.meta.url).resolve("@webbrain/agent/skills/wikipedia.md"));

describe("the packaged skill files", () => {
  it("every file in skills/ is packaged, and every packaged skill is its file's text", async () => {
    const files = (await readdir(SKILLS_DIR)).filter((name) => name.endsWith(".md")).sort();
    expect(PACKAGED_SKILLS.map((skill) => `${skill.id}.md`).sort()).toEqual(files);
    // The runner's --skill NAME reads by the agent's list: the same skills, in the same order.
    expect(PACKAGED_SKILLS.map((skill) => skill.id)).toEqual([...PACKAGED_SKILL_IDS]);
    for (const skill of PACKAGED_SKILLS) {
      expect(skill.body).toBe(await readFile(join(SKILLS_DIR, `${skill.id}.md`), "utf8"));
    }
  });

  it("are all seeded on first run (Wikipedia and FreeSkillz.xyz on, as spec 000 has them) and parse without an error", async () => {
    const area = new MemoryArea();
    await new SkillsStore(new LocalAreaStore(area)).seed(PACKAGED_SKILLS);
    const skills = await stored(area);
    expect(skills.map((skill) => [skill.id, skill.enabled, skill.source])).toEqual([
      ["wikipedia", true, "packaged"],
      ["freeskillz-xyz", true, "packaged"],
      ["open-meteo-weather", false, "packaged"],
      ["open-library-books", false, "packaged"],
    ]);
    const taken = new Set<string>();
    for (const skill of skills) {
      const parsed = parseSkill(skill, taken);
      expect(parsed.errors, skill.id).toEqual([]);
      // The manifest fences never reach the prompt.
      expect(parsed.instructions).not.toContain("webbrain-tools");
      expect(parsed.instructions).not.toContain("webbrain-skill");
      for (const tool of parsed.tools) taken.add(tool.name);
    }
    // And importing one as a user would (the stricter path) accepts it too.
    for (const skill of PACKAGED_SKILLS) expect(() => importSkill(skill.body)).not.toThrow();
  });

  it("FreeSkillz.xyz declares its three tools on the service's documented routes", async () => {
    const skill = PACKAGED_SKILLS.find((s) => s.id === "freeskillz-xyz")!;
    const parsed = parseSkill({ id: skill.id, name: skill.name, enabled: true, body: skill.body });
    const byName = new Map(parsed.tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()]).toEqual([
      "read_youtube_transcript",
      "resolve_public_media",
      "download_public_media",
    ]);

    const transcript = byName.get("read_youtube_transcript")!;
    expect(transcript).toMatchObject({
      kind: "http",
      method: "POST",
      endpoint: "https://freeskillz.xyz/v1/youtube/transcript",
      resultPolicy: "untrusted",
      activeTabUrlArg: "url",
      modes: ["ask", "act", "dev"],
    });
    // The service pages long transcripts by these three fields; the tool must offer them.
    expect(Object.keys(transcript.parameters.properties)).toEqual(
      expect.arrayContaining(["url", "lang", "text_offset", "text_limit", "include_segments"]),
    );
    expect(transcript.inputUrlAllowlist?.map((rule) => rule.host)).toEqual(["youtube.com", "youtu.be"]);

    expect(byName.get("resolve_public_media")).toMatchObject({
      kind: "http",
      method: "POST",
      endpoint: "https://freeskillz.xyz/v1/media/resolve",
      parameters: { required: ["url"] },
    });

    const download = byName.get("download_public_media")!;
    expect(download).toMatchObject({
      kind: "httpDownloadJob",
      method: "POST",
      endpoint: "https://freeskillz.xyz/v1/media/jobs",
      // A download job never runs in Ask.
      modes: ["act", "dev"],
      job: {
        idField: "job_id",
        statusEndpoint: "https://freeskillz.xyz/v1/media/jobs/{job_id}",
        fileEndpoint: "https://freeskillz.xyz/v1/media/jobs/{job_id}/file",
        cleanupEndpoint: "https://freeskillz.xyz/v1/media/jobs/{job_id}",
      },
    });
  });
});

/** A packaged skill's tools by name, parsed as the agent parses them. */
function toolsOf(id: string): Map<string, SkillTool> {
  const skill = PACKAGED_SKILLS.find((s) => s.id === id)!;
  const parsed = parseSkill({ id: skill.id, name: skill.name, enabled: true, body: skill.body });
  expect(parsed.errors).toEqual([]);
  return new Map(parsed.tools.map((tool) => [tool.name, tool]));
}

function request(
  tool: SkillTool | undefined,
  args: Record<string, unknown>,
  activeTab?: string,
): SkillHttpRequest {
  const built = buildSkillRequest(tool!, args, activeTab);
  if (typeof built === "string") throw new Error(built);
  return built;
}

/**
 * Each tool's request, as the agent builds it from a model's call, is the one the public API
 * documents (the URLs and bodies below are its documentation's own examples' shape).
 */
describe("the packaged skills' requests are the public APIs' own", () => {
  it("FreeSkillz.xyz: a JSON POST with the video's URL (the open tab's when none is given) and the transcript window", () => {
    const tools = toolsOf("freeskillz-xyz");
    const transcript = request(
      tools.get("read_youtube_transcript"),
      { lang: "en", text_offset: 6000 },
      "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    );
    expect(transcript.method).toBe("POST");
    expect(transcript.url).toBe("https://freeskillz.xyz/v1/youtube/transcript");
    expect(transcript.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(transcript.body!)).toEqual({
      url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      lang: "en",
      timestamps: true,
      text_limit: 6000,
      text_offset: 6000,
      include_segments: false,
    });
    // Not a YouTube video: refused before anything is sent.
    expect(
      buildSkillRequest(tools.get("read_youtube_transcript")!, { url: "https://example.com/watch" }),
    ).toMatch(/accepts URLs on youtube\.com, youtu\.be only/);
    const resolve = request(tools.get("resolve_public_media"), { url: "https://www.tiktok.com/@a/video/1" });
    expect([resolve.method, resolve.url, JSON.parse(resolve.body!)]).toEqual([
      "POST",
      "https://freeskillz.xyz/v1/media/resolve",
      { url: "https://www.tiktok.com/@a/video/1" },
    ]);
    const job = request(tools.get("download_public_media"), {
      url: "https://youtu.be/jNQXAC9IVRw",
      kind: "video",
    });
    expect([job.url, JSON.parse(job.body!)]).toEqual([
      "https://freeskillz.xyz/v1/media/jobs",
      { url: "https://youtu.be/jNQXAC9IVRw", kind: "video", max_height: 720 },
    ]);
  });

  it("Open-Meteo: geocoding by name, then the forecast for the coordinates with current and daily variables", () => {
    const tools = toolsOf("open-meteo-weather");
    const search = new URL(request(tools.get("search_weather_location"), { name: "Berlin" }).url);
    expect(search.origin + search.pathname).toBe("https://geocoding-api.open-meteo.com/v1/search");
    expect(Object.fromEntries(search.searchParams)).toEqual({
      name: "Berlin",
      count: "5",
      language: "en",
      format: "json",
    });

    const forecast = request(tools.get("get_weather_forecast"), {
      latitude: 52.52,
      longitude: 13.41,
      temperature_unit: "fahrenheit",
    });
    expect(forecast.method).toBe("GET");
    const url = new URL(forecast.url);
    expect(url.origin + url.pathname).toBe("https://api.open-meteo.com/v1/forecast");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      latitude: "52.52",
      longitude: "13.41",
      current: "temperature_2m,relative_humidity_2m,apparent_temperature,weather_code,wind_speed_10m",
      daily: "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum",
      timezone: "auto",
      forecast_days: "3",
      temperature_unit: "fahrenheit",
    });
    expect(buildSkillRequest(tools.get("get_weather_forecast")!, { latitude: 1 })).toBe(
      'get_weather_forecast: missing required argument "longitude".',
    );
  });

  it("Open Library: search.json with the query, a small field set and a limit", () => {
    const tools = toolsOf("open-library-books");
    const url = new URL(request(tools.get("search_open_library_books"), { q: "isbn:9780140328721" }).url);
    expect(url.origin + url.pathname).toBe("https://openlibrary.org/search.json");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      q: "isbn:9780140328721",
      fields: "key,title,author_name,first_publish_year,cover_edition_key,edition_count",
      limit: "5",
    });
  });
});
