/**
 * The packaged Wikipedia skill's fallback: when the live request to a Wikipedia summary endpoint
 * fails (no network, DNS, 5xx), the same title is looked up in the user's installed ZIM
 * archives, and the answer has the shape of the live API plus where it came from. It stays the
 * skill's result, so the agent wraps it as untrusted like any skill result.
 *
 * Invariants:
 * - Only `https://<lang>.wikipedia.org/api/rest_v1/page/summary/<title>` falls back; every
 *   other skill request is passed through untouched.
 * - A local passage keeps its canonical URL (the live article's), language, archive date and
 *   license.
 *
 * The add-on lists the archives installed in OPFS; the runner gives the one `--zim FILE` names.
 */
import {
  failureText,
  type SkillHttp,
  type SkillHttpRequest,
  type SkillHttpResponse,
} from "../skills/skills-http.js";
import { articleText, type ZimReader } from "./zim-reader.js";

const SUMMARY = /^https:\/\/([a-z-]+)\.wikipedia\.org\/api\/rest_v1\/page\/summary\/([^?#]+)/;
const EXTRACT_CHARS = 4_000;
/** ISO 639-3 codes of the archive metadata -> Wikipedia's subdomains, for the common ones. */
const WIKI_LANGUAGE: Record<string, string> = {
  eng: "en",
  fra: "fr",
  deu: "de",
  spa: "es",
  ita: "it",
  por: "pt",
  nld: "nl",
  pol: "pl",
  rus: "ru",
  jpn: "ja",
  zho: "zh",
  tur: "tr",
  ara: "ar",
  swe: "sv",
  ukr: "uk",
  fas: "fa",
  heb: "he",
  kor: "ko",
};

/** What a passage says about the archive it came from (read from the archive's metadata). */
export interface ArchiveMetadata {
  title: string;
  /** ISO 639-3, as the archive's metadata says (e.g. "eng"). */
  language: string;
  /** The archive's date (YYYY-MM-DD). */
  date: string;
  /** The site it copies (e.g. https://en.wikipedia.org/). */
  source: string;
  license: string;
}

const DEFAULT_LICENSE = "CC BY-SA 4.0 (Wikipedia text); see the archive's metadata";

/** The archive's metadata entries, `fallbackTitle` (its file name) where it names no title. */
export async function readArchiveMetadata(zim: ZimReader, fallbackTitle: string): Promise<ArchiveMetadata> {
  return {
    title: (await zim.metadata("Title")) ?? fallbackTitle,
    language: (await zim.metadata("Language")) ?? "",
    date: (await zim.metadata("Date")) ?? "",
    source: (await zim.metadata("Source")) ?? "",
    license: (await zim.metadata("License")) ?? DEFAULT_LICENSE,
  };
}

export interface OfflineArchives<Archive extends ArchiveMetadata = ArchiveMetadata> {
  list(): Promise<Archive[]>;
  open(archive: Archive): Promise<ZimReader>;
}

/** True when `url` is a Wikipedia summary request, the one kind of request that falls back. */
export function isWikipediaSummaryUrl(url: string): boolean {
  return SUMMARY.test(url);
}

export class OfflineWikipediaHttp<Archive extends ArchiveMetadata = ArchiveMetadata> implements SkillHttp {
  constructor(
    private readonly live: SkillHttp,
    private readonly archives: OfflineArchives<Archive>,
  ) {}

  async send(request: SkillHttpRequest, signal?: AbortSignal): Promise<SkillHttpResponse> {
    const match = SUMMARY.exec(request.url);
    if (!match) return this.live.send(request, signal);
    let liveFailure: unknown;
    try {
      const response = await this.live.send(request, signal);
      if (response.status < 500) return response;
      liveFailure = new Error(`HTTP ${response.status}`);
    } catch (error) {
      liveFailure = error;
    }
    const language = match[1] ?? "en";
    const title = decodeURIComponent(match[2] ?? "").replace(/_/g, " ");
    // A broken archive is no answer: the live failure is what the model hears then.
    const local = await this.lookup(language, title).catch(() => undefined);
    if (local) return local;
    throw new Error(`${failureText(liveFailure)}; no offline archive has an article titled "${title}"`, {
      cause: liveFailure,
    });
  }

  private async lookup(language: string, title: string): Promise<SkillHttpResponse | undefined> {
    const records = await this.archives.list();
    // Archives of the request's language first; any archive after that.
    const ordered = [
      ...records.filter((record) => WIKI_LANGUAGE[record.language] === language),
      ...records.filter((record) => WIKI_LANGUAGE[record.language] !== language),
    ];
    for (const record of ordered) {
      const zim = await this.archives.open(record);
      const entry = await zim.findByTitle(title);
      if (!entry) continue;
      const { entry: article, bytes } = await zim.content(entry);
      const text = articleText(new TextDecoder().decode(bytes));
      const lang = WIKI_LANGUAGE[record.language] ?? language;
      const canonical = `https://${lang}.wikipedia.org/wiki/${encodeURIComponent(article.url.replace(/ /g, "_"))}`;
      const body = {
        title: article.title,
        extract: text.slice(0, EXTRACT_CHARS),
        content_urls: { desktop: { page: canonical } },
        lang,
        offline: {
          note: "The live site was unreachable; this passage comes from an offline Kiwix archive.",
          archive: record.title,
          archive_date: record.date,
          language: record.language,
          license: record.license,
        },
      };
      return {
        status: 200,
        statusText: "OK (offline archive)",
        url: canonical,
        contentType: "application/json",
        body: JSON.stringify(body),
        truncated: text.length > EXTRACT_CHARS,
      };
    }
    return undefined;
  }
}
