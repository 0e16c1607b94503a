import { isIPv4 } from 'node:net';
import { forbidden, MaasApiError, notFound, validationError } from '../http/api-error.ts';
import type { SimUser } from '../http/oauth.ts';
import type { Params } from '../http/params.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';
import { cidrContains, hostRange } from './ipv4.ts';

// ipranges/ (api/ipranges.py, forms/iprange.py, models/iprange.py): dynamic and reserved ranges
// of a subnet. MAAS hands out no automatic address inside either, and refuses a requested static
// address inside one (Subnet.validate_static_ip); allocators ask through `excluded` and `refuse`.

export type RangeType = 'dynamic' | 'reserved';

interface RangeSubnet {
  readonly id: number;
  readonly cidr: string;
  readonly gatewayIp: string | null;
}

/** What ranges read of the rest of the simulator. */
export interface RangeWorld {
  /** A subnet by specifier (id, CIDR or name). */
  subnetBySpecifier(text: string): RangeSubnet | undefined;
  /** The most specific subnet an address is in (get_best_subnet_for_ip). */
  subnetForIp(ip: string): RangeSubnet | undefined;
  subnetJson(id: number): Record<string, unknown> | undefined;
  userJson(name: string): unknown;
  /** Every address allocated now (machines, devices, DNS resources, reservations). */
  addressesInUse(): readonly string[];
}

interface IpRange {
  readonly id: number;
  type: RangeType;
  startIp: string;
  endIp: string;
  subnetId: number;
  user: string | null;
  comment: string;
}

const toNumber = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const toText = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
const TYPES: readonly string[] = ['dynamic', 'reserved'];
const FIELDS = ['subnet', 'type', 'start_ip', 'end_ip', 'user', 'comment'] as const;

export class IpRanges {
  private readonly rows = new Map<number, IpRange>();
  private nextId = 1;

  constructor(private readonly world: RangeWorld) {}

  list(): unknown[] {
    return [...this.rows.values()].sort((a, b) => a.id - b.id).map((r) => this.json(r));
  }

  read(idText: string): unknown {
    return this.json(this.find(idText));
  }

  // IPRangesHandler.create: a dynamic range is an admin's; the range is the caller's.
  create(user: SimUser, params: Params): unknown {
    if (params.get('type') === 'dynamic' && !user.admin) throw forbidden("Unable to create dynamic IP range. You don't have sufficient privileges.");
    const draft = this.validate(params, undefined);
    const row: IpRange = { id: this.nextId++, ...draft, user: user.name };
    this.rows.set(row.id, row);
    return this.json(row);
  }

  update(user: SimUser, idText: string, params: Params): unknown {
    const row = this.find(idText);
    this.checkOwner(user, row);
    Object.assign(row, this.validate(params, row));
    return this.json(row);
  }

  remove(user: SimUser, idText: string): void {
    const row = this.find(idText);
    this.checkOwner(user, row);
    this.rows.delete(row.id);
  }

  /** The ranges of one subnet, for its address usage. */
  ofSubnet(subnetId: number): Array<Pick<IpRange, 'startIp' | 'endIp' | 'type'>> {
    return [...this.rows.values()].filter((r) => r.subnetId === subnetId).map(({ startIp, endIp, type }) => ({ startIp, endIp, type }));
  }

  /** The subnet was deleted: its ranges go with it. */
  dropSubnet(subnetId: number): void {
    for (const r of [...this.rows.values()]) if (r.subnetId === subnetId) this.rows.delete(r.id);
  }

  /** Every address inside a range (of the subnet, if given): no automatic allocation takes one. */
  excluded(cidr?: string): Set<string> {
    const out = new Set<string>();
    for (const r of this.rows.values()) {
      if (cidr !== undefined && !cidrContains(cidr, r.startIp)) continue;
      for (let n = toNumber(r.startIp); n <= toNumber(r.endIp); n++) out.add(toText(n));
    }
    return out;
  }

  /** Subnet.validate_static_ip: a requested address inside a range is StaticIPAddressUnavailable (404). */
  refuse(ip: string): void {
    if (!isIPv4(ip)) return;
    const n = toNumber(ip);
    for (const type of ['reserved', 'dynamic'] as const) {
      const hit = [...this.rows.values()].find((r) => r.type === type && toNumber(r.startIp) <= n && n <= toNumber(r.endIp));
      if (hit) throw new MaasApiError(404, `${ip} is within the ${type} range from ${hit.startIp} to ${hit.endIp}`);
    }
  }

  private find(idText: string): IpRange {
    const row = /^\d+$/.test(idText) ? this.rows.get(Number(idText)) : undefined;
    if (!row) throw notFound('IPRange');
    return row;
  }

  private checkOwner(user: SimUser, row: IpRange): void {
    if (!user.admin && row.user !== user.name) throw forbidden("Unable to modify IP range. You don't own the IP range.");
  }

  // IPRangeForm, then IPRange.clean: field errors first, then the model's own checks, each on
  // start_ip and end_ip unless it names one.
  private validate(params: Params, before: IpRange | undefined): Omit<IpRange, 'id' | 'user'> {
    const value = (key: string) => {
      const v = params.get(key);
      return v === undefined ? undefined : v.trim();
    };
    const errors: Record<string, string[]> = {};
    const type = value('type') ?? before?.type;
    const startIp = value('start_ip') ?? before?.startIp;
    const endIp = value('end_ip') ?? before?.endIp;
    let subnet: RangeSubnet | undefined;
    const subnetText = value('subnet');
    if (subnetText !== undefined && subnetText !== '') {
      subnet = this.world.subnetBySpecifier(subnetText);
      if (!subnet) errors.subnet = ['Select a valid choice. That choice is not one of the available choices.'];
    } else if (before) {
      subnet = this.world.subnetBySpecifier(String(before.subnetId));
    } else if (startIp !== undefined && isIPv4(startIp)) {
      subnet = this.world.subnetForIp(startIp);
    }
    if (!subnet && errors.subnet === undefined) errors.subnet = ['This field is required.'];
    if (type === undefined || type === '') errors.type = ['This field is required.'];
    else if (!TYPES.includes(type)) errors.type = [`Select a valid choice. ${type} is not one of the available choices.`];
    for (const [key, ip] of [['start_ip', startIp], ['end_ip', endIp]] as const) {
      if (ip === undefined || ip === '') errors[key] = ['This field is required.'];
      else if (!isIPv4(ip)) errors[key] = ['Enter a valid IPv4 or IPv6 address.'];
    }
    const ordered = (e: Record<string, string[]>) => Object.fromEntries(FIELDS.filter((f) => e[f] !== undefined).map((f) => [f, e[f] ?? []]));
    if (Object.keys(errors).length > 0) throw validationError(ordered(errors));
    const checked = { type: type as RangeType, startIp: startIp ?? '', endIp: endIp ?? '', subnet: subnet as RangeSubnet };
    const message = this.cleanMessage(checked, before?.id);
    if (message) throw validationError(ordered(Object.fromEntries(message.fields.map((f) => [f, [message.text]]))));
    return { type: checked.type, startIp: checked.startIp, endIp: checked.endIp, subnetId: checked.subnet.id, comment: value('comment') ?? before?.comment ?? '' };
  }

  private cleanMessage(r: { type: RangeType; startIp: string; endIp: string; subnet: RangeSubnet }, self: number | undefined): { text: string; fields: string[] } | undefined {
    const both = ['start_ip', 'end_ip'];
    const start = toNumber(r.startIp);
    const end = toNumber(r.endIp);
    const { cidr } = r.subnet;
    if (end < start) return { text: 'End IP address must not be less than Start IP address.', fields: ['end_ip'] };
    const inStart = cidrContains(cidr, r.startIp);
    const inEnd = cidrContains(cidr, r.endIp);
    if (!inStart && !inEnd) return { text: `IP addresses must be within subnet: ${cidr}.`, fields: both };
    if (!inStart) return { text: `Start IP address must be within subnet: ${cidr}.`, fields: ['start_ip'] };
    if (!inEnd) return { text: `End IP address must be within subnet: ${cidr}.`, fields: ['end_ip'] };
    const host = hostRange(cidr);
    const prefix = Number(cidr.split('/')[1]);
    if (prefix < 31 && start === host.first - 1) return { text: 'Reserved network address cannot be included in IP range.', fields: ['start_ip'] };
    if (prefix < 31 && end === host.last + 1) return { text: 'Broadcast address cannot be included in IP range.', fields: ['end_ip'] };
    // _validate_duplicates_and_overlaps: a reserved range may cover allocated addresses but no
    // other range; a dynamic one neither (nor the gateway).
    const blocked = new Set<number>();
    for (const o of this.rows.values()) {
      if (o.id === self || o.subnetId !== r.subnet.id) continue;
      for (let n = toNumber(o.startIp); n <= toNumber(o.endIp); n++) blocked.add(n);
    }
    if (r.type === 'dynamic') {
      for (const ip of [...this.world.addressesInUse(), ...(r.subnet.gatewayIp ? [r.subnet.gatewayIp] : [])]) if (cidrContains(cidr, ip)) blocked.add(toNumber(ip));
    }
    if (blocked.size >= host.last - host.first + 1) return { text: `There is no room for any ${r.type} ranges on this subnet.`, fields: both };
    for (let n = start; n <= end; n++) {
      if (blocked.has(n)) return { text: `Requested ${r.type} range conflicts with an existing ${r.type === 'reserved' ? 'range' : 'IP address or range'}.`, fields: both };
    }
    return undefined;
  }

  private json(r: IpRange) {
    return {
      id: r.id,
      type: r.type,
      start_ip: r.startIp,
      end_ip: r.endIp,
      comment: r.comment,
      user: r.user === null ? null : this.world.userJson(r.user),
      subnet: this.world.subnetJson(r.subnetId) ?? null,
      resource_uri: `${API_PREFIX}/ipranges/${r.id}/`,
    };
  }
}
