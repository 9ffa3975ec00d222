// V8 keeps a string built by + or a template literal as a tree of its pieces (a cons string, 32
// bytes a node, which keeps every piece alive) until something flattens it, and a string that is
// only hashed or compared, as a Map key is, stays a tree. What is held for every object for long
// (a key per object, a line per child) is worth copying into one flat string once.

/** `s` as one flat string (same characters). */
export function flatString(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}
