// The systemd units under deploy/ (docs/deploy.md): `systemd-analyze verify` accepts each one (no unknown key, no
// bad value, every command executable) where systemd is installed; everywhere, a parser of the unit-file format
// holds them to their sections, known keys, absolute commands, and the settings docs/deploy.md relies on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = path.join(repoRoot, 'deploy');
const units = readdirSync(dir)
  .filter((f) => /\.(service|timer)$/.test(f))
  .sort();

const KNOWN: Record<string, Set<string>> = {
  Unit: new Set(['Description', 'Documentation', 'After', 'Wants', 'Requires', 'Before', 'PartOf']),
  Service: new Set([
    'Type',
    'User',
    'Group',
    'WorkingDirectory',
    'EnvironmentFile',
    'Environment',
    'ExecStart',
    'ExecStartPost',
    'Restart',
    'RestartSec',
    'KillSignal',
    'TimeoutStopSec',
    'NoNewPrivileges',
    'PrivateTmp',
    'ProtectSystem',
    'ProtectHome',
    'ReadWritePaths',
    'LimitNOFILE',
  ]),
  Timer: new Set(['OnCalendar', 'Persistent', 'RandomizedDelaySec', 'Unit']),
  Install: new Set(['WantedBy', 'RequiredBy']),
};

/** A unit file as systemd reads it: sections of `Key=Value` lines; comments and blank lines skipped. */
function parseUnit(text: string): Map<string, [string, string][]> {
  const out = new Map<string, [string, string][]>();
  let section: string | null = null;
  text.split('\n').forEach((line, i) => {
    const l = line.trim();
    if (l === '' || l.startsWith('#') || l.startsWith(';')) return;
    const sec = /^\[([A-Za-z]+)\]$/.exec(l);
    if (sec) {
      section = sec[1];
      assert.ok(!out.has(section), `line ${i + 1}: section [${section}] twice`);
      out.set(section, []);
      return;
    }
    const kv = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(l);
    assert.ok(kv, `line ${i + 1}: not Key=Value: ${l}`);
    assert.ok(section, `line ${i + 1}: a key before any section`);
    out.get(section)!.push([kv[1], kv[2]]);
  });
  return out;
}

test('docs/deploy.md names every unit under deploy/', () => {
  const doc = readFileSync(path.join(repoRoot, 'docs', 'deploy.md'), 'utf8');
  assert.deepEqual(units, [
    'vulnintel-api@.service',
    'vulnintel-backup.service',
    'vulnintel-backup.timer',
    'vulnintel-worker@.service',
  ]);
  for (const u of units) assert.ok(doc.includes(`deploy/${u}`), `docs/deploy.md names deploy/${u}`);
});

test('each unit parses: known sections and keys, absolute commands, the settings the deployment relies on', () => {
  for (const u of units) {
    const p = parseUnit(readFileSync(path.join(dir, u), 'utf8'));
    for (const [section, keys] of p) {
      assert.ok(KNOWN[section], `${u}: unknown section [${section}]`);
      for (const [k, v] of keys) {
        assert.ok(KNOWN[section].has(k), `${u}: unknown key ${k} in [${section}]`);
        if (/^Exec/.test(k)) assert.match(v, /^\//, `${u}: ${k} is an absolute path`);
        if (/^(Restart)$/.test(k))
          assert.ok(['no', 'on-failure', 'always', 'on-abnormal'].includes(v), `${u}: Restart=${v}`);
        if (/^(NoNewPrivileges|PrivateTmp|Persistent)$/.test(k))
          assert.ok(['true', 'false', 'yes', 'no'].includes(v), `${u}: ${k}=${v}`);
      }
    }
    assert.ok(
      p.get('Unit')?.some(([k]) => k === 'Description'),
      `${u}: a Description`,
    );
    const service = p.get('Service');
    if (u.endsWith('.service')) {
      assert.ok(
        service?.some(([k]) => k === 'ExecStart'),
        `${u}: an ExecStart`,
      );
      assert.ok(
        service?.some(([k, v]) => k === 'User' && v === 'vulnintel'),
        `${u}: runs as the vulnintel user, never root`,
      );
    }
  }
  const api = parseUnit(readFileSync(path.join(dir, 'vulnintel-api@.service'), 'utf8')).get('Service')!;
  assert.ok(
    api.some(([k, v]) => k === 'Environment' && v === 'VULNINTEL_WORKERS=0'),
    'API processes run no workers',
  );
  assert.ok(
    api.some(([k, v]) => k === 'Environment' && v === 'PORT=%i'),
    'the instance name is the port',
  );
  assert.ok(api.some(([k, v]) => k === 'ExecStart' && / serve$/.test(v)));
  const worker = parseUnit(readFileSync(path.join(dir, 'vulnintel-worker@.service'), 'utf8')).get('Service')!;
  assert.ok(worker.some(([k, v]) => k === 'ExecStart' && / worker$/.test(v)));
  // Every process reads the same settings file, which names the shared sealing key and the trusted proxy.
  const env = readFileSync(path.join(dir, 'vulnintel.env.example'), 'utf8');
  for (const name of [
    'VULNINTEL_SECRET_KEY_FILE',
    'VULNINTEL_TRUSTED_PROXIES',
    'DATABASE_URL_FILE',
    'DATABASE_REPLICA_URL_FILE',
  ]) {
    assert.match(env, new RegExp(`^${name}=`, 'm'), `vulnintel.env.example sets ${name}`);
  }
});

test('the parser refuses what systemd would not read', () => {
  assert.throws(() => parseUnit('Description=x\n'), /before any section/);
  assert.throws(() => parseUnit('[Unit]\nDescription x\n'), /not Key=Value/);
  assert.throws(() => parseUnit('[Unit]\n[Unit]\n'), /twice/);
});

const hasSystemd = spawnSync('systemd-analyze', ['--version'], { stdio: 'ignore' }).status === 0;

test(
  'systemd-analyze verify accepts every unit (where systemd is installed)',
  { skip: hasSystemd ? false : 'systemd-analyze not installed: the parser test above holds the format' },
  () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'vi-units-'));
    try {
      const files: string[] = [];
      for (const u of units) {
        // A template is verified as an instance; node where this machine has it.
        const name = u.replace('@.service', '@8081.service');
        writeFileSync(
          path.join(tmp, name),
          readFileSync(path.join(dir, u), 'utf8').replaceAll('/usr/bin/node', process.execPath),
        );
        files.push(path.join(tmp, name));
      }
      const r = spawnSync('systemd-analyze', ['verify', ...files], { encoding: 'utf8', cwd: tmp });
      const complaints = (r.stderr ?? '')
        .split('\n')
        .filter((l) => l.trim() !== '' && files.some((f) => l.includes(path.basename(f))));
      assert.deepEqual(complaints, [], r.stderr);
      assert.equal(r.status, 0, r.stderr);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
);
