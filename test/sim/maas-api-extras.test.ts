// power_parameters, details (BSON), nodes/ and ipranges/ through python requests-oauthlib (a real
// third-party OAuth signer): test/sim/python/maas-api-extras.py reports, this file judges.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { checksFrom } from '../support/python-checks.ts';

const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./python/maas-api-extras.py', import.meta.url));

type Seen = Record<string, unknown> & { check: string; status?: number; body?: unknown; content_type?: string };

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(PYTHON, args, { encoding: 'utf8', timeout: 90_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${PYTHON} ${SCRIPT} failed (${err.message}); run scripts/python-maas-install.sh if requests_oauthlib is missing. stderr: ${stderr}`));
      else resolve(stdout);
    });
  });
}

const RESERVED_CONFLICT = 'Requested reserved range conflicts with an existing range.';
const DYNAMIC_CONFLICT = 'Requested dynamic range conflicts with an existing IP address or range.';

test('maas api extras - power_parameters, details, nodes/ and ipranges/ as MAAS answers them', async (t) => {
  const sim = await startMaasSim({ deployMs: 100 });
  t.teardown(() => sim.stop());
  const out = await run([SCRIPT, sim.url, sim.adminKey, sim.userKey]);
  const get = checksFrom<Seen>(out);
  const body = (name: string) => get(name).body as Record<string, unknown>;

  // power_parameters: the admin sees the BMC credentials; a user gets 403 with no text (admin_read).
  t.is(get('power_parameters_admin').status, 200);
  t.like(body('power_parameters_admin'), { power_driver: 'LAN_2_0', power_user: 'maas', power_boot_type: 'auto' });
  t.regex(String(body('power_parameters_admin').power_pass), /^.{8,}$/);
  t.regex(String(body('power_parameters_admin').power_address), /^\d+\.\d+\.\d+\.\d+$/);
  t.like(get('power_parameters_user'), { status: 403, body: '' });
  t.like(get('power_parameters_missing'), { status: 404, body: 'No Node matches the given query.' });
  t.is(get('power_parameters_all_admin').status, 200);
  t.is(Object.keys(body('power_parameters_all_admin')).length, Number(get('power_parameters_all_admin').count));
  t.deepEqual(Object.keys(body('power_parameters_some_admin')), [String(get('power_parameters_admin').system_id)]);
  t.like(get('power_parameters_all_user'), { status: 403, body: 'This method is reserved for admin users.' });
  t.like(get('power_password_only_there'), { password_set: true, found_in: [] });

  // details: BSON, {lldp, lshw} as generic binaries (decoded byte by byte in maas-bson.test.ts and by mgo's bson in Go).
  for (const name of ['details', 'details_node']) {
    t.like(get(name), { status: 200, content_type: 'application/bson' }, name);
    const bytes = Buffer.from(String(get(name).body), 'hex');
    t.is(bytes.readInt32LE(0), bytes.length, name);
    t.true(bytes.includes(Buffer.from('\x05lldp\x00', 'latin1')) && bytes.includes(Buffer.from('\x05lshw\x00', 'latin1')), name);
    t.true(bytes.includes(Buffer.from('<list>')), name);
  }
  t.like(get('details_missing'), { status: 404, body: 'No Node matches the given query.' });

  // nodes/: machines as machines (node_type 0), filters hostname and id, read, 404 text.
  const nodes = get('nodes_list').body as Array<Record<string, unknown>>;
  t.is(nodes.length, Number(get('nodes_list').machines));
  t.true(nodes.every((n) => n.node_type === 0 && n.node_type_name === 'Machine' && String(n.resource_uri).startsWith('/MAAS/api/2.0/machines/')));
  t.deepEqual(get('nodes_by_hostname').body, [get('nodes_by_hostname').want]);
  t.deepEqual(get('nodes_by_id').body, [get('nodes_by_id').want]);
  t.is(get('node_read').status, 200);
  t.deepEqual(get('node_read').body, get('node_read').machine);
  t.is(get('node_read_user').status, 200);
  // op=is_registered: any MAC spelling normalise_macaddress reads; the parameter is mandatory.
  t.like(get('nodes_is_registered'), {
    machine_mac: { status: 200, body: true },
    bare_mac: { status: 200, body: true },
    unknown: { status: 200, body: false },
    missing: { status: 400, body: 'No provided mac_address!' },
  });
  t.like(get('node_missing'), { status: 404, body: 'No Node matches the given query.' });

  // A device is a node too: listed with its type, details all null, no power parameters; NodeHandler.delete is an admin's.
  t.like(get('device_as_node'), {
    created: 200,
    listed: ['Device'],
    // {lldp: null, lshw: null}: int32 17, two 0x0A elements, the terminator.
    details: { status: 200, content_type: 'application/bson', body: '110000000a6c6c6470000a6c7368770000' },
    power_parameters: { status: 200, body: {} },
    delete_user: 403,
    delete_machine_user: 403,
    delete: 204,
    after: { status: 404, body: 'No Node matches the given query.' },
    delete_missing: { status: 404, body: 'No Node matches the given query.' },
  });

  // ipranges/: create, MAAS's form and overlap errors, read, update, delete, ownership.
  t.like(get('iprange_list_empty'), { status: 200, body: [] });
  t.is(get('iprange_create_reserved_user').status, 200);
  t.like(body('iprange_create_reserved_user'), { type: 'reserved', start_ip: '10.10.1.10', end_ip: '10.10.1.30', comment: 'lab gear', user: { username: 'user' }, subnet: { cidr: '10.10.1.0/24' } });
  t.like(get('iprange_create_dynamic_user'), { status: 403, body: "Unable to create dynamic IP range. You don't have sufficient privileges." });
  t.is(get('iprange_create_dynamic_admin').status, 200);
  t.like(body('iprange_create_dynamic_admin'), { type: 'dynamic', user: { username: 'admin' } });
  t.like(get('iprange_overlap_reserved'), { status: 400, body: { start_ip: [RESERVED_CONFLICT], end_ip: [RESERVED_CONFLICT] } });
  t.like(get('iprange_overlap_dynamic'), { status: 400, body: { start_ip: [DYNAMIC_CONFLICT], end_ip: [DYNAMIC_CONFLICT] } });
  t.like(get('iprange_dynamic_over_gateway'), { status: 400, body: { start_ip: [DYNAMIC_CONFLICT] } });
  t.like(get('iprange_missing_type'), { status: 400, body: { type: ['This field is required.'] } });
  t.like(get('iprange_bad_type'), { status: 400, body: { type: ['Select a valid choice. static is not one of the available choices.'] } });
  t.like(get('iprange_end_before_start'), { status: 400, body: { end_ip: ['End IP address must not be less than Start IP address.'] } });
  t.like(get('iprange_outside_subnet'), { status: 400, body: { start_ip: ['IP addresses must be within subnet: 10.10.1.0/24.'] } });
  t.like(get('iprange_broadcast'), { status: 400, body: { end_ip: ['Broadcast address cannot be included in IP range.'] } });
  t.like(get('iprange_bad_ip'), { status: 400, body: { start_ip: ['Enter a valid IPv4 or IPv6 address.'] } });
  t.is((get('iprange_list').body as unknown[]).length, 2);
  t.like(get('iprange_read'), { status: 200, body: { start_ip: '10.10.1.10', resource_uri: `/MAAS/api/2.0/ipranges/${String(body('iprange_create_reserved_user').id)}/` } });
  t.like(get('iprange_read_missing'), { status: 404, body: 'No IPRange matches the given query.' });
  t.like(get('iprange_update_comment'), { status: 200, body: { comment: 'moved', end_ip: '10.10.1.31', start_ip: '10.10.1.10', type: 'reserved' } });
  t.like(get('iprange_update_not_owner'), { status: 403, body: "Unable to modify IP range. You don't own the IP range." });
  t.like(get('iprange_update_overlap'), { status: 400, body: { start_ip: [RESERVED_CONFLICT] } });

  // Automatic allocation skips the ranges; a requested address inside one is refused as MAAS does.
  t.is(get('reserve_skips_ranges').status, 200);
  const reserved = String((body('reserve_skips_ranges')).ip);
  const last = Number(reserved.split('.')[3]);
  t.true(reserved.startsWith('10.10.1.') && !(last >= 10 && last <= 31) && !(last >= 200 && last <= 220), reserved);
  t.like(get('reserve_explicit_in_reserved_range'), { status: 404, body: '10.10.1.15 is within the reserved range from 10.10.1.10 to 10.10.1.31' });
  const deployed = get('deploy_skips_ranges');
  t.is(deployed.status_name, 'Deployed');
  const auto = (deployed.ip_addresses as string[])[0] ?? '';
  const host = Number(auto.split('.')[3]);
  t.true(auto.startsWith('10.10.1.') && host > 31 && !(host >= 200 && host <= 220), auto);

  // A range's addresses are unavailable in the subnet's statistics (get_ipranges_in_use); deleting
  // the subnet takes its ranges along (on_delete=CASCADE).
  const stats = get('statistics_count_ranges');
  t.is(stats.status, 200);
  t.is(Number(stats.after) - Number(stats.before), 5);
  // subnets/{id}/ op=reserved_ip_ranges and op=unreserved_ip_ranges: MAASIPSet.render_json.
  const usage = get('subnet_range_usage');
  t.deepEqual(usage.made, [200, 200]);
  t.deepEqual(usage.reserved, {
    status: 200,
    content_type: 'application/json; charset=utf-8',
    body: [
      { start: '10.10.2.1', end: '10.10.2.1', num_addresses: 1, purpose: ['gateway-ip'] },
      { start: '10.10.2.100', end: '10.10.2.104', num_addresses: 5, purpose: ['reserved'] },
      { start: '10.10.2.200', end: '10.10.2.210', num_addresses: 11, purpose: ['dynamic'] },
    ],
  });
  t.deepEqual((usage.unreserved as { body: unknown }).body, [
    { start: '10.10.2.2', end: '10.10.2.99', num_addresses: 98 },
    { start: '10.10.2.105', end: '10.10.2.199', num_addresses: 95 },
    { start: '10.10.2.211', end: '10.10.2.254', num_addresses: 44 },
  ]);
  t.like(get('subnet_delete_drops_ranges'), { subnet: 200, range: 200, deleted: 204, after: 404 });

  t.like(get('iprange_delete_not_owner'), { status: 403 });
  t.like(get('iprange_delete'), { status: 204, after: 404 });
});
