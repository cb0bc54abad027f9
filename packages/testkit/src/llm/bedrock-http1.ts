/**
 * pi-ai's Bedrock client (the AWS SDK) speaks HTTP/2 on Node unless AWS_BEDROCK_FORCE_HTTP1 is
 * set; the scripted servers speak HTTP/1.1. (In Firefox, fetch picks the protocol.)
 */
import { afterAll, beforeAll, vi } from "vitest";

/**
 * Sets AWS_BEDROCK_FORCE_HTTP1 for the calling test file and puts the environment back after it:
 * files share a worker process (vitest.config.ts), so a variable left set would reach the next.
 */
export function useBedrockOverHttp1(): void {
  beforeAll(() => {
    vi.stubEnv("AWS_BEDROCK_FORCE_HTTP1", "1");
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });
}
