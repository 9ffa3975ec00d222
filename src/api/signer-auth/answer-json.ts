// The hook's answer as JSON text, built by hand for the answer every payment gets (an allowance):
// the same text JSON.stringify gives, without walking the object per call; the maxPrice part is
// the tenant's (decision.ts keeps one object per tenant spec), so its text is kept too.
import type { AuthAnswer, MaxPrice } from "./decision.ts";

const priceTexts = new WeakMap<MaxPrice, string>();

function priceText(p: MaxPrice): string {
  let text = priceTexts.get(p);
  if (text === undefined) {
    text = JSON.stringify(p);
    priceTexts.set(p, text);
  }
  return text;
}

/** JSON.stringify(answer): the allowance's fields written as they come, anything else the general way. */
export function answerJson(a: AuthAnswer): string {
  // Refusals (a reason) take the general path.
  if (a.reason !== undefined) return JSON.stringify(a);
  let text = "";
  for (const k in a) {
    if (k === "status" && Number.isSafeInteger(a.status)) text += `,"status":${a.status}`;
    else if (k === "expiry" && Number.isSafeInteger(a.expiry)) text += `,"expiry":${a.expiry}`;
    else if (k === "auth_id" && typeof a.auth_id === "string")
      text += `,"auth_id":${JSON.stringify(a.auth_id)}`;
    else if (k === "maxPrice" && a.maxPrice) text += `,"maxPrice":${priceText(a.maxPrice)}`;
    else return JSON.stringify(a);
  }
  return `{${text.slice(1)}}`;
}
