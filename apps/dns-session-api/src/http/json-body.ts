import express, { type RequestHandler } from 'express';

/**
 * JSON bodies only, capped at the configured size. Malformed JSON becomes 400 "Invalid request payload input"
 * in the error renderer; a body that is not JSON is left undefined, so the route's schema rejects it with 400.
 */
export function jsonBody(limit: number): RequestHandler {
  const parse = express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] });
  return (req, res, next) => {
    // What the parser would conclude itself for a request without a body (most reads), a few steps sooner.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      req.body = undefined;
      next();
      return;
    }
    void parse(req, res, next);
  };
}
