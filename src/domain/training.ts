// Training modules (spec §4.4): Markdown files with front matter (content/training/*.md), parsed and validated
// here, pure. A module is sections (one per `## ` heading) and a self-check (the `## Self-check` section, `Q:` /
// `A:` pairs). Markdown is rendered to HTML by markdown-it (CommonMark and tables) with HTML off, so no HTML in a
// module file reaches a page, and only http(s) links become anchors. docs/training.md describes the format.
import MarkdownIt from 'markdown-it';
import { isOneOf } from './one-of.ts';

/** The five categories of spec §4.4, in the spec's order: one module each. */
export const TRAINING_CATEGORIES = [
  'ICS/OT Security Fundamentals',
  'CVE and CVSS Scoring for OT Engineers',
  'NERC CIP Compliance Essentials',
  'Using the platform for Vulnerability Triage',
  'Incident Response for ICS Environments',
] as const;
export type TrainingCategory = (typeof TRAINING_CATEGORIES)[number];

export interface TrainingSection {
  /** Anchor: the heading as a slug, unique within the module. */
  id: string;
  title: string;
  markdown: string;
  html: string;
}

export interface SelfCheckItem {
  question: string;
  answer: string;
}

export interface TrainingModule {
  id: string;
  title: string;
  category: TrainingCategory;
  /** Position in the catalogue: the category's position in the spec (1–5). */
  order: number;
  estimated_minutes: number;
  summary: string;
  sections: TrainingSection[];
  self_check: SelfCheckItem[];
}

export class TrainingContentError extends Error {
  constructor(
    public readonly file: string,
    problem: string,
  ) {
    super(`Training module ${file}: ${problem}`);
  }
}

export const MODULE_ID_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MIN_SECTIONS = 3;
const MIN_QUESTIONS = 3;
const SELF_CHECK = 'Self-check';

export function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      // Stryker disable next-line Regex: runs of dashes are collapsed before, so one leading or trailing dash is all there is to cut
      .replace(/^-+|-+$/g, '') || 'section'
  );
}

// CommonMark with GitHub tables, through markdown-it (ADR 0095). `html: false`:
// HTML in a module file is text, escaped, never markup. Links are kept only for http(s) targets (validateLink; any
// other scheme stays literal text) and open with rel="noopener noreferrer".
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });
markdown.validateLink = (url: string) => /^https?:\/\//i.test(url);
markdown.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  tokens[idx].attrSet('rel', 'noopener noreferrer');
  return self.renderToken(tokens, idx, options);
};
// No images (a module page loads nothing from elsewhere: `![x](url)` stays a link), and no inline styles (table
// alignment would write style attributes, which the pages' CSP refuses).
markdown.disable('image');
for (const cell of ['th_open', 'td_open']) {
  markdown.renderer.rules[cell] = (tokens, idx, options, _env, self) => {
    tokens[idx].attrs = tokens[idx].attrs?.filter(([name]) => name !== 'style') ?? null;
    return self.renderToken(tokens, idx, options);
  };
}

/** Renders a section's Markdown to HTML (CommonMark and tables; no HTML passes through). */
export function renderMarkdown(md: string): string {
  return markdown.render(md).trimEnd();
}

/** Splits `---` front matter (`key: value` lines) from the body. */
function frontMatter(file: string, text: string): { meta: Record<string, string>; body: string } {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text.replace(/\r\n?/g, '\n'));
  if (!m) throw new TrainingContentError(file, 'missing front matter (a block between --- lines at the top)');
  const meta: Record<string, string> = {};
  for (const [n, line] of m[1].split('\n').entries()) {
    if (line.trim() === '') continue;
    const kv = /^([a-z_]+):\s*(.*)$/.exec(line);
    if (!kv)
      throw new TrainingContentError(file, `front matter line ${n + 1} is not "key: value": ${JSON.stringify(line)}`);
    if (kv[1] in meta) throw new TrainingContentError(file, `front matter key "${kv[1]}" given twice`);
    meta[kv[1]] = kv[2].trim();
  }
  return { meta, body: text.replace(/\r\n?/g, '\n').slice(m[0].length) };
}

function selfCheck(file: string, md: string): SelfCheckItem[] {
  const items: SelfCheckItem[] = [];
  let q: string | null = null;
  for (const line of md.split('\n')) {
    const t = line.trim();
    if (t === '') continue;
    if (t.startsWith('Q:')) {
      if (q !== null)
        throw new TrainingContentError(file, `self-check question without an answer: ${JSON.stringify(q)}`);
      q = t.slice(2).trim();
    } else if (t.startsWith('A:')) {
      if (q === null)
        throw new TrainingContentError(file, `self-check answer without a question: ${JSON.stringify(t)}`);
      const a = t.slice(2).trim();
      if (!q || !a) throw new TrainingContentError(file, 'self-check question or answer is empty');
      items.push({ question: q, answer: a });
      q = null;
    } else {
      throw new TrainingContentError(file, `self-check lines must start with "Q:" or "A:": ${JSON.stringify(t)}`);
    }
  }
  if (q !== null) throw new TrainingContentError(file, `self-check question without an answer: ${JSON.stringify(q)}`);
  if (items.length < MIN_QUESTIONS)
    throw new TrainingContentError(
      file,
      `the self-check needs at least ${MIN_QUESTIONS} questions, found ${items.length}`,
    );
  return items;
}

/** Parses and validates one module file. Throws TrainingContentError naming the file and the problem. */
export function parseModule(file: string, text: string): TrainingModule {
  const { meta, body } = frontMatter(file, text);
  for (const k of Object.keys(meta)) {
    if (!['id', 'title', 'category', 'minutes', 'summary'].includes(k))
      throw new TrainingContentError(file, `unknown front matter key "${k}"`);
  }
  for (const k of ['id', 'title', 'category', 'minutes', 'summary']) {
    if (!meta[k]) throw new TrainingContentError(file, `front matter "${k}" is missing or empty`);
  }
  if (!MODULE_ID_RE.test(meta.id) || meta.id.length > 80)
    throw new TrainingContentError(
      file,
      `id "${meta.id}" must be lower-case words joined by hyphens (at most 80 characters)`,
    );
  const category = meta.category;
  if (!isOneOf(TRAINING_CATEGORIES, category))
    throw new TrainingContentError(
      file,
      `category "${meta.category}" is not one of: ${TRAINING_CATEGORIES.join('; ')}`,
    );
  if (!/^\d+$/.test(meta.minutes) || Number(meta.minutes) < 5 || Number(meta.minutes) > 240) {
    throw new TrainingContentError(file, `minutes must be an integer from 5 to 240, got "${meta.minutes}"`);
  }
  const parts = body.split(/^## /m);
  if (parts[0].trim() !== '') throw new TrainingContentError(file, 'text before the first "## " section');
  const sections: TrainingSection[] = [];
  let check: SelfCheckItem[] | null = null;
  for (const part of parts.slice(1)) {
    const nl = part.indexOf('\n');
    const title = (nl < 0 ? part : part.slice(0, nl)).trim();
    const md = nl < 0 ? '' : part.slice(nl + 1).trim();
    if (title === SELF_CHECK) {
      if (check) throw new TrainingContentError(file, 'two self-check sections');
      check = selfCheck(file, md);
      continue;
    }
    if (check)
      throw new TrainingContentError(file, `section "${title}" after the self-check (the self-check comes last)`);
    if (md === '') throw new TrainingContentError(file, `section "${title}" is empty`);
    const id = slug(title);
    if (sections.some((s) => s.id === id)) throw new TrainingContentError(file, `two sections titled "${title}"`);
    sections.push({ id, title, markdown: md, html: renderMarkdown(md) });
  }
  if (sections.length < MIN_SECTIONS)
    throw new TrainingContentError(file, `at least ${MIN_SECTIONS} sections are needed, found ${sections.length}`);
  if (!check) throw new TrainingContentError(file, `no "## ${SELF_CHECK}" section`);
  return {
    id: meta.id,
    title: meta.title,
    category,
    order: TRAINING_CATEGORIES.indexOf(category) + 1,
    estimated_minutes: Number(meta.minutes),
    summary: meta.summary,
    sections,
    self_check: check,
  };
}

/** The catalogue: one module per category, ids unique, ordered as the spec lists the categories. */
export function buildCatalogue(modules: { file: string; module: TrainingModule }[]): TrainingModule[] {
  const byCategory = new Map<string, string>();
  const byId = new Map<string, string>();
  for (const { file, module: m } of modules) {
    const sameId = byId.get(m.id);
    if (sameId) throw new TrainingContentError(file, `id "${m.id}" is also used by ${sameId}`);
    const sameCat = byCategory.get(m.category);
    if (sameCat)
      throw new TrainingContentError(
        file,
        `category "${m.category}" already has a module (${sameCat}); one module per category`,
      );
    byId.set(m.id, file);
    byCategory.set(m.category, file);
  }
  const missing = TRAINING_CATEGORIES.filter((c) => !byCategory.has(c));
  if (missing.length)
    throw new TrainingContentError('(catalogue)', `no module for the categories: ${missing.join('; ')}`);
  return modules.map((x) => x.module).sort((a, b) => a.order - b.order);
}

/** Progress of one member over the catalogue (spec §4.4 `progress`). */
export interface ProgressRow {
  module_id: string;
  started_at: Date;
  completed_at: Date | null;
  updated_at: Date;
}

export type ModuleStatus = 'not_started' | 'in_progress' | 'completed';

export function moduleStatus(row: ProgressRow | undefined): ModuleStatus {
  if (!row) return 'not_started';
  return row.completed_at ? 'completed' : 'in_progress';
}

export function summarizeProgress(catalogue: readonly TrainingModule[], rows: readonly ProgressRow[]) {
  const known = new Set(catalogue.map((m) => m.id));
  const mine = rows.filter((r) => known.has(r.module_id));
  const started = mine.length;
  const completed = mine.filter((r) => r.completed_at !== null).length;
  // Stryker disable next-line EqualityOperator: on equal timestamps either row gives the same date
  const last = mine.reduce<Date | null>((acc, r) => (acc === null || r.updated_at > acc ? r.updated_at : acc), null);
  return {
    total_modules: catalogue.length,
    started,
    in_progress: started - completed,
    completed,
    percent: catalogue.length === 0 ? 0 : Math.round((completed / catalogue.length) * 100),
    last_activity_at: last ? last.toISOString() : null,
  };
}
