// `npm run openapi`: writes the OpenAPI document generated from libs/contracts to openapi.json.
// The file is committed; a test fails when the served spec and this file differ, so every change
// to the public surface shows up in review.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../libs/contracts/src';

const target = path.resolve(__dirname, '..', 'openapi.json');
writeFileSync(target, JSON.stringify(buildOpenApiDocument(), null, 2) + '\n');
console.log(`Wrote ${path.relative(process.cwd(), target)}`);
