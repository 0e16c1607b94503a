import type { ValidateOptions } from '../../../api/index.ts';
import type { Logger } from '../../../ports/index.ts';
import { reviewRoute } from './review-route.ts';
import type { Route, RouteTable } from './route.ts';
import { admitDefaults } from './defaulting.ts';
import { admitValidation } from './validating.ts';

// The webhook's endpoints. A new one is one more entry.

const healthRoute: Route = {
  methods: ['GET'],
  // Alive is all a probe can ask: a certificate that fails to reload leaves the last good one served.
  handle: () => ({ status: 200, text: 'ok\n' }),
};

export function webhookRoutes(log: Logger, rules: ValidateOptions = {}): RouteTable {
  return new Map<string, Route>([
    ['/healthz', healthRoute],
    ['/validate', reviewRoute('validate', (request) => admitValidation(request, rules), log)],
    ['/mutate', reviewRoute('mutate', admitDefaults, log)],
  ]);
}
