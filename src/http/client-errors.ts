// Answers to requests Node's HTTP parser refuses before Fastify sees them: a request
// line or headers over the 16 KB limit (431), a malformed request line or header (400), a request that
// took too long to arrive (408). Fastify's default writes its own body; these get the spec §7 envelope.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError } from 'fastify';
import { ApiError, renderError } from './errors.ts';
import { newRequestId } from '../lib/ids.ts';
import { isRecord } from '../domain/is-record.ts';

/** Whether Node has started a response on this connection (its `_httpMessage`, when there is one, says so). */
const responseStarted = (socket: Socket) => {
  const message = '_httpMessage' in socket ? socket._httpMessage : undefined;
  return isRecord(message) && message.headersSent === true;
};

function classify(code: string | undefined): { status: number; error: string; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        error: 'request_header_too_large',
        message: 'The request line or headers exceed 16 KB (a URL that long is not accepted)',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, error: 'request_timeout', message: 'The request did not arrive in time' };
    default:
      return { status: 400, error: 'malformed_request', message: 'The request could not be parsed as HTTP/1.1' };
  }
}

/** The envelope's bytes for one refused connection-level request (exported for tests). */
export function clientErrorResponse(code: string | undefined): string {
  const c = classify(code);
  const requestId = newRequestId();
  // The class of answer is the §7 "other bad input" row (not retryable, fix_input); the status is the one HTTP
  // gives to this condition.
  const { body } = renderError(new ApiError('BAD_REQUEST', { message: c.message, detail: { error: c.error } }));
  const payload = JSON.stringify({
    api: { version: '1.0.0', request_id: requestId, timestamp: new Date().toISOString() },
    error: body,
  });
  return (
    `HTTP/1.1 ${c.status} ${STATUS_CODES[c.status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(payload)}\r\n` +
    `X-Request-ID: ${requestId}\r\n` +
    'X-API-Version: 1.0.0\r\n' +
    'Connection: close\r\n\r\n' +
    payload
  );
}

export function clientErrorHandler(err: ConnectionError, socket: Socket): void {
  // A connection the client already dropped gets no answer; nor one that has started a response.
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable || responseStarted(socket)) {
    socket.destroy(err);
    return;
  }
  socket.end(clientErrorResponse(err.code));
}
