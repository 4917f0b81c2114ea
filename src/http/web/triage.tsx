// Triage pages (docs/triage.md, docs/web.md): an environment's decisions with a bulk form, and one (environment, CVE)
// decision's form, comments and history. Thin views over services/triage.ts; a viewer sees no form.
import type { Environment } from '../../services/environments.ts';
import type { DecisionView, HistoryView } from '../../services/triage.ts';
import { DECISION_STATUSES, JUSTIFICATIONS } from '../../domain/triage.ts';
import { canChange, Csrf, FieldError, html, Layout, Scroll, when, type Viewer } from './layout.tsx';
import { isRecord } from '../../domain/is-record.ts';

export interface Member {
  id: number;
  email: string;
  name: string;
}
export type DecisionForm = Partial<
  Record<
    | 'status'
    | 'justification'
    | 'impact_statement'
    | 'action_statement'
    | 'due_date'
    | 'assignee_member_id'
    | 'comment',
    string
  >
>;

const STATUS_TEXT: Record<string, string> = {
  under_investigation: 'under investigation',
  affected: 'affected',
  not_affected: 'not affected',
  fixed: 'fixed',
};
const label = (v: string) => v.replace(/_/g, ' ');

/** The decision fields as form controls, filled from `f`, each with its field's message. */
function DecisionFields({
  f,
  errors,
  members,
  prefix = '',
}: {
  f: DecisionForm;
  errors?: Record<string, string>;
  members: Member[];
  prefix?: string;
}) {
  const id = (n: string) => `${prefix}${n}`;
  const invalid = (n: string) => (errors?.[n] ? 'true' : undefined);
  return (
    <>
      <label>
        Status{' '}
        <select name="status" id={id('status')} aria-invalid={invalid('status')}>
          {DECISION_STATUSES.map((s) => (
            <option value={s} selected={f.status === s}>
              {STATUS_TEXT[s]}
            </option>
          ))}
        </select>
        <FieldError errors={errors} field="status" />
      </label>
      <label>
        Justification (not affected){' '}
        <select name="justification" id={id('justification')} aria-invalid={invalid('justification')}>
          <option value="" selected={!f.justification}>
            none
          </option>
          {JUSTIFICATIONS.map((j) => (
            <option value={j} selected={f.justification === j}>
              {label(j)}
            </option>
          ))}
        </select>
        <FieldError errors={errors} field="justification" />
      </label>
      <label>
        Impact statement{' '}
        <textarea name="impact_statement" rows={3} maxLength={4000} aria-invalid={invalid('impact_statement')}>
          {f.impact_statement ?? ''}
        </textarea>
        <FieldError errors={errors} field="impact_statement" />
      </label>
      <label>
        Action statement (affected){' '}
        <textarea name="action_statement" rows={3} maxLength={4000} aria-invalid={invalid('action_statement')}>
          {f.action_statement ?? ''}
        </textarea>
        <FieldError errors={errors} field="action_statement" />
      </label>
      <label>
        Due date (affected){' '}
        <input type="date" name="due_date" value={f.due_date ?? ''} aria-invalid={invalid('due_date')} />
        <FieldError errors={errors} field="due_date" />
      </label>
      <label>
        Assignee{' '}
        <select name="assignee_member_id" aria-invalid={invalid('assignee_member_id')}>
          <option value="" selected={!f.assignee_member_id}>
            nobody
          </option>
          {members.map((m) => (
            <option value={String(m.id)} selected={f.assignee_member_id === String(m.id)}>
              {m.name ? `${m.name} (${m.email})` : m.email}
            </option>
          ))}
        </select>
        <FieldError errors={errors} field="assignee_member_id" />
      </label>
      <label>
        Comment{' '}
        <textarea name="comment" rows={2} maxLength={2000} aria-invalid={invalid('comment')}>
          {f.comment ?? ''}
        </textarea>
        <FieldError errors={errors} field="comment" />
      </label>
    </>
  );
}

function formOf(d: DecisionView | null): DecisionForm {
  if (!d) return { status: 'under_investigation' };
  return {
    status: d.status,
    justification: d.justification ?? '',
    impact_statement: d.impact_statement ?? '',
    action_statement: d.action_statement ?? '',
    due_date: d.due_date ?? '',
    assignee_member_id: d.assignee ? String(d.assignee.member_id) : '',
  };
}

function Review({ d }: { d: DecisionView }) {
  return d.review.needed ? (
    <span class="badge sev-HIGH" title={d.review.reasons.join('; ')}>
      review again
    </span>
  ) : null;
}

interface BulkOutcome {
  matched: number;
  created: number;
  updated: number;
  unchanged: number;
}
export type BulkForm = DecisionForm &
  Partial<Record<'vendor' | 'product' | 'attack_vector' | 'correlation_status' | 'undecided', string>>;

export function renderDecisions(
  v: Viewer,
  env: Environment,
  items: DecisionView[],
  total: number,
  members: Member[],
  s: { bulk?: BulkForm; errors?: Record<string, string>; outcome?: BulkOutcome } = {},
): string {
  const b = s.bulk ?? { status: 'not_affected', undecided: 'true' };
  return html(
    <Layout title={`Decisions: ${env.name}`} current="/environments" viewer={v}>
      <p>
        <a href={`/environments/${env.id}`}>{env.name}</a>
      </p>
      <h1>Decisions in {env.name}</h1>
      {s.outcome ? (
        <p class="flash" role="status" id="bulk-outcome">
          Applied to {s.outcome.matched} CVEs: {s.outcome.created} decided, {s.outcome.updated} changed,{' '}
          {s.outcome.unchanged} already so.
        </p>
      ) : null}
      <p>{total} decisions. Not affected and fixed leave the open counts; they stay listed here.</p>
      {items.length ? (
        <Scroll label="Decisions">
          <table id="decisions">
            <thead>
              <tr>
                <th>CVE</th>
                <th>Status</th>
                <th>Assignee</th>
                <th>Due</th>
                <th>Changed (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr>
                  <td>
                    <a href={`/environments/${env.id}/decisions/${d.cve_id}`}>{d.cve_id}</a> <Review d={d} />
                  </td>
                  <td>
                    {STATUS_TEXT[d.status]}
                    {d.justification ? ` (${label(d.justification)})` : ''}
                  </td>
                  <td>{d.assignee ? d.assignee.name || d.assignee.email : '—'}</td>
                  <td>{d.due_date ?? '—'}</td>
                  <td>{when(d.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : (
        <p class="none">No decision yet. Decide a CVE from its row on the environment page.</p>
      )}
      {canChange(v) ? (
        <>
          <h2>Apply one decision to many CVEs</h2>
          <form method="post" action={`/environments/${env.id}/decisions/bulk`} class="stack" id="bulk" novalidate>
            <Csrf token={v.csrf} />
            <fieldset>
              <legend>Which CVEs of this environment's stored results</legend>
              <label>
                Vendor contains <input name="vendor" maxLength={200} value={b.vendor ?? ''} />
              </label>
              <label>
                Product contains <input name="product" maxLength={200} value={b.product ?? ''} />
              </label>
              <label>
                Attack vector{' '}
                <select name="attack_vector">
                  {[
                    ['', 'any'],
                    ['N', 'network'],
                    ['A', 'adjacent network'],
                    ['L', 'local'],
                    ['P', 'physical'],
                  ].map(([val, t]) => (
                    <option value={val} selected={(b.attack_vector ?? '') === val}>
                      {t}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Correlation{' '}
                <select name="correlation_status">
                  {[
                    ['', 'any'],
                    ['affected', 'affected'],
                    ['needs_review', 'needs review'],
                  ].map(([val, t]) => (
                    <option value={val} selected={(b.correlation_status ?? '') === val}>
                      {t}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                <input type="checkbox" name="undecided" value="true" checked={b.undecided === 'true'} /> Undecided CVEs
                only
              </label>
              <FieldError errors={s.errors} field="filter" />
            </fieldset>
            <fieldset>
              <legend>The decision</legend>
              <DecisionFields f={b} errors={s.errors} members={members} prefix="bulk-" />
            </fieldset>
            <button type="submit">Apply to the matching CVEs</button>
          </form>
        </>
      ) : (
        <p class="note">Owners and admins record decisions.</p>
      )}
    </Layout>,
  );
}

export function renderDecision(
  v: Viewer,
  env: Environment,
  cveId: string,
  d: DecisionView | null,
  history: HistoryView[],
  members: Member[],
  s: { form?: DecisionForm; errors?: Record<string, string>; notice?: string } = {},
): string {
  const f = s.form ?? formOf(d);
  return html(
    <Layout title={`${cveId} in ${env.name}`} current="/environments" viewer={v}>
      <p>
        <a href={`/environments/${env.id}`}>{env.name}</a> ·{' '}
        <a href={`/environments/${env.id}/decisions`}>All decisions</a> · <a href={`/cve/${cveId}`}>{cveId}</a>
      </p>
      <h1>
        {cveId} in {env.name}
      </h1>
      {s.notice ? (
        <p class="flash" role="status">
          {s.notice}
        </p>
      ) : null}
      {d ? (
        <p id="current">
          Decided: <strong>{STATUS_TEXT[d.status]}</strong>
          {d.justification ? ` (${label(d.justification)})` : ''} · version {d.version} · changed {when(d.updated_at)}{' '}
          UTC{d.open ? '' : ' · left the open counts'} <Review d={d} />
        </p>
      ) : (
        <p id="current">Not decided yet.</p>
      )}
      {d?.review.needed ? (
        <p class="alert-box">
          Review again: {d.review.reasons.join('; ')}. Saving the decision (changed or not) marks it reviewed.
        </p>
      ) : null}
      {canChange(v) ? (
        <>
          <h2>{d ? 'Change the decision' : 'Decide'}</h2>
          <form
            method="post"
            action={`/environments/${env.id}/decisions/${cveId}`}
            class="stack"
            id="decision"
            novalidate
          >
            <Csrf token={v.csrf} />
            <DecisionFields f={f} errors={s.errors} members={members} />
            <button type="submit">Save the decision</button>
          </form>
          {d ? (
            <form class="inline" method="post" action={`/environments/${env.id}/decisions/${cveId}/clear`}>
              <Csrf token={v.csrf} />
              <button type="submit" class="danger">
                Clear the decision
              </button>
            </form>
          ) : null}
        </>
      ) : null}
      {d?.comments?.length ? (
        <>
          <h2>Comments</h2>
          <ul id="comments">
            {d.comments.map((c) => (
              <li>
                <span class="sub">
                  {when(c.at)} UTC, {c.by}:
                </span>{' '}
                {c.text}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h2>History</h2>
      {history.length ? (
        <Scroll label="History">
          <table id="history">
            <thead>
              <tr>
                <th>When (UTC)</th>
                <th>Who</th>
                <th>What</th>
                <th>Before</th>
                <th>After</th>
                <th>Comment</th>
              </tr>
            </thead>
            <tbody>
              {history.map((h) => (
                <tr>
                  <td>{when(h.at)}</td>
                  <td>{h.actor.label}</td>
                  <td>{label(h.action)}</td>
                  <td>{summary(h.before)}</td>
                  <td>{summary(h.after)}</td>
                  <td>{h.comment ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      ) : (
        <p class="none">No change recorded.</p>
      )}
    </Layout>,
  );
}

/** A history snapshot in a line: status, justification, due date and the statements. */
function summary(s: object | null): string {
  if (!s) return '—';
  const x: Record<string, unknown> = isRecord(s) ? s : {};
  const on = (v: unknown, said: (t: string) => string | undefined) => (typeof v === 'string' && v ? said(v) : null);
  const reasons = Array.isArray(x.review_reasons) ? x.review_reasons.filter((r) => typeof r === 'string') : [];
  return [
    on(x.status, (t) => STATUS_TEXT[t]),
    on(x.justification, label),
    on(x.due_date, (t) => `due ${t}`),
    on(x.impact_statement, (t) => `impact: ${t}`),
    on(x.action_statement, (t) => `action: ${t}`),
    reasons.length ? `review: ${reasons.join('; ')}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}
