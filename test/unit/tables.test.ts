// Readers, sync sources and CLI commands are explicit tables: each is complete without any module
// being imported for its side effect. This file imports only the tables' own modules, so a format, source or
// command that still relied on registration by import would be missing here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { detectFormat, readFeed, READERS } from '../../src/ingest/detect.ts';
import { SYNC_SOURCES, syncSources } from '../../src/services/sync/sync.ts';
import { runCli } from '../../src/cli.ts';
import { commandsFor, TABLES } from '../../src/cli-commands.ts';
import { fixture } from '../helpers/feeds.ts';

test('every detected format has its reader in READERS, MSRC included', async () => {
  assert.deepEqual(Object.keys(READERS).sort(), [
    'capec-stix',
    'csaf',
    'csaf-jsonl',
    'cve5',
    'cve5-jsonl',
    'cve5-zip',
    'cwe-xml',
    'epss-csv',
    'epss-ssv',
    'kev',
    'msrc-cvrf',
    'msrc-index',
    'nvd-page',
    'nvd-record',
  ]);
  const file = fixture('msrc', '2024-Aug.xml.gz');
  assert.equal(await detectFormat(file), 'msrc-cvrf');
  const kinds = new Set<string>();
  for await (const item of readFeed(file)) kinds.add(item.kind);
  assert.deepEqual([...kinds].sort(), ['cve', 'meta', 'msrc-document']);
});

test('the sync runs every source of SYNC_SOURCES in order, MSRC last', () => {
  assert.equal(syncSources(), SYNC_SOURCES);
  assert.deepEqual(
    SYNC_SOURCES.map((s) => s.name),
    ['cwe', 'capec', 'nvd', 'cve5', 'csaf', 'kev', 'epss', 'msrc'],
  );
});

test('the CLI lists every command of both tables; serve loads only the core table', async () => {
  let out = '';
  assert.equal(
    await runCli(['help'], {
      out: (s) => {
        out += s;
      },
      err: (s) => {
        out += s;
      },
    }),
    0,
  );
  const names = [...out.matchAll(/^ {2}(\S+(?: \S+)?)\s{2,}/gm)].map((m) => m[1]).sort();
  assert.deepEqual(names, [
    'alerts run',
    'import',
    'key create',
    'key list',
    'key revoke',
    'login-link',
    'migrate',
    'org caps',
    'org create',
    'org set-provider',
    'org set-tier',
    'serve',
    'sync',
    'trial end',
    'worker',
  ]);
  let err = '';
  assert.equal(
    await runCli(['key', 'nonsense'], {
      out: () => {},
      err: (s) => {
        err += s;
      },
    }),
    2,
  );
  assert.match(err, /^Unknown command: key nonsense/);
});

test('each command table is listed under the names of exactly its commands, and a command loads only its own table', async () => {
  const all: string[] = [];
  for (const t of TABLES) {
    const table = await t.load();
    assert.deepEqual(Object.keys(table).sort(), [...t.names].sort());
    all.push(...t.names);
  }
  assert.equal(new Set(all).size, all.length, 'a command name is in two tables');
  // Two-word commands are matched on both words, one-word commands on the first, whatever follows.
  assert.deepEqual(Object.keys(await commandsFor(['org', 'caps', '--org', '1'])), ['org caps']);
  assert.deepEqual(Object.keys(await commandsFor(['org', 'create', '--name', 'x'])).sort(), [
    'key create',
    'key list',
    'key revoke',
    'org create',
    'org set-tier',
    'trial end',
  ]);
  assert.deepEqual(Object.keys(await commandsFor(['import', 'some/dir'])), ['import']);
  assert.deepEqual(Object.keys(await commandsFor(['alerts', 'run'])), ['alerts run']);
  // help, a bare group word and an unknown command see every table.
  for (const argv of [['help'], ['org'], ['nonsense']])
    assert.deepEqual(Object.keys(await commandsFor(argv)).sort(), all.sort());
});
