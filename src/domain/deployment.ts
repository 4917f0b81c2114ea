// Deployment mistakes an operator should hear about (docs/operations.md "Production over http"): logged at start
// (src/app.ts) and shown on the status page (src/http/status-page.ts). Pure: it reads the configuration only.

/** Warnings for this configuration, each one sentence that says what is wrong and how to fix it. */
export function deploymentWarnings(c: { environment: string; publicUrl: string }): string[] {
  const out: string[] = [];
  if (c.environment === 'production' && !/^https:\/\//i.test(c.publicUrl)) {
    out.push(
      `VULNINTEL_PUBLIC_URL (${c.publicUrl}) is not https: session cookies cannot be Secure, so a sign-in travels in clear text. ` +
        'Serve the service over https (behind a TLS-terminating reverse proxy) and set VULNINTEL_PUBLIC_URL to its https address',
    );
  }
  return out;
}
