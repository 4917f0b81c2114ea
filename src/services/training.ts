// Training (spec §4.4): the module catalogue, loaded once from disk when the app is built (a broken module file
// stops the start with TrainingContentError naming the file), and each member's own progress. Never sees a
// request; callers pass who is asking.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import {
  buildCatalogue,
  moduleStatus,
  parseModule,
  summarizeProgress,
  TrainingContentError,
  type ModuleStatus,
  type ProgressRow,
  type TrainingModule,
} from '../domain/training.ts';
import { completeModule, getProgress, listProgress, startModule, type Member } from '../store/training.ts';
import { Refusal } from './refusal.ts';
import { errorMessage } from '../lib/errors.ts';

/** Reads and validates every `*.md` of the directory. Throws TrainingContentError on the first problem. */
export function loadTrainingCatalogue(dir: string): TrainingModule[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.md'))
      .sort();
  } catch (e) {
    throw new TrainingContentError(dir, `cannot read the training directory: ${errorMessage(e)}`);
  }
  return buildCatalogue(
    files.map((f) => {
      const file = path.join(dir, f);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        throw new TrainingContentError(file, `cannot read: ${errorMessage(e)}`);
      }
      return { file, module: parseModule(file, text) };
    }),
  );
}

export interface MemberModuleState {
  status: ModuleStatus;
  started_at: string | null;
  completed_at: string | null;
}

const state = (row: ProgressRow | undefined): MemberModuleState => ({
  status: moduleStatus(row),
  started_at: row ? row.started_at.toISOString() : null,
  completed_at: row?.completed_at ? row.completed_at.toISOString() : null,
});

/** No module of this id in the catalogue (404; detail resource, identifier). */
export function moduleNotFound(id: string): Refusal {
  return new Refusal('module_not_found', `No training module "${id}"; GET /api/v1/training/modules lists them`, {
    resource: 'training_module',
    identifier: id,
  });
}

/** Completing a module never started (409 module_not_started). */
function moduleNotStarted(id: string): Refusal {
  return new Refusal(
    'module_not_started',
    `Training module "${id}" has not been started; start it first with POST /api/v1/training/modules/${id}/start`,
    { module_id: id },
  );
}

export function createTrainingService(db: Db, clock: Clock, dir: string) {
  const catalogue = loadTrainingCatalogue(dir);
  const byId = new Map(catalogue.map((m) => [m.id, m]));
  const shown: readonly TrainingModule[] = catalogue;
  return {
    catalogue: shown,
    module: (id: string) => byId.get(id),

    /** Every module with the member's status, in catalogue order. */
    async list(m: Member) {
      const rows = new Map((await listProgress(db, m)).map((r) => [r.module_id, r]));
      return catalogue.map((mod) => ({ module: mod, state: state(rows.get(mod.id)) }));
    },

    async detail(m: Member, id: string) {
      const mod = byId.get(id);
      if (!mod) return null;
      return { module: mod, state: state(await getProgress(db, m, id)) };
    },

    /** Idempotent: the first start time stays. Null for an unknown module. */
    async start(m: Member, id: string) {
      const mod = byId.get(id);
      if (!mod) return null;
      return { module: mod, state: state(await startModule(db, m, id, clock.now())) };
    },

    /** Idempotent once started: the first completion time stays. An unknown module or one never started is refused. */
    async complete(m: Member, id: string): Promise<{ module: TrainingModule; state: MemberModuleState }> {
      const mod = byId.get(id);
      if (!mod) throw moduleNotFound(id);
      const row = await completeModule(db, m, id, clock.now());
      if (!row) throw moduleNotStarted(id);
      return { module: mod, state: state(row) };
    },

    async progress(m: Member) {
      const rows = await listProgress(db, m);
      const byModule = new Map(rows.map((r) => [r.module_id, r]));
      return {
        ...summarizeProgress(catalogue, rows),
        modules: catalogue.map((mod) => ({ module_id: mod.id, title: mod.title, ...state(byModule.get(mod.id)) })),
      };
    },
  };
}

export type TrainingService = ReturnType<typeof createTrainingService>;
