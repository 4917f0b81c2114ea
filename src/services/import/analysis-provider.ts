// The analysis provider the configuration asks for: the OpenAI-compatible one only when
// VULNINTEL_ANALYSIS_BASE_URL and _MODEL are set (its requests go through the egress policy), else none
// (the grounded analysis).
import type { Config } from '../../config.ts';
import { createEgress, type Egress } from '../../lib/egress.ts';
import { createOpenAiProvider, type AnalysisProvider } from '../../domain/analysis.ts';

export function providerFromConfig(
  config: Readonly<Pick<Config, 'analysis' | 'egressAllowList'>>,
  egress?: Egress,
): { provider: AnalysisProvider; close(): Promise<void> } | null {
  const { baseUrl, model, apiKey } = config.analysis;
  if (!baseUrl || !model) return null;
  const eg = egress ?? createEgress({ allowList: config.egressAllowList });
  const viaEgress: typeof fetch = async (url, init) => {
    const r = await eg.fetch(url instanceof Request ? url.url : String(url), {
      method: 'POST',
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      body: typeof init?.body === 'string' ? init.body : undefined,
      timeoutMs: 60_000,
      maxResponseBytes: 1024 * 1024,
    });
    return new Response(new Uint8Array(await r.bytes()), { status: r.status, headers: r.headers });
  };
  return {
    provider: createOpenAiProvider({ baseUrl, model, apiKey, fetch: viaEgress }),
    close: () => (egress ? Promise.resolve() : eg.close()),
  };
}
