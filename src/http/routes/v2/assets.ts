// spec §4.2 Windows patch-level endpoints (API v2), §5.9 call log: the v2 routes, with what they share (the
// evaluation index built ahead, the multipart parser, the call log).
//   POST /api/v2/assets/correlate, /correlate-csv   correlate.ts
//   GET  /api/v2/assets/results                     results.ts
import type { FastifyPluginAsync } from 'fastify';
import multipart from '@fastify/multipart';
import hostSubmissions from './correlate.ts';
import storedHosts from './results.ts';

/** CSV parts: 16 MiB each (ADR 0088). */
const CSV_PART_LIMIT = 16 * 1024 * 1024;
/** File parts the multipart parser lets through, so that an unexpected one is named in a 422 instead of a 413. */
const MAX_FILE_PARTS = 8;

declare module 'fastify' {
  interface FastifyRequest {
    /** Hosts submitted or returned by a v2 call, for the call log. */
    v2Hosts?: number;
  }
}

const assets: FastifyPluginAsync = async (app) => {
  const windows = app.services.windows;
  // Once the server listens, the evaluation index is built in the background (never on app.inject in tests).
  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
  });
  app.addHook('onListen', async () => {
    windows.warm().then(
      (w) => app.log.info({ windows_index: w }, 'Windows evaluation index ready'),
      (err: Error) => {
        if (!closing)
          app.log.warn({ err: err.message }, 'Windows evaluation index not built ahead; the first v2 call builds it');
      },
    );
  });
  await app.register(multipart, {
    limits: { files: MAX_FILE_PARTS, fileSize: CSV_PART_LIMIT, fields: 20, fieldSize: CSV_PART_LIMIT, parts: 30 },
  });

  // Spec §5.9: each v2 call logs time, key, path, status, host count and duration; never a body.
  app.addHook('onResponse', async (req, reply) => {
    if (!req.url.startsWith('/api/v2/')) return;
    req.log.info(
      {
        v2: true,
        key_id: req.principal?.keyId ?? null,
        path: req.routeOptions.url ?? req.url.split('?')[0],
        status: reply.statusCode,
        hosts: req.v2Hosts ?? 0,
        duration_ms: Math.round(reply.elapsedTime),
      },
      'v2 call',
    );
  });

  await app.register(hostSubmissions);
  await app.register(storedHosts);
};

export default assets;
