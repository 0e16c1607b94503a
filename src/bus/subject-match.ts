// NATS subject matching: tokens split on '.', '*' matches one token, '>' the rest (one or more).
export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern === subject || pattern === '>') return true;
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    const token = p[i];
    if (token === '>') return s.length > i;
    if (i >= s.length) return false;
    if (token !== '*' && token !== s[i]) return false;
  }
  return p.length === s.length;
}

/** As nats-server: dot-separated non-empty tokens without whitespace; wildcards only to subscribe ('>' last). */
export function validSubject(subject: string, wildcards: boolean): boolean {
  if (subject === '' || /\s/.test(subject)) return false;
  const tokens = subject.split('.');
  return tokens.every((token, i) => {
    if (token === '') return false;
    if (token === '*' || token === '>') return wildcards && (token === '*' || i === tokens.length - 1);
    return true;
  });
}
