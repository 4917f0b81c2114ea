// The test client (test/helpers/api-client.ts) holds every answer to the app's OpenAPI document: a JSON body that
// breaks its documented schema (as a route writing its answer as bytes could) and a status the operation does not
// list both fail the call; a conforming answer passes and reaches the caller typed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { testApp, type TestApp } from '../helpers/app.ts';
import { apiClient, rawBody } from '../helpers/api-client.ts';

let t: TestApp;
before(async () => {
  t = await testApp({
    testRoutes: (app) => {
      app.get(
        '/api/v1/__test/answer/:kind',
        {
          schema: {
            params: Type.Object({ kind: Type.String() }),
            querystring: Type.Object({}),
            response: { 200: Type.Object({ n: Type.Integer() }) },
          },
          config: { auth: { mode: 'none', tenant: false } },
        },
        async (req, reply) => {
          const { kind } = req.params as { kind: string };
          // Bytes skip the response serializer: what the server sends is exactly this text.
          if (kind === 'bytes')
            return reply.header('content-type', 'application/json; charset=utf-8').send(Buffer.from('{"n":"one"}'));
          return { n: 1 };
        },
      );
      app.get(
        '/api/v1/__test/teapot',
        { schema: { querystring: Type.Object({}) }, config: { auth: { mode: 'none', tenant: false } } },
        async (_req, reply) => reply.code(418).send({}),
      );
    },
  });
});
after(async () => {
  await t.close();
});

/** The client with its paths erased: the test route is in the app's document, not in the generated types. */
const untyped = () =>
  apiClient(t.app) as unknown as { GET(path: string, init: object): Promise<{ data?: unknown; response: Response }> };
const get = (kind: string) => untyped().GET('/api/v1/__test/answer/{kind}', { params: { path: { kind } } });

test('a conforming answer passes, with its raw bytes kept', async () => {
  const { data, response } = await get('good');
  assert.equal(response.status, 200);
  assert.deepEqual(data, { n: 1 });
  assert.equal(rawBody(response), '{"n":1}');
});

test('a JSON body against its documented schema fails the call, naming the field', async () => {
  await assert.rejects(
    get('bytes'),
    /GET \/api\/v1\/__test\/answer\/\{kind\} → 200: the answer does not match its documented schema: .*"instancePath":"\/n".*must be integer/,
  );
});

test('a status the operation does not document fails the call, listing the documented ones', async () => {
  await assert.rejects(
    untyped().GET('/api/v1/__test/teapot', {}),
    /GET \/api\/v1\/__test\/teapot → 418: status not documented \(listed: 200, 400, .*500/,
  );
});

test('a path the document does not hold fails the call', async () => {
  await assert.rejects(
    untyped().GET('/api/v1/__test/nowhere', {}),
    /GET \/api\/v1\/__test\/nowhere is not in the OpenAPI document/,
  );
});
