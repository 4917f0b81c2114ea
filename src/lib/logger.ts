import pino, { type Logger } from 'pino';

/** Structured logs; credentials redacted, request and response bodies never logged. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-internal-key"]', 'res.headers["set-cookie"]'], censor: '[redacted]' },
    serializers: {
      req: (req: { method?: string; url?: string; ip?: string }) => ({ method: req.method, url: req.url?.split('?')[0], remoteAddress: req.ip }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
