/**
 * Characters no value of this API may hold. NUL cannot be stored by PostgreSQL (a NUL in a name
 * or a search term ended in a 500); the other C0 controls and DEL have no place in an id, a name
 * or a query. Free text in a JSON body may still hold tab, line feed and carriage return.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const IN_QUERY_OR_HEADER = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- as above
const IN_BODY_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

export function hasControlCharacter(text: string, where: 'body' | 'query'): boolean {
  return (where === 'body' ? IN_BODY_TEXT : IN_QUERY_OR_HEADER).test(text);
}

/** A value found in the input and how it was reached (the path is built only for a hit). */
interface Found {
  value: unknown;
  key: PropertyKey | null;
  parent: Found | null;
}

function pathOf(node: Found): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let n: Found | null = node; n && n.key !== null; n = n.parent) path.push(n.key);
  return path.reverse();
}

/**
 * The path (zod notation, e.g. `['records', 3, 'remark']`) of the first string in `input` — a
 * value or an object key — holding a character refused above, or null. Iterative, so a body
 * nested thousands of levels deep cannot overflow the stack, and linear in the size of the input.
 */
export function findControlCharacter(input: unknown, where: 'body' | 'query'): PropertyKey[] | null {
  const stack: Found[] = [{ value: input, key: null, parent: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const value = node.value;
    if (typeof value === 'string') {
      if (hasControlCharacter(value, where)) return pathOf(node);
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: node });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, v] = entries[i]!;
        if (hasControlCharacter(key, where)) return [...pathOf(node), key];
        stack.push({ value: v, key, parent: node });
      }
    }
  }
  return null;
}
