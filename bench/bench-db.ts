// A migrated database for a bench run, under its own name: `npm test` clears vi_t_* databases at start, which
// would pull a bench database away mid-run.
import pg from 'pg';
import { ADMIN_URL, ensureTemplate } from '../test/helpers/db.ts';
import { openStore, type Store } from '../src/store/db.ts';

export async function benchDb(label: string): Promise<{ store: Store; drop(): Promise<void> }> {
  const tpl = await ensureTemplate();
  const name = `vi_bench_${label}_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${tpl}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const store = openStore(url.toString(), { max: 5 });
  return {
    store,
    async drop() {
      await store.close();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}
