// The training pages (`/training`, `/training/{module_id}`). The module HTML comes from the domain renderer, which
// escapes its source (src/domain/training.ts): the one place a page takes HTML as it is. Start and complete are
// plain form posts back to the page (POST-redirect-GET). The self-check answers are behind <details>.
import type { TrainingModule } from '../../domain/training.ts';
import type { MemberModuleState } from '../../services/training.ts';
import { Csrf, html, Layout, type Viewer, Scroll } from './layout.tsx';

const LABEL = { not_started: 'Not started', in_progress: 'In progress', completed: 'Completed' } as const;

const Status = ({ s }: { s: MemberModuleState }) => <span class={`badge st st-${s.status}`}>{LABEL[s.status]}</span>;

export function renderTrainingList(
  rows: { module: TrainingModule; state: MemberModuleState }[],
  percent: number,
  viewer: Viewer | null = null,
): string {
  return html(
    <Layout title="Training" current="/training" viewer={viewer}>
      <h1>Training</h1>
      <p class="sub">
        Five modules for ICS/OT security work, one per topic. Your progress: <strong id="percent">{percent} %</strong>{' '}
        complete.
      </p>
      <progress max={100} value={percent} aria-label="Training progress">
        {percent} %
      </progress>
      <Scroll label="Training modules">
        <table id="modules">
          <thead>
            <tr>
              <th>#</th>
              <th>Module</th>
              <th>Time</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ module: m, state: s }) => (
              <tr>
                <td>{m.order}</td>
                <td>
                  <a href={`/training/${m.id}`}>{m.title}</a>
                  <br />
                  <span class="sub">{m.summary}</span>
                </td>
                <td>{m.estimated_minutes} min</td>
                <td>
                  <Status s={s} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </Layout>,
  );
}

/** The forms carry the session's CSRF token (`_csrf`); null when the page is read with an API key. */
export function renderTrainingModule(
  m: TrainingModule,
  s: MemberModuleState,
  csrf: string | null = null,
  viewer: Viewer | null = null,
): string {
  const action =
    s.status === 'not_started' ? (
      <form method="post" action={`/training/${m.id}/start`}>
        <Csrf token={csrf} />
        <button type="submit" id="start">
          Start this module
        </button>
      </form>
    ) : s.status === 'in_progress' ? (
      <form method="post" action={`/training/${m.id}/complete`}>
        <Csrf token={csrf} />
        <button type="submit" id="complete">
          Mark as complete
        </button>
      </form>
    ) : (
      <p id="done">Completed on {s.completed_at?.slice(0, 10)}.</p>
    );
  return html(
    <Layout title={m.title} current="/training" viewer={viewer}>
      <p>
        <a href="/training">Back to all modules</a>
      </p>
      <h1 id="title">{m.title}</h1>
      <p class="sub">
        {m.category} · about {m.estimated_minutes} minutes · <Status s={s} />
      </p>
      <p>{m.summary}</p>
      <ol id="toc">
        {m.sections.map((x) => (
          <li>
            <a href={`#${x.id}`}>{x.title}</a>
          </li>
        ))}
      </ol>
      {action}
      {m.sections.map((x) => (
        <section id={x.id}>
          <h2>{x.title}</h2>
          {/* The domain renderer's output: its source text is escaped there (src/domain/training.ts). */}
          <div dangerouslySetInnerHTML={{ __html: x.html }} />
        </section>
      ))}
      <section id="self-check">
        <h2>Self-check</h2>
        <p class="sub">Answer each question for yourself, then open it to compare.</p>
        {m.self_check.map((q, i) => (
          <details>
            <summary>
              {i + 1}. {q.question}
            </summary>
            <p>{q.answer}</p>
          </details>
        ))}
      </section>
      {s.status === 'in_progress' ? action : null}
    </Layout>,
  );
}
