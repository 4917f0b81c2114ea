// The web app's static files (ADR 0094): GET /static/{name}, names carrying a hash of the content, so every answer
// is cached for a year and never revalidated (immutable). Gzip when the client accepts it.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { NoQuery } from '../../schemas/common.ts';
import { STATIC_FILES } from '../../web/assets.ts';

const File = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });

const staticFiles: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/static/:name',
    {
      schema: {
        tags: ['pages'],
        summary: "The web app's stylesheet and script under content-hashed names (cached for good)",
        params: Type.Object({ name: Type.String({ maxLength: 100, pattern: '^[a-z]+\\.[0-9a-f]{12}\\.(css|js)$' }) }),
        querystring: NoQuery,
        response: {
          200: {
            description: 'The file',
            content: { 'text/css': { schema: File }, 'text/javascript': { schema: File } },
          },
        },
        noDatabase: true,
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req, reply) => {
      const f = STATIC_FILES.get(req.params.name);
      if (!f)
        throw new ApiError('NOT_FOUND', {
          message: `No static file "${req.params.name}"`,
          detail: { resource: 'static_file', identifier: req.params.name },
        });
      reply
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Vary', 'Accept-Encoding')
        .type(f.type);
      const gz = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      if (gz) reply.header('Content-Encoding', 'gzip');
      return reply.send(gz ? f.gzip : f.body);
    },
  );
};
export default staticFiles;
