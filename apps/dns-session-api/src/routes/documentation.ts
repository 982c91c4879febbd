import express, { type Router } from 'express';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import type { AnyRoute } from '../http/route';
import { buildOpenApi } from '../openapi';
import { routeFamilies } from './index';

// GET /documentation: Swagger UI from the installed swagger-ui-dist (no CDN) over /documentation/openapi.json.
// These are static assets and a document, not API routes: they sit outside the route table and need no session.

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Keyzone DNS session API: documentation</title>
<link rel="stylesheet" href="/documentation/static/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/documentation/static/swagger-ui-bundle.js"></script>
<script src="/documentation/init.js"></script>
</body>
</html>
`;

const init = `window.ui = SwaggerUIBundle({ url: '/documentation/openapi.json', dom_id: '#swagger-ui', withCredentials: true });\n`;

export function documentationRouter(routes: AnyRoute[], options: { cookieName: string; bearer: boolean }): Router {
  const router = express.Router();
  const document = JSON.stringify(buildOpenApi(routes, routeFamilies, options));
  router.get('/', (_req, res) => {
    res.type('text/html; charset=utf-8').send(page);
  });
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json; charset=utf-8').send(document);
  });
  router.get('/init.js', (_req, res) => {
    res.type('text/javascript; charset=utf-8').send(init);
  });
  router.use('/static', express.static(getAbsoluteFSPath(), { index: false, fallthrough: false }));
  return router;
}
