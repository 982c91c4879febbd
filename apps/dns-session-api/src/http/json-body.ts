import express, { type RequestHandler } from 'express';

/**
 * JSON bodies only, capped at the configured size. Malformed JSON becomes 400 "Invalid request payload input"
 * in the error renderer; a body that is not JSON is left undefined, so the route's schema rejects it with 400.
 */
export function jsonBody(limit: number): RequestHandler {
  return express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] });
}
