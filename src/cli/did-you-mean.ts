// The word a user most likely meant, for errors about a mistyped action, kind, type or value: as
// commander suggests a command ("Did you mean demo?"), so every other word of the command line.

/** Edits between a and b (insert, delete, substitute, swap two neighbours), counting past max no further. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (before[j - 2] ?? 0) + 1);
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length] ?? max + 1;
}

/**
 * The candidate `word` is closest to, ignoring case: at most one edit away for words of up to four
 * letters, two for longer ones; null when none is that close, or the word is one of them.
 */
export function closestWord(word: string, candidates: readonly string[]): string | null {
  const wanted = word.toLowerCase();
  if (wanted.length < 2) return null;
  const max = wanted.length <= 4 ? 1 : 2;
  let best: { word: string; rank: number } | null = null;
  for (const candidate of candidates) {
    if (candidate === word) return null;
    const edits = distance(wanted, candidate.toLowerCase(), max);
    // A tie goes to a word the typed one begins (power-of: power-off rather than power-on).
    const rank = edits * 2 - (candidate.toLowerCase().startsWith(wanted) ? 1 : 0);
    if (edits <= max && (best === null || rank < best.rank)) best = { word: candidate, rank };
  }
  return best?.word ?? null;
}

/** `; did you mean X?` for the end of an error message, or '' when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const meant = closestWord(word, candidates);
  return meant === null ? '' : `; did you mean ${meant}?`;
}
