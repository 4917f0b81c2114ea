import { createClient } from '../index.ts';

const api = createClient({ baseUrl: 'https://vulnintel.example.com', apiKey: process.env.VULNINTEL_API_KEY });

const { data, error } = await api.GET('/api/v1/cves', {
  params: { query: { kev: true, severity: 'CRITICAL,HIGH', protocol: 'modbus', per_page: 50 } },
});
if (error) throw new Error(`${error.error.code}: ${error.error.message}`);
for (const cve of data.data) console.log(cve.cve_id, cve.severity, cve.bcs_score, cve.title);
console.log(`${data.pagination.total} in all`);

const one = await api.GET('/api/v1/cves/{cve_id}', { params: { path: { cve_id: 'CVE-2023-28489' } } });
console.log(one.data?.data.patch.status);
