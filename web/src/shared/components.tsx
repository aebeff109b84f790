import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { signIn, type Session } from './api';
import { toCsv } from './format';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** The cell's text in the CSV export (defaults to the rendered cell when it is text). */
  csv?: (row: T) => string | number;
  numeric?: boolean;
}

/**
 * A data table with a caption and a CSV export of every row it holds. With `limit`, the first `limit` rows show
 * until "Show all" is pressed (a long table costs the page's first render; the CSV always holds every row).
 */
export function DataTable<T>(props: { caption: string; columns: Array<Column<T>>; rows: T[]; file: string; empty?: string; limit?: number }) {
  const [all, setAll] = useState(false);
  const shown = props.limit !== undefined && !all && props.rows.length > props.limit ? props.rows.slice(0, props.limit) : props.rows;
  const download = () => {
    const csv = toCsv(
      props.columns.map((c) => c.header),
      props.rows.map((r) => props.columns.map((c) => (c.csv ? c.csv(r) : textOf(c.cell(r))))),
    );
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `${props.file}.csv`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <div class="table-block">
      <div class="table-tools">
        <button type="button" class="secondary" onClick={download} aria-label={`Download ${props.caption} as CSV`}>
          Download CSV
        </button>
      </div>
      <div class="table-scroll" tabIndex={0} role="region" aria-label={props.caption}>
        <table>
          <caption>{props.caption}</caption>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th scope="col" class={c.numeric ? 'num' : undefined}>
                  {c.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.rows.length === 0 ? (
              <tr>
                <td colSpan={props.columns.length} class="empty">
                  {props.empty ?? 'Nothing to show for these filters.'}
                </td>
              </tr>
            ) : (
              shown.map((r) => (
                <tr>
                  {props.columns.map((c) => (
                    <td class={c.numeric ? 'num' : undefined}>{c.cell(r)}</td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      {shown.length < props.rows.length && (
        <p class="table-more">
          Showing {shown.length} of {props.rows.length} rows (the CSV holds all of them).{' '}
          <button type="button" class="secondary" onClick={() => setAll(true)}>
            Show all {props.rows.length} rows
          </button>
        </p>
      )}
    </div>
  );
}

function textOf(node: ComponentChildren): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  const props = (node as { props?: { children?: ComponentChildren } }).props;
  return props ? textOf(props.children) : '';
}

export interface Series {
  name: string;
  values: number[];
  /** CSS class of the bars (colour). */
  tone: 'a' | 'b' | 'c';
}

/**
 * A bar chart in plain SVG (one or more series per label), with its numbers as a table right under it for screen
 * readers and anyone who wants the figures; the SVG itself is one labelled image.
 */
export function BarChart(props: { title: string; labels: string[]; series: Series[]; format?: (v: number) => string; id: string }) {
  const fmt = props.format ?? ((v: number) => String(v));
  const max = Math.max(1, ...props.series.flatMap((s) => s.values));
  const n = props.labels.length;
  const groupWidth = n > 0 ? Math.max(24, Math.min(80, 640 / n)) : 80;
  const barWidth = Math.max(2, (groupWidth - 6) / props.series.length);
  const width = Math.max(320, groupWidth * n + 40);
  const height = 200;
  const plot = height - 40;
  const showLabels = n <= 16;
  // Long labels (dates) are shortened to what fits under a bar group.
  const fit = (l: string) => (l.length * 6 > groupWidth ? l.slice(-Math.max(2, Math.floor(groupWidth / 6))) : l);
  const summary = props.series.map((s) => `${s.name}: ${props.labels.map((l, k) => `${l} ${fmt(s.values[k] ?? 0)}`).join(', ')}`).join('; ');
  return (
    <figure class="chart" aria-labelledby={`${props.id}-title`}>
      <figcaption id={`${props.id}-title`}>{props.title}</figcaption>
      {props.series.length > 1 && (
        <ul class="legend" aria-hidden="true">
          {props.series.map((s) => (
            <li>
              <span class={`swatch tone-${s.tone}`} /> {s.name}
            </li>
          ))}
        </ul>
      )}
      <div class="chart-scroll">
        <svg viewBox={`0 0 ${width} ${height}`} class="bars" preserveAspectRatio="xMinYMin meet" role="img" aria-label={`${props.title}. ${summary}`}>
          <line x1="30" y1={plot + 4} x2={width - 4} y2={plot + 4} class="axis" />
          <text x="26" y="12" class="tick" text-anchor="end">
            {fmt(max)}
          </text>
          <text x="26" y={plot + 4} class="tick" text-anchor="end">
            0
          </text>
          {props.labels.map((label, k) => {
            const x0 = 34 + k * groupWidth;
            return (
              <g>
                {props.series.map((s, j) => {
                  const v = s.values[k] ?? 0;
                  const h = (v / max) * (plot - 14);
                  return (
                    <rect class={`bar tone-${s.tone}`} x={x0 + j * barWidth} y={plot + 4 - h} width={barWidth - 1} height={h}>
                      <title>{`${s.name}, ${label}: ${fmt(v)}`}</title>
                    </rect>
                  );
                })}
                {showLabels && (
                  <text x={x0 + (barWidth * props.series.length) / 2} y={height - 20} class="tick" text-anchor="middle">
                    {fit(label)}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <details class="numbers">
        <summary>Numbers of “{props.title}”</summary>
        <table>
          <caption class="visually-hidden">{props.title}</caption>
          <thead>
            <tr>
              <th scope="col">—</th>
              {props.series.map((s) => (
                <th scope="col" class="num">
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.labels.map((l, k) => (
              <tr>
                <th scope="row">{l}</th>
                {props.series.map((s) => (
                  <td class="num">{fmt(s.values[k] ?? 0)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** Headline figures as a description list. */
export function Figures(props: { items: Array<{ label: string; value: string; testId?: string }>; compact?: boolean }) {
  return (
    <dl class={props.compact ? 'figures compact' : 'figures'}>
      {props.items.map((i) => (
        <div class="figure" data-testid={i.testId}>
          <dt>{i.label}</dt>
          <dd>{i.value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Notice(props: { kind: 'error' | 'info'; children: ComponentChildren }) {
  return (
    <p class={`notice ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </p>
  );
}

/** Sign-in with an application's id and secret key (its token comes from CreateToken). */
export function SignInForm(props: { scopes: string[]; intro: string; onSignedIn: (s: Session) => void }) {
  const [appId, setAppId] = useState('');
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(await signIn(appId.trim(), secret.trim(), props.scopes));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card sign-in" onSubmit={(e) => void submit(e)}>
      <h2>Sign in</h2>
      <p>{props.intro}</p>
      <label for="appId">Application id</label>
      <input id="appId" name="appId" autocomplete="username" required value={appId} onInput={(e) => setAppId(e.currentTarget.value)} />
      <label for="secret">Secret key</label>
      <input id="secret" name="secret" type="password" autocomplete="current-password" required value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
      {error && <Notice kind="error">{error}</Notice>}
      <button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
