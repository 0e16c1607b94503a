// A host's status.conditions (BareMetalHost: BMO's six; MaasMachine: CAPMAAS's) as a table.
// The status arrives as plain JSON (the bundle carries no zod), so each entry is checked here.
import { duration } from './format.ts';

interface ConditionRow { type: string; status: string; reason: string; message: string; since: number | null }

function rowsOf(raw: unknown): ConditionRow[] {
  if (!Array.isArray(raw)) return [];
  const rows: ConditionRow[] = [];
  for (const c of raw as unknown[]) {
    if (typeof c !== 'object' || c === null) continue;
    const r = c as Record<string, unknown>;
    if (typeof r['type'] !== 'string' || typeof r['status'] !== 'string') continue;
    const at = typeof r['lastTransitionTime'] === 'string' ? Date.parse(r['lastTransitionTime']) : Number.NaN;
    rows.push({
      type: r['type'], status: r['status'],
      reason: typeof r['reason'] === 'string' ? r['reason'] : '',
      message: typeof r['message'] === 'string' ? r['message'] : '',
      since: Number.isFinite(at) ? at : null,
    });
  }
  return rows;
}

export function Conditions({ status, now = Date.now() }: { status: Record<string, unknown>; now?: number }) {
  const rows = rowsOf(status['conditions']);
  return (
    <>
      <h3>Conditions</h3>
      {rows.length === 0 ? <p class="muted" data-testid="conditions-none">none written yet</p> : (
        <table data-testid="conditions">
          <thead><tr><th>type</th><th>status</th><th>reason</th><th>age</th><th>message</th></tr></thead>
          <tbody>{rows.map((c) => (
            <tr key={c.type} data-testid="condition-row" data-type={c.type} data-status={c.status}>
              <td>{c.type}</td><td class={c.status === 'Unknown' ? 'muted' : ''}>{c.status}</td><td>{c.reason}</td>
              <td>{c.since === null ? '' : duration(Math.max(0, now - c.since))}</td><td>{c.message}</td>
            </tr>
          ))}</tbody>
        </table>
      )}
    </>
  );
}
