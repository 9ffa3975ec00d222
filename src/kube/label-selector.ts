// Label selectors as the API server evaluates them: a LabelSelector (matchLabels AND every
// matchExpression) and node-selector requirements (which add Gt and Lt). Pure.

export interface LabelRequirement {
  key: string;
  operator: string;
  values?: string[] | undefined;
}

export interface LabelSelector {
  matchLabels?: Record<string, string> | undefined;
  matchExpressions?: LabelRequirement[] | undefined;
}

/** Whether labels satisfy one requirement; an unknown operator matches nothing. */
export function requirementMatches(labels: Record<string, string>, r: LabelRequirement): boolean {
  const v = labels[r.key];
  const values = r.values ?? [];
  switch (r.operator) {
    case "In":
      return v !== undefined && values.includes(v);
    case "NotIn":
      return v === undefined || !values.includes(v);
    case "Exists":
      return v !== undefined;
    case "DoesNotExist":
      return v === undefined;
    case "Gt":
    case "Lt": {
      // Node selectors only: one integer value, compared with the label's integer value.
      if (v === undefined || values.length !== 1 || !/^-?\d+$/.test(v) || !/^-?\d+$/.test(values[0]!))
        return false;
      const [a, b] = [BigInt(v), BigInt(values[0]!)];
      return r.operator === "Gt" ? a > b : a < b;
    }
    default:
      return false;
  }
}

export function requirementsMatch(
  labels: Record<string, string>,
  reqs: readonly LabelRequirement[],
): boolean {
  return reqs.every((r) => requirementMatches(labels, r));
}

/** `{}` selects everything, as in Kubernetes. */
export function selectorMatches(
  selector: LabelSelector,
  labels: Record<string, string> | undefined,
): boolean {
  const l = labels ?? {};
  return (
    Object.entries(selector.matchLabels ?? {}).every(([k, v]) => l[k] === v) &&
    requirementsMatch(l, selector.matchExpressions ?? [])
  );
}

/** kubectl's text form (`app=x,tier in (a,b),!legacy`), for messages and list calls. */
export function formatSelector(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const r of selector.matchExpressions ?? []) {
    const values = (r.values ?? []).join(",");
    if (r.operator === "In") parts.push(`${r.key} in (${values})`);
    else if (r.operator === "NotIn") parts.push(`${r.key} notin (${values})`);
    else if (r.operator === "Exists") parts.push(r.key);
    else if (r.operator === "DoesNotExist") parts.push(`!${r.key}`);
    else parts.push(`${r.key} ${r.operator === "Gt" ? ">" : "<"} ${values}`);
  }
  return parts.join(",");
}
