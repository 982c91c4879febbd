// GET /health (reference §1.3): name stays "GoTrue" so existing health checks keep matching.
import type { RequestHandler } from 'express';
import { DESCRIPTION, VERSION } from '../version';

export function health(): RequestHandler {
  return (_req, res) => {
    res.json({ version: VERSION, name: 'GoTrue', description: DESCRIPTION });
  };
}
