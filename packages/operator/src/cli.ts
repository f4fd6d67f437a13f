#!/usr/bin/env node
import { isDomainError } from '@mp/errors';
import { runOperatorCommand, USAGE, UsageError } from './commands.js';

try {
  process.stdout.write((await runOperatorCommand(process.argv.slice(2), process.env)) + '\n');
} catch (err) {
  if (err instanceof UsageError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
  else if (isDomainError(err)) process.stderr.write(`mp-operator: ${err.code} ${err.detail}\n`);
  else process.stderr.write(`mp-operator: ${(err as Error).message}\n`);
  process.exit(1);
}
