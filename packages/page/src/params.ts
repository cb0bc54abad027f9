/**
 * Reads an action's JSON params with clear errors. Models send numbers as strings ("31") and
 * omit optional fields; this is the one place that decides what is accepted.
 */
import { badParams } from "./page-error.js";
import type { ActionMode } from "./protocol.js";

export class Params {
  readonly action: string;
  readonly raw: Record<string, unknown>;

  constructor(action: string, raw: unknown) {
    this.action = action;
    if (raw === undefined || raw === null) {
      this.raw = {};
    } else if (typeof raw === "object" && !Array.isArray(raw)) {
      this.raw = raw as Record<string, unknown>;
    } else {
      throw badParams(
        action,
        `params must be a JSON object, got ${Array.isArray(raw) ? "array" : typeof raw}`,
      );
    }
  }

  has(name: string): boolean {
    const value = this.raw[name];
    return value !== undefined && value !== null && value !== "";
  }

  optionalString(name: string): string | undefined {
    const value = this.raw[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string") return value;
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    throw badParams(this.action, `"${name}" must be a string, got ${typeof value}`);
  }

  string(name: string): string {
    const value = this.optionalString(name);
    if (value === undefined) throw badParams(this.action, `"${name}" is required`);
    return value;
  }

  optionalNumber(name: string): number | undefined {
    const value = this.raw[name];
    if (value === undefined || value === null || value === "") return undefined;
    const parsed = typeof value === "string" ? Number(value.trim()) : value;
    if (typeof parsed !== "number" || !Number.isFinite(parsed)) {
      throw badParams(this.action, `"${name}" must be a number, got ${JSON.stringify(value)}`);
    }
    return parsed;
  }

  number(name: string): number {
    const value = this.optionalNumber(name);
    if (value === undefined) throw badParams(this.action, `"${name}" is required`);
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw[name];
    if (value === undefined || value === null) return fallback;
    if (typeof value === "boolean") return value;
    if (value === "true") return true;
    if (value === "false") return false;
    throw badParams(this.action, `"${name}" must be true or false, got ${JSON.stringify(value)}`);
  }

  /** A ref as printed in the tree: 31, "31" or "[31]". */
  optionalRef(name = "ref_id"): number | undefined {
    const value = this.raw[name];
    if (value === undefined || value === null || value === "") return undefined;
    const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
    const match = /^\[?(\d+)\]?$/.exec(text);
    if (!match?.[1]) {
      throw badParams(
        this.action,
        `"${name}" must be a ref number as printed in the tree (e.g. 31), got ${JSON.stringify(value)}`,
      );
    }
    return Number(match[1]);
  }

  ref(name = "ref_id"): number {
    const value = this.optionalRef(name);
    if (value === undefined) {
      throw badParams(this.action, `"${name}" is required: pass the number shown in [brackets] in the tree`);
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.optionalString(name);
    if (value === undefined || value === "") return fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    throw badParams(
      this.action,
      `"${name}" must be one of ${allowed.join(", ")}; got ${JSON.stringify(value)}`,
    );
  }

  mode(): ActionMode {
    return this.oneOf("mode", ["dispatch", "resolve"] as const, "dispatch");
  }
}
