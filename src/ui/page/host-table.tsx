// Every host, filtered and sorted in the browser. Only the first rows are drawn: with 10,000
// hosts the table would otherwise cost more than the rest of the page together.
import { useMemo, useState } from 'preact/hooks';
import { duration } from './format.ts';
import type { HostRow } from './types.ts';

const SHOWN = 300;
/** Characters of an error message in its cell; the whole message is its title. */
const ERROR_SHOWN = 80;

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
const COLUMNS = [
  ['key', 'host'], ['kind', 'kind'], ['state', 'state'], ['operationalStatus', 'status'], ['backend', 'backend'], ['node', 'node'], ['errorType', 'error'], ['stateSinceMs', 'in state'],
] as const;
type SortKey = (typeof COLUMNS)[number][0];

export function HostTable({ hosts }: { hosts: readonly HostRow[] }) {
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'key', desc: false });
  // Pages of SHOWN rows: past the first, hosts were reachable only by filtering for them.
  const [page, setPage] = useState(0);
  const rows = useMemo(() => {
    const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
    const kept = words.length === 0 ? [...hosts] : hosts.filter((h) => {
      const text = `${h.key} ${h.state} ${h.operationalStatus} ${h.backend} ${h.node} ${h.errorType} ${h.errorMessage ?? ''} ${h.kind}`.toLowerCase();
      return words.every((w) => text.includes(w));
    });
    const dir = sort.desc ? -1 : 1;
    return kept.sort((a, b) => {
      const x = a[sort.key];
      const y = b[sort.key];
      return dir * (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)));
    });
  }, [hosts, filter, sort]);
  const pages = Math.max(1, Math.ceil(rows.length / SHOWN));
  // Hosts deleted (or filtered away) under a later page: its last page, not an empty table.
  const at = Math.min(page, pages - 1);
  const first = at * SHOWN;
  const shown = rows.slice(first, first + SHOWN);
  return (
    <section>
      <h2>Hosts</h2>
      <input data-testid="host-filter" type="search" aria-label="filter hosts" placeholder="filter: state, status, kind, backend, node, error, name…" value={filter}
        onInput={(e) => { setFilter((e.target as HTMLInputElement).value); setPage(0); }} />
      <span class="muted" data-testid="host-count"> {rows.length} of {hosts.length}{rows.length > SHOWN ? `, ${first + 1}–${first + shown.length} shown` : ''}</span>
      {pages > 1 ? (
        <nav class="pager" aria-label="host table pages">
          <button type="button" data-testid="page-previous" disabled={at === 0} onClick={() => setPage(at - 1)}>← previous {SHOWN}</button>
          <span data-testid="page-at"> page {at + 1} of {pages} </span>
          <button type="button" data-testid="page-next" disabled={at >= pages - 1} onClick={() => setPage(at + 1)}>next {SHOWN} →</button>
        </nav>
      ) : null}
      <table class="hosts" data-testid="host-table">
        {/* A button in each header: a click-only <th> could not be reached or sorted from the keyboard. */}
        <thead><tr>{COLUMNS.map(([key, label]) => (
          <th key={key} scope="col" class="sortable" data-testid={`sort-${key}`} aria-sort={sort.key === key ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
            <button type="button" onClick={() => { setSort((s) => ({ key, desc: s.key === key ? !s.desc : false })); setPage(0); }}>
              {label}{sort.key === key ? (sort.desc ? ' ▼' : ' ▲') : ''}
            </button>
          </th>
        ))}</tr></thead>
        <tbody>
          {shown.map((h) => (
            // A BareMetalHost and a MaasMachine may share a name: the row is the kind's and the name's.
            <tr key={`${h.kind}/${h.key}`} data-testid="host-row">
              <td><a href={`#/host/${[h.kind, ...h.key.split('/')].map(encodeURIComponent).join('/')}`}>{h.key}</a></td>
              <td>{h.kind}</td><td>{h.state}</td><td data-testid="host-status">{h.operationalStatus}</td><td>{h.backend}</td><td>{h.node}</td>
              {/* A message without an error type (a host waiting for its user-data Secret) is shown too, as
                  `metalfleet hosts` shows it: only in the title of an empty cell, nobody could see it. */}
              <td class={h.errorType ? 'bad' : 'muted'} title={h.errorMessage ?? ''} data-testid="host-error-cell">{h.errorType || cut(h.errorMessage ?? '', ERROR_SHOWN)}</td>
              <td>{duration(h.stateSinceMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
