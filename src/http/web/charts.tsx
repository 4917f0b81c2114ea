// Charts drawn on the server as SVG (ADR 0094): horizontal bars, each chart with its text alternative (the SVG's
// title and description, and the numbers as a table under a disclosure), so they need no script.
export interface Bar { label: string; value: number; cls?: string }

export function BarChart({ id, title, description, bars, unit = '' }: { id: string; title: string; description: string; bars: Bar[]; unit?: string }) {
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
        <svg role="img" aria-labelledby={`${id}-t ${id}-d`} viewBox={`0 0 ${width} ${height}`} width={width} height={height}>
          <title id={`${id}-t`}>{title}</title>
          <desc id={`${id}-d`}>{description}: {bars.map((b) => `${b.label} ${b.value}${unit}`).join(', ')}.</desc>
          {bars.map((b, i) => (
            <g>
              <text x={0} y={i * rowH + 15}>{b.label.length > 22 ? `${b.label.slice(0, 21)}…` : b.label}</text>
              <rect class={b.cls ?? 'bar'} x={labelW} y={i * rowH + 3} height={rowH - 6} width={Math.max(b.value > 0 ? 2 : 0, Math.round((b.value / max) * barW))} />
              <text x={labelW + Math.round((b.value / max) * barW) + 6} y={i * rowH + 15}>{`${b.value}${unit}`}</text>
            </g>
          ))}
        </svg>
      ) : <p class="none">Nothing to show yet.</p>}
      {bars.length ? (
        <details><summary>{title}: the numbers</summary>
          <table><thead><tr><th>Label</th><th>Value</th></tr></thead>
            <tbody>{bars.map((b) => <tr><td>{b.label}</td><td>{`${b.value}${unit}`}</td></tr>)}</tbody></table>
        </details>
      ) : null}
    </figure>
  );
}
