import { readFileSync } from 'node:fs';
// @ts-expect-error: a plain ES module without type declarations (the generator the package's build uses)
import { documentPath, generate, generatedPath } from '../codegen/generate-types.mjs';

// The SDK's types are generated from the committed OpenAPI document (which the gateway's own test
// keeps equal to the route table): this fails when src/generated.ts was not regenerated.
describe('SDK types', () => {
  it('are what the committed OpenAPI document generates (npm run types -w @mp/sdk)', () => {
    const expected = generate(JSON.parse(readFileSync(documentPath, 'utf8'))) as string;
    expect(readFileSync(generatedPath, 'utf8') === expected).toBe(true);
  });
});
