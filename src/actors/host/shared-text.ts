// The messages a host keeps of its recent events (HostSnapshot.recent) are mostly the same text
// on every host ("registering -> inspecting: ..."), each built anew per host as a chain of
// concatenations, and kept for as long as the host lives: ten thousand hosts kept a hundred
// thousand copies (issue 29). Equal texts are handed out as one string instead. The table is
// bounded: text unique to a host (an error naming its address) would otherwise grow it without
// end, so once full it starts again, and the common texts come back into it at once.

const MAX_TEXTS = 4096;
let texts = new Map<string, string>();

/** `text`, or an equal string handed out before: keep the returned one. */
export function sharedText(text: string): string {
  const known = texts.get(text);
  if (known !== undefined) return known;
  if (texts.size >= MAX_TEXTS) texts = new Map();
  texts.set(text, text);
  return text;
}
