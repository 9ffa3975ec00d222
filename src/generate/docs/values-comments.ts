// The comments of a Helm values.yaml, by dotted key: the comment block right above a key (at its
// indentation) and a comment after its value on the same line. Pure; values.yaml is written for
// people, so its comments are the values' documentation.

const KEY_LINE = /^( *)([A-Za-z0-9_-]+):(.*)$/;

function trailingComment(rest: string): string {
  // A `#` after a space, outside quotes, starts a comment.
  let quote: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const ch = rest[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === "#" && (i === 0 || rest[i - 1] === " ")) {
      return rest.slice(i + 1).trim();
    }
  }
  return "";
}

export function valuesComments(yamlText: string): Map<string, string> {
  const out = new Map<string, string>();
  const stack: Array<{ indent: number; key: string }> = [];
  let block: { indent: number; lines: string[] } | undefined;
  for (const line of yamlText.split("\n")) {
    const comment = /^( *)#\s?(.*)$/.exec(line);
    if (comment) {
      const indent = comment[1]!.length;
      if (!block || block.indent !== indent) block = { indent, lines: [] };
      block.lines.push(comment[2]!);
      continue;
    }
    const key = KEY_LINE.exec(line);
    if (!key) {
      if (line.trim() === "") block = undefined;
      continue;
    }
    const indent = key[1]!.length;
    while (stack.length && stack[stack.length - 1]!.indent >= indent) stack.pop();
    stack.push({ indent, key: key[2]! });
    const words = [block && block.indent === indent ? block.lines.join(" ") : "", trailingComment(key[3]!)]
      .map((w) => w.replace(/\s+/g, " ").trim())
      .filter(Boolean);
    if (words.length) out.set(stack.map((s) => s.key).join("."), words.join(" "));
    block = undefined;
  }
  return out;
}
