// `Retry-After: <seconds>` or `Retry-After: <HTTP-date>` (RFC 9110 10.2.3) as a delay in ms from
// `now`; undefined when absent or unreadable (the schedule then decides alone).

export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d{1,10}$/.test(value)) return Number(value) * 1000;
  // HTTP-dates name a weekday and GMT; Date.parse reads IMF-fixdate, RFC 850 and asctime forms.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
