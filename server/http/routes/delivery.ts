// Delivery group routes served by the application: /pricing (main origin) and /health (delivery origin).
import { serialized } from '../contract.js';
import type { Handler } from '../pipeline.js';
import { CATALOGUE } from '../../domain/delivery/pricing.js';

// Serialized once: GET and HEAD send the same bytes' headers, Content-Length being their UTF-8 length.
const PRICING_BODY = serialized(CATALOGUE);
const PRICING_HEADERS = {
  'Cache-Control': 'public, max-age=300',
  'Content-Length': String(Buffer.byteLength(PRICING_BODY, 'utf8')),
};

export const getPricing: Handler<'getPricing'> = () => ({
  body: PRICING_BODY,
  type: 'application/json; charset=utf-8',
  headers: PRICING_HEADERS,
});

export const getHealth: Handler<'getDeliveryHealth'> = () => ({
  body: { status: 'ok' },
  headers: { 'Cache-Control': 'no-store' },
});
