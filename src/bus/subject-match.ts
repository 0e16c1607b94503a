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
