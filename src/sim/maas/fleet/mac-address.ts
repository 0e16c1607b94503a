// normalise_macaddress (maasserver/fields.py): lower case, split on "-", ":" or "."; one token is
// cut into pairs, three (Cisco's aabb.ccdd.eeff) into pairs of each, six are zero-padded. It
// never refuses: a malformed MAC simply matches nothing.
export function normaliseMac(mac: string): string {
  const tokens = mac.toLowerCase().split(/[-:.]/);
  const pairs = (t: string) => t.match(/../g) ?? [];
  if (tokens.length === 1) return pairs(tokens[0] ?? '').join(':');
  if (tokens.length === 3) return tokens.flatMap((t) => pairs(t.padStart(4, '0'))).join(':');
  return tokens.map((t) => t.padStart(2, '0')).join(':');
}
