// The error envelope of the OpenAPI document (spec §7): the schema of every error body, as the `ErrorEnvelope`
// component that each operation's error responses reference (openapi-error-document.ts).
import { Type, type Static } from 'typebox';
import { ERRORS, type ErrorBody } from './errors.ts';
import { REQUEST_ID_RE } from '../lib/ids.ts';

const unique = <T>(xs: T[]) => [...new Set(xs)];
const ValidationField = Type.Object(
  { field: Type.String(), message: Type.String(), type: Type.String() },
  { additionalProperties: false },
);

/** The error envelope as sendError (conventions.ts) and the HTTP-parser answers (client-errors.ts) write it. */
export const ErrorEnvelope = Type.Object(
  {
    api: Type.Object(
      {
        version: Type.String({ description: '1.0.0 on /api/v1/… (and outside /api/), 2.0.0 on /api/v2/…' }),
        request_id: Type.String({ pattern: REQUEST_ID_RE.source, description: 'Also the X-Request-ID header' }),
        timestamp: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
    error: Type.Object(
      {
        code: Type.Unsafe<string>({
          type: 'string',
          enum: unique(Object.values(ERRORS).map((e) => e.code)),
          description: 'The general SCREAMING_SNAKE code',
        }),
        message: Type.String(),
        retryable: Type.Boolean({ description: 'True only when repeating the same request later may succeed' }),
        retry_after_seconds: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
          description: 'Seconds to wait; the same value as the Retry-After header, which is absent when this is null',
        }),
        action: Type.Unsafe<string>({ type: 'string', enum: unique(Object.values(ERRORS).map((e) => e.action)) }),
        reset_at: Type.Optional(
          Type.String({ format: 'date-time', description: 'Only on usage limits that reset (PARTNER_LIMIT)' }),
        ),
        max: Type.Optional(Type.Integer({ description: 'Only on batch and count limits; also detail.max' })),
        detail: Type.Union([
          Type.Object(
            { error: Type.String({ description: 'The specific lower-case code' }) },
            { additionalProperties: true },
          ),
          Type.Array(ValidationField, { description: 'VALIDATION_ERROR: one item per refused field' }),
        ]),
      },
      { additionalProperties: false },
    ),
    data: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'Data next to the error: the refused assets or hosts (data.rejected) when every one was refused',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'The error envelope (spec §7). Every error answer of the API has this body.',
  },
);

// The schema names exactly the fields the handler renders (a compile-time check: a field added to ErrorBody
// without the schema, or the other way round, fails the type check).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const fieldsMatch: Same<keyof ErrorBody, keyof Static<typeof ErrorEnvelope>['error']> = true;
void fieldsMatch;

export const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';
