// The training pages (`/training`, `/training/{module_id}`): server-rendered, no JavaScript, every value escaped
// (the module HTML comes from the domain renderer, which escapes its source). Start and complete are plain form
// posts back to the page (POST-redirect-GET). The self-check answers are behind <details>.
import { esc } from './cve-html.ts';
import type { TrainingModule } from '../../domain/training.ts';
import type { MemberModuleState } from '../../services/training.ts';

const CSS = `body{font:16px/1.55 system-ui,sans-serif;max-width:52rem;margin:0 auto;padding:1rem 1.5rem;color:#1b1f24}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1.05rem}.sub{color:#57606a;margin-top:0}nav a{margin-right:1rem}
table{border-collapse:collapse;width:100%;margin:.6rem 0}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #eaeef2;vertical-align:top}
code{font-size:.9rem;background:#f6f8fa;padding:.05rem .25rem;border-radius:.2rem}pre{background:#f6f8fa;padding:.7rem;overflow:auto}
.st{display:inline-block;padding:.1rem .5rem;border-radius:.3rem;font-size:.85rem;font-weight:600}
.st-not_started{background:#eaeef2}.st-in_progress{background:#bf8700;color:#fff}.st-completed{background:#1a7f37;color:#fff}
.bar{background:#eaeef2;border-radius:.3rem;height:.7rem;max-width:20rem}.bar span{display:block;height:100%;background:#1a7f37;border-radius:.3rem}
details{margin:.4rem 0;padding:.4rem .6rem;border:1px solid #d0d7de;border-radius:.3rem}summary{cursor:pointer;font-weight:600}
button{font:inherit;padding:.35rem .9rem;border-radius:.3rem;border:1px solid #1a7f37;background:#1a7f37;color:#fff;cursor:pointer}`;

const LABEL = { not_started: 'Not started', in_progress: 'In progress', completed: 'Completed' } as const;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} | Vulnintel</title><style>${CSS}</style></head>
<body><main>
${body}
</main></body></html>
`;
}

const status = (s: MemberModuleState) => `<span class="st st-${esc(s.status)}">${esc(LABEL[s.status])}</span>`;

export function renderTrainingList(rows: { module: TrainingModule; state: MemberModuleState }[], percent: number): string {
  const items = rows.map(({ module: m, state: s }) => `<tr>
<td>${m.order}</td><td><a href="/training/${esc(m.id)}">${esc(m.title)}</a><br><span class="sub">${esc(m.summary)}</span></td>
<td>${m.estimated_minutes} min</td><td>${status(s)}</td></tr>`).join('\n');
  return page('Training', `<nav><a href="/account">Account</a></nav>
<h1>Training</h1>
<p class="sub">Five modules for ICS/OT security work, one per topic. Your progress: <strong id="percent">${percent} %</strong> complete.</p>
<div class="bar" aria-hidden="true"><span style="width:${percent}%"></span></div>
<table id="modules"><thead><tr><th>#</th><th>Module</th><th>Time</th><th>Status</th></tr></thead>
<tbody>
${items}
</tbody></table>`);
}

/** The forms carry the session's CSRF token (`_csrf`); null when the page is read with an API key. */
export function renderTrainingModule(m: TrainingModule, s: MemberModuleState, csrf: string | null = null): string {
  const token = csrf === null ? '' : `<input type="hidden" name="_csrf" value="${esc(csrf)}">`;
  const action = s.status === 'not_started'
    ? `<form method="post" action="/training/${esc(m.id)}/start">${token}<button type="submit" id="start">Start this module</button></form>`
    : s.status === 'in_progress'
      ? `<form method="post" action="/training/${esc(m.id)}/complete">${token}<button type="submit" id="complete">Mark as complete</button></form>`
      : `<p id="done">Completed on ${esc(s.completed_at?.slice(0, 10))}.</p>`;
  const toc = m.sections.map((x) => `<li><a href="#${esc(x.id)}">${esc(x.title)}</a></li>`).join('');
  const sections = m.sections.map((x) => `<section id="${esc(x.id)}"><h2>${esc(x.title)}</h2>
${x.html}
</section>`).join('\n');
  const checks = m.self_check.map((q, i) => `<details><summary>${i + 1}. ${esc(q.question)}</summary><p>${esc(q.answer)}</p></details>`).join('\n');
  return page(m.title, `<nav><a href="/training">Back to all modules</a></nav>
<h1 id="title">${esc(m.title)}</h1>
<p class="sub">${esc(m.category)} · about ${m.estimated_minutes} minutes · ${status(s)}</p>
<p>${esc(m.summary)}</p>
<ol id="toc">${toc}</ol>
${action}
${sections}
<section id="self-check"><h2>Self-check</h2>
<p class="sub">Answer each question for yourself, then open it to compare.</p>
${checks}
</section>
${s.status === 'in_progress' ? action : ''}`);
}
