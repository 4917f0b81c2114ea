// The alerts as a table (the overview's recent alerts, the alerts inbox): each alert's CVE, priority, match, the
// assets it is about (linked to their environment's page) and, for the inbox, read or unread.
import { Csrf, when, Scroll } from './layout.tsx';
import { isRecord } from '../../domain/is-record.ts';

export const PRIORITIES = ['PATCH NOW', 'PATCH NEXT', 'MONITOR'] as const;
export const cls = (p: string) => `p-${p.replace(' ', '_')}`;

export interface AlertItem {
  id: number;
  cve_id: string;
  sage_priority: string;
  reasons: string[];
  watchlist_match: { entity_type: string; entity_name: string };
  delivery_status: string;
  created_at: string;
  /** Read by the signed-in member (the inbox); absent elsewhere. */
  read?: boolean;
  /** The spec §6 payload: its `data.matches` name the environment assets the alert is about (docs/alerts.md "Asset matches"). */
  payload?: unknown;
}

/** A match of the payload that names an environment's asset: the one kind of match linked here. */
interface AssetMatch {
  entity_name: string;
  asset_id: string;
}
/** The payload is stored JSON: each match is checked before it is read. */
const isAssetMatch = (m: unknown): m is AssetMatch =>
  isRecord(m) &&
  m.entity_type === 'environment' &&
  typeof m.entity_name === 'string' &&
  typeof m.asset_id === 'string' &&
  m.asset_id !== '';
/** The payload's `data.matches` (none when it has none). */
function payloadMatches(payload: unknown): unknown[] {
  const data = isRecord(payload) ? payload.data : undefined;
  return isRecord(data) && Array.isArray(data.matches) ? data.matches : [];
}
/** Asset links shown per alert before "and N more". */
const ASSET_LINKS = 5;

/** An alert's matching assets, per environment (by name, as the payload names it; an environment renamed or deleted since has no link). */
function alertAssets(a: AlertItem, envs: readonly { id: number; name: string }[]) {
  const matches = payloadMatches(a.payload).filter(isAssetMatch);
  const groups = new Map<string, { env: { id: number; name: string } | null; assets: AssetMatch[] }>();
  for (const m of matches) {
    const g = groups.get(m.entity_name) ?? { env: envs.find((e) => e.name === m.entity_name) ?? null, assets: [] };
    g.assets.push(m);
    groups.set(m.entity_name, g);
  }
  return [...groups.entries()];
}

/** Links to the CVE's matching assets: each asset alone on its environment's page (`?asset_id=`). */
function AlertAssets({ a, envs }: { a: AlertItem; envs: readonly { id: number; name: string }[] }) {
  const groups = alertAssets(a, envs);
  if (!groups.length) return <>—</>;
  return (
    <ul class="plain">
      {groups.map(([name, g]) => (
        <li>
          {g.env ? <a href={`/environments/${g.env.id}`}>{name}</a> : name}:{' '}
          {g.assets.slice(0, ASSET_LINKS).map((m, i) => (
            <>
              {i ? ', ' : ''}
              {g.env ? (
                <a
                  href={`/environments/${g.env.id}?asset_id=${encodeURIComponent(m.asset_id)}`}
                  aria-label={`${m.asset_id} in ${name} (${a.cve_id})`}
                >
                  {m.asset_id}
                </a>
              ) : (
                m.asset_id
              )}
            </>
          ))}
          {g.assets.length > ASSET_LINKS ? ` and ${g.assets.length - ASSET_LINKS} more` : ''}
        </li>
      ))}
    </ul>
  );
}

/**
 * The alerts as a table, each linking to its CVE and to its matching assets (`envs`: the organization's environments);
 * with `csrf`, each row says read or unread for the member and toggles it (back to `back`).
 */
export function AlertTable({
  items,
  envs,
  csrf,
  back,
}: {
  items: AlertItem[];
  envs: readonly { id: number; name: string }[];
  csrf?: string;
  back?: string;
}) {
  if (!items.length) return <p class="none">No alerts.</p>;
  return (
    <Scroll label="Alerts">
      <table id="alerts">
        <thead>
          <tr>
            <th>When (UTC)</th>
            <th>CVE</th>
            <th>Priority</th>
            <th>Match</th>
            <th>Assets</th>
            <th>Why</th>
            <th>Delivery</th>
            {csrf ? <th>Read</th> : null}
          </tr>
        </thead>
        <tbody>
          {items.map((a) => (
            <tr class={a.read === false ? 'unread' : undefined} id={`alert-${a.id}`}>
              <td>{when(a.created_at)}</td>
              <td>
                <a href={`/cve/${a.cve_id}`}>{a.cve_id}</a>
              </td>
              <td>
                <span class={`badge ${cls(a.sage_priority)}`}>{a.sage_priority}</span>
              </td>
              <td>
                {a.watchlist_match.entity_type}: {a.watchlist_match.entity_name}
              </td>
              <td class="assets">
                <AlertAssets a={a} envs={envs} />
              </td>
              <td>{a.reasons.join('; ')}</td>
              <td>{a.delivery_status}</td>
              {csrf ? (
                <td>
                  {a.read === false ? <strong>unread</strong> : 'read'}{' '}
                  <form class="inline" method="post" action={`/alerts/${a.id}/${a.read === false ? 'read' : 'unread'}`}>
                    <Csrf token={csrf} />
                    <input type="hidden" name="back" value={back ?? '/alerts'} />
                    <button
                      type="submit"
                      class="secondary"
                      aria-label={`Mark ${a.cve_id} ${a.read === false ? 'read' : 'unread'}`}
                    >
                      Mark {a.read === false ? 'read' : 'unread'}
                    </button>
                  </form>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </Scroll>
  );
}
