import { createClient } from '../index.ts';

const api = createClient({ baseUrl: 'https://vulnintel.example.com', apiKey: process.env.VULNINTEL_API_KEY });

const { data, error, response } = await api.POST('/api/v1/assets/correlate-cves', {
  body: {
    assets: [
      { asset_id: 'plc-7', vendor: 'Siemens', product: 'SIMATIC S7-1500', version: 'V2.9.2' },
      { asset_id: 'gw-2', vendor: 'Moxa', product: 'TN-5900', version: '3.3' },
    ],
    options: { affected_only: true },
  },
});
if (error) {
  // 413 BATCH_TOO_LARGE, 422 VALIDATION_ERROR (error.data.rejected lists refused assets), 429 RATE_LIMITED (Retry-After) …
  throw new Error(`${response.status} ${error.error.code}: ${error.error.message}`);
}
for (const asset of data.data.assets) {
  for (const cve of asset.cves) console.log(asset.asset_id, cve.cve_id, cve.status, cve.fixed_version);
}
for (const refused of data.data.rejected) console.log('refused', refused.index, refused.errors);
