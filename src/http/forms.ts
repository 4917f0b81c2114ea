// HTML form bodies (application/x-www-form-urlencoded) for the server-rendered pages only: each page plugin
// registers this in its own scope, so the API routes keep refusing form bodies (415). An empty body is {}.
import type { FastifyInstance } from 'fastify';

export function acceptFormBodies(app: FastifyInstance, bodyLimit: number): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body).trim())));
    },
  );
}
