// Duplicate keys in a JSON body, which JSON.parse silently collapses (last wins) and the API
// server's strict decoder (sigs.k8s.io/json UnmarshalStrict) reports as `duplicate field "a.b"`.
// Paths are written like the unknown-field ones: `spec.items[0].name`.

/** The paths of keys that occur twice in one object of `text` (valid JSON), in text order. */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const str = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const seen = new Set<string>();
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        const key = str();
        const at = path ? `${path}.${key}` : key;
        if (seen.has(key)) out.push(at);
        seen.add(key);
        ws();
        i++; // ':'
        value(at);
        ws();
        if (text[i++] === '}') return;
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i++] === ']') return;
      }
    } else if (c === '"') str();
    else while (i < text.length && !',}] \t\n\r'.includes(text[i] as string)) i++;
  };
  value('');
  return out;
}
