// What the asset-correlation capabilities share: a call's input and its answers.
import type { Principal } from '../identity.ts';
import type { AssetAnswer, CorrelateOptions } from '../correlation-answer.ts';
import type { RejectedAsset } from './match.ts';

/** Spec §4.7 / §8: at most 200 assets per call. */
export const MAX_ASSETS = 200;

export interface CorrelateInput {
  principal: Principal;
  requestId: string;
  assets: unknown[];
  environmentId: number | null;
  options: CorrelateOptions;
  /** A file upload of the web app: one refused asset refuses the call (422 with data.rejected), nothing stored. */
  wholeFile?: boolean;
}

/**
 * A correlate call's answers: `count` assets, each answer made when taken (answer(i), in order, once each). `fail`
 * gives the call's charged checks back when writing the answers fails after they were charged.
 */
export interface CorrelateAnswers {
  rejected: RejectedAsset[];
  stored: boolean;
  count: number;
  answer: (i: number) => AssetAnswer;
  fail: () => Promise<void>;
  /** In an environment: each answer carries the triage decisions (AssetAnswer.decisions). */
  decided?: boolean;
}
