#!/usr/bin/env node
// Writes docs/adr/README.md, the index of the decision records, from the records themselves: each
// one's number, title and status line, and the records that amend it (an ADR names what it amends
// in its status line: "Amends ADR 0024 …"), so the index and the links between records are never
// kept by hand. `--check` fails (exit 1) when the committed index differs from what would be
// written: CI runs it, and `npm run docs:adr-index` brings the index up to date.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'adr');
const INDEX = join(dir, 'README.md');

const records = readdirSync(dir)
  .filter((f) => /^\d{4}-.*\.md$/.test(f))
  .sort()
  .map((file) => {
    const text = readFileSync(join(dir, file), 'utf8');
    const number = file.slice(0, 4);
    const heading = (text.match(/^# (.*)$/m)?.[1] ?? file).trim();
    // "# ADR 0024: Title" and "# 0013 — Title" both name the number before the title.
    const title = heading.replace(/^(ADR\s+)?\d{4}\s*[:—-]\s*/, '');
    const statusLine = text.match(/^Status:\s*(.*)$/m)?.[1]?.trim() ?? '';
    const status = statusLine ? (statusLine.match(/^[a-z]+/i)?.[0] ?? statusLine).toLowerCase() : 'accepted (no status line)';
    const amends = [...statusLine.matchAll(/Amends\s+(?:\[)?ADR\s+(\d{4})/gi), ...statusLine.matchAll(/,\s*(?:and\s+)?\[?ADR\s+(\d{4})/gi)].map((m) => m[1]);
    const builds = [...statusLine.matchAll(/Builds on\s+\[?ADR\s+(\d{4})/gi)].map((m) => m[1]);
    return { file, number, title, status, amends: [...new Set(amends)], builds };
  });

const amendedBy = new Map();
for (const r of records) for (const n of r.amends) amendedBy.set(n, [...(amendedBy.get(n) ?? []), r.number]);
const link = (n) => {
  const r = records.find((x) => x.number === n);
  return r ? `[${n}](${r.file})` : n;
};

const rows = records.map((r) => {
  const notes = [
    r.amends.length ? `amends ${r.amends.map(link).join(', ')}` : '',
    r.builds.length ? `builds on ${r.builds.map(link).join(', ')}` : '',
    amendedBy.has(r.number) ? `amended by ${amendedBy.get(r.number).map(link).join(', ')}` : '',
  ].filter(Boolean);
  return `| [${r.number}](${r.file}) | ${r.title.replace(/\|/g, '\\|')} | ${r.status} | ${notes.join('; ')} |`;
});

const written = `# Architecture decision records

Each record states one decision: its context, what was decided and what follows. A record is
never rewritten to say something else; a later one amends it and names it in its status line
("Amends ADR 0024"), and this index links both ways. Numbers missing from the list were never
used. This file is written by \`npm run docs:adr-index\` (scripts/adr-index.mjs) from the records;
CI fails when it is out of date.

| ADR | Decision | Status | Links |
| --- | -------- | ------ | ----- |
${rows.join('\n')}
`;
// Formatted as the repository formats Markdown, so the format check and this check agree.
const out = await prettier.format(written, { ...(await prettier.resolveConfig(INDEX)), parser: 'markdown' });

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(INDEX, 'utf8');
  } catch {
    current = '';
  }
  if (current !== out) {
    console.error('docs/adr/README.md is out of date: run `npm run docs:adr-index` and commit it.');
    process.exit(1);
  }
} else writeFileSync(INDEX, out);
