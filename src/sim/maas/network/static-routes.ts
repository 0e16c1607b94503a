import { isIP } from 'node:net';
import { forbidden, METHOD_RESERVED_ADMIN, notFound, validationError } from '../http/api-error.ts';
import type { SimUser } from '../http/oauth.ts';
import type { Params } from '../http/params.ts';
import { API_PREFIX } from '../fleet/machine-json.ts';
import { cidrContains } from './ipv4.ts';

// static-routes/ (api/staticroutes.py, StaticRouteForm, models/staticroute.py): a route from a
// source subnet to a destination subnet through a gateway on the source. Anyone reads them;
// only admins write. A route goes with either subnet (both foreign keys cascade).

interface Route {
  readonly id: number;
  sourceId: number;
  destinationId: number;
  gatewayIp: string;
  metric: number;
}

/** What routes need of the subnets: lookup by specifier (id, CIDR or name) and their JSON. */
export interface RouteSubnets {
  subnetInfo(idText: string): { id: number; cidr: string } | undefined;
  subnetJsonById(id: number): Record<string, unknown> | undefined;
}

const INVALID_CHOICE = 'Select a valid choice. That choice is not one of the available choices.';
const REQUIRED = 'This field is required.';

export class StaticRoutes {
  private readonly routes = new Map<number, Route>();
  private nextId = 1;

  constructor(private readonly subnets: RouteSubnets) {}

  list(): unknown[] {
    return [...this.routes.values()].sort((a, b) => a.id - b.id).map((r) => this.json(r));
  }

  read(idText: string): unknown {
    return this.json(this.route(idText));
  }

  create(user: SimUser, params: Params): unknown {
    if (!user.admin) throw forbidden(METHOD_RESERVED_ADMIN);
    const fields = this.validate(params, undefined);
    const route: Route = { id: this.nextId++, ...fields };
    this.routes.set(route.id, route);
    return this.json(route);
  }

  // Fields not sent keep their values (MAASModelForm fills them from the instance).
  update(user: SimUser, idText: string, params: Params): unknown {
    const route = this.route(idText);
    if (!user.admin) throw forbidden();
    Object.assign(route, this.validate(params, route));
    return this.json(route);
  }

  remove(user: SimUser, idText: string): void {
    const route = this.route(idText);
    if (!user.admin) throw forbidden();
    this.routes.delete(route.id);
  }

  /** A deleted subnet takes its routes along. */
  dropSubnet(subnetId: number): void {
    for (const r of this.routes.values()) if (r.sourceId === subnetId || r.destinationId === subnetId) this.routes.delete(r.id);
  }

  private validate(params: Params, current: Route | undefined): Omit<Route, 'id'> {
    const errors: Record<string, string[]> = {};
    const subnetField = (name: 'source' | 'destination', kept: number | undefined) => {
      const text = params.get(name);
      if (text === undefined && kept !== undefined) return this.subnets.subnetInfo(String(kept));
      if (text === undefined || text.trim() === '') {
        errors[name] = [REQUIRED];
        return undefined;
      }
      const found = this.subnets.subnetInfo(text);
      if (!found) errors[name] = [INVALID_CHOICE];
      return found;
    };
    const source = subnetField('source', current?.sourceId);
    const destination = subnetField('destination', current?.destinationId);
    const gatewayText = params.get('gateway_ip') ?? current?.gatewayIp;
    let gateway: string | undefined;
    if (gatewayText === undefined || gatewayText.trim() === '') errors.gateway_ip = [REQUIRED];
    else if (isIP(gatewayText.trim()) === 0) errors.gateway_ip = ['Enter a valid IPv4 or IPv6 address.'];
    else gateway = gatewayText.trim();
    const metricText = params.get('metric');
    let metric = current?.metric ?? 0;
    if (metricText !== undefined && metricText.trim() !== '') {
      if (!/^\s*[+-]?\d+\s*$/.test(metricText)) errors.metric = ['Enter a whole number.'];
      else if (Number(metricText) < 0) errors.metric = ['Ensure this value is greater than or equal to 0.'];
      else metric = Number(metricText);
    } else if (metricText !== undefined) {
      metric = 0;
    }
    // The form's clean(), then the model's (Django runs the model's even after form errors).
    const outside = gateway !== undefined && source !== undefined && !cidrContains(source.cidr, gateway);
    if (outside && source) errors.gateway_ip = [`Enter an IP address in ${source.cidr}.`];
    if (source && destination && source.id === destination.id) errors.__all__ = ['source and destination cannot be the same subnet.'];
    else if (outside) errors.__all__ = ['gateway_ip must be with in the source subnet.'];
    if (Object.keys(errors).length > 0 || !source || !destination || gateway === undefined) throw validationError(errors);
    const taken = [...this.routes.values()].some((r) => r !== current && r.sourceId === source.id && r.destinationId === destination.id && r.gatewayIp === gateway);
    if (taken) throw validationError({ __all__: ['Static route with this Source, Destination and Gateway IP already exists.'] });
    return { sourceId: source.id, destinationId: destination.id, gatewayIp: gateway, metric };
  }

  private route(idText: string): Route {
    const route = /^\d+$/.test(idText.trim()) ? this.routes.get(Number(idText.trim())) : undefined;
    if (!route) throw notFound('StaticRoute');
    return route;
  }

  private json(r: Route) {
    return {
      id: r.id,
      source: this.subnets.subnetJsonById(r.sourceId) ?? null,
      destination: this.subnets.subnetJsonById(r.destinationId) ?? null,
      gateway_ip: r.gatewayIp,
      metric: r.metric,
      resource_uri: `${API_PREFIX}/static-routes/${r.id}/`,
    };
  }
}
