// The times a host's status carries, as text. Thousands of hosts step within the same
// millisecond (and, for Kubernetes' whole-second times, the same second), and each status keeps
// its times for as long as the host lives: the text of the last time asked for is kept and handed
// out again, so hosts stamped in the same instant share one string instead of one each (issue 29).

let isoMs = Number.NaN;
let isoText = '';

/** `ms` as Date.toISOString() writes it (what BMO's lastUpdated and operationHistory hold). */
export function isoStamp(ms: number): string {
  if (ms !== isoMs) {
    isoText = new Date(ms).toISOString();
    isoMs = ms;
  }
  return isoText;
}

let k8sSecond = Number.NaN;
let k8sText = '';

/** Kubernetes' metav1.Time: RFC 3339 in whole seconds (what the API server stores and returns). */
export function k8sTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== k8sSecond) {
    k8sText = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
    k8sSecond = second;
  }
  return k8sText;
}
