import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { currentOpenApiText } from './api/document.js';

// `npm run openapi -w @mp/gateway`: rewrites docs/openapi.json from the route table (after a build).
const target = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
writeFileSync(target, currentOpenApiText());
console.log(`wrote ${target}`);
