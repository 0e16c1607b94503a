import type { ValidateOptions } from '../../../api/index.ts';
import type { Logger } from '../../../ports/index.ts';
import { reviewRoute } from './review-route.ts';
import type { Route, RouteTable } from './route.ts';
import { admitDefaults } from './defaulting.ts';
import { admitValidation } from './validating.ts';

// The webhook's endpoints. A new one is one more entry.

const healthRoute: Route = {
  // HEAD too: an HTTP probe or a load balancer's check may send it (Node leaves the body out).
  methods: ['GET', 'HEAD'],
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
