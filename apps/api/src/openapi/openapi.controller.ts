import { Controller, Get, Header, NotFoundException, Param, Res } from '@nestjs/common';
import { buildOpenApiDocument } from '@tollgate/contracts';
import type { FastifyReply } from 'fastify';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Public } from '../auth/public.decorator';

// swagger-ui-dist ships the UI as static files; we serve the few we need ourselves.
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tollgate API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/docs-json', dom_id: '#ui' });</script>
</body></html>`;

@Public()
@Controller()
export class OpenApiController {
  private readonly document = buildOpenApiDocument();

  @Get('docs-json')
  spec() {
    return this.document;
  }

  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  page() {
    return PAGE;
  }

  @Get('docs/assets/:file')
  async asset(@Param('file') file: string, @Res() reply: FastifyReply) {
    const type = ASSETS[file];
    if (!type) throw new NotFoundException('No such asset.');
    const body = await readFile(path.join(SWAGGER_DIR, file));
    reply.header('content-type', type).header('cache-control', 'public, max-age=86400').send(body);
  }
}
