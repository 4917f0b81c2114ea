// Charts drawn on the server as SVG (ADR 0094): horizontal bars, each chart with its text alternative (the SVG's
// title and description, and the numbers as a table under a disclosure), so they need no script.
export interface Bar {
  label: string;
  value: number;
  cls?: string;
}

/** A chart's text alternative: its numbers as a table under a disclosure, one row per bar or point. */
function Numbers({
  title,
  head,
  rows,
  unit,
}: {
  title: string;
  head: string;
  rows: readonly { label: string; value: number }[];
  unit: string;
}) {
  return (
    <details>
      <summary>{title}: the numbers</summary>
      <table>
        <thead>
          <tr>
            <th>{head}</th>
            <th>Value</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              <td>{r.label}</td>
              <td>{`${r.value}${unit}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

export function BarChart({
  id,
  title,
  description,
  bars,
  unit = '',
}: {
  id: string;
  title: string;
  description: string;
  bars: Bar[];
  unit?: string;
}) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const rowH = 22;
  const labelW = 150;
  const width = 520;
  const barW = width - labelW - 60;
  const height = Math.max(rowH, bars.length * rowH) + 4;
  return (
    <figure class="chart" id={id}>
      <figcaption>{title}</figcaption>
      {bars.length ? (
        <svg
          role="img"
          aria-labelledby={`${id}-t ${id}-d`}
          viewBox={`0 0 ${width} ${height}`}
          width={width}
          height={height}
        >
          <title id={`${id}-t`}>{title}</title>
          <desc id={`${id}-d`}>
            {description}: {bars.map((b) => `${b.label} ${b.value}${unit}`).join(', ')}.
          </desc>
          {bars.map((b, i) => (
            <g>
              <text x={0} y={i * rowH + 15}>
                {b.label.length > 22 ? `${b.label.slice(0, 21)}…` : b.label}
              </text>
              <rect
                class={b.cls ?? 'bar'}
                x={labelW}
                y={i * rowH + 3}
                height={rowH - 6}
                width={Math.max(b.value > 0 ? 2 : 0, Math.round((b.value / max) * barW))}
              />
              <text x={labelW + Math.round((b.value / max) * barW) + 6} y={i * rowH + 15}>{`${b.value}${unit}`}</text>
            </g>
          ))}
        </svg>
      ) : (
        <p class="none">Nothing to show yet.</p>
      )}
      {bars.length ? <Numbers title={title} head="Label" rows={bars} unit={unit} /> : null}
    </figure>
  );
}

export interface Point {
  label: string;
  value: number;
}

/**
 * A line over time (the exposure history): one point per day, the first and last day under the axis and the
 * largest value beside it. Drawn with presentation attributes, so it needs no stylesheet rule (the CSP allows no
 * inline style). The numbers are in a table under a disclosure, as for the bars.
 */
export function LineChart({
  id,
  title,
  description,
  points,
  unit = '',
}: {
  id: string;
  title: string;
  description: string;
  points: Point[];
  unit?: string;
}) {
  const width = 520;
  const height = 180;
  const left = 40;
  const bottom = 20;
  const max = Math.max(1, ...points.map((p) => p.value));
  const x = (i: number) =>
    left + (points.length <= 1 ? 0 : Math.round((i / (points.length - 1)) * (width - left - 10)));
  const y = (v: number) => Math.round(8 + (1 - v / max) * (height - bottom - 16));
  const path = points.map((p, i) => `${i ? 'L' : 'M'}${x(i)} ${y(p.value)}`).join(' ');
  const first = points[0];
  const last = points[points.length - 1];
  return (
    <figure class="chart" id={id}>
      <figcaption>{title}</figcaption>
      <svg
        role="img"
        aria-labelledby={`${id}-t ${id}-d`}
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
      >
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>
          {description}:{' '}
          {first
            ? `${first.value}${unit} on ${first.label}, ${last.value}${unit} on ${last.label}, at most ${max}${unit}`
            : 'no points'}
          .
        </desc>
        <line x1={left} y1={height - bottom} x2={width - 10} y2={height - bottom} stroke="#888" />
        <line x1={left} y1={8} x2={left} y2={height - bottom} stroke="#888" />
        <text x={0} y={16}>{`${max}${unit}`}</text>
        <text x={0} y={height - bottom}>
          0
        </text>
        <path d={path} fill="none" stroke="#0b5cad" stroke-width={2} />
        {first ? (
          <text x={left} y={height - 4}>
            {first.label}
          </text>
        ) : null}
        {last && points.length > 1 ? (
          <text x={width - 10} y={height - 4} text-anchor="end">
            {last.label}
          </text>
        ) : null}
      </svg>
      <Numbers title={title} head="Day" rows={points} unit={unit} />
    </figure>
  );
}
