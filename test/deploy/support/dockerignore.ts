/**
 * The build context a Docker engine would send: `.dockerignore` as BuildKit reads it. A pattern
 * is matched against each path relative to the context root and against every parent folder of
 * it (so `**\/node_modules` drops a whole folder); patterns are read in order and the last one
 * that matches decides (`!` re-includes). `*` and `?` stop at `/`, `**` crosses folders.
 */
export type ContextFilter = (relPath: string) => boolean;

interface Rule {
  exclude: boolean;
  re: RegExp;
}

function toRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        // `**/` matches zero or more folders; a trailing `**` matches everything below.
        const slash = pattern[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i);
      re += pattern.slice(i, end + 1).replace('[!', '[^');
      i = end;
    } else if (c === '\\') re += `\\${pattern[++i]}`;
    else re += /[.+^${}()|/]/.test(c) ? `\\${c}` : c;
  }
  return new RegExp(`^${re}$`);
}

export function parseDockerignore(text: string): ContextFilter {
  const rules: Rule[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const exclude = !line.startsWith('!');
    const pattern = (exclude ? line : line.slice(1).trim()).replace(/^\/+/, '').replace(/\/+$/, '');
    rules.push({ exclude, re: toRegExp(pattern) });
  }
  return (relPath) => {
    const parts = relPath.split('/');
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let included = true;
    for (const rule of rules) if (candidates.some((c) => rule.re.test(c))) included = !rule.exclude;
    return included;
  };
}
