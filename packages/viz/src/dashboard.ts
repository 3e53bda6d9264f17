import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ArgumentError, enableLogging, fetchLogs } from '@dtask/core';
import { checkOptions, type Plugin, type PluginContext } from '@dtask/core/plugin';
import { EventClient } from './event-client.js';
import { allowedHosts, isAllowedHost } from './host-check.js';
import { panelsHtml } from './live-panels.js';
import { checkInterval } from './progress.js';
import { type ReportData, summarise } from './report-data.js';
import { embedJson, reportHtml, sectionsHtml } from './report-page.js';
import { TaskFollower } from './task-follower.js';
import { describe } from './write-report.js';

/** Options of `dashboard`. */
export interface DashboardOptions {
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Address to bind. Default `127.0.0.1` (this machine only); `0.0.0.0` opens it to the network. */
  host?: string;
  /** Milliseconds between looks at the log while someone watches. Default 250. */
  interval?: number;
  /** Called with the URL once listening. Default: prints `dtask dashboard: <url>` to stderr. */
  onListening?: (url: string) => void;
  /** Page title. Default `dtask dashboard`. */
  title?: string;
}

/** The dashboard plugin; `url` is set once the context's setup has run. */
export interface DashboardPlugin extends Plugin {
  /** `http://host:port/` while serving, else undefined. */
  readonly url: string | undefined;
}

/**
 * An opt-in core plugin serving the report view live over HTTP; called by the user as
 * `new Context({ plugins: [dashboard()] })`. On setup it turns logging on (`enableLogging()`),
 * follows the context's tasks, listens on `host:port`, and reports its URL. `GET /` is the
 * report page with three live panels above it: progress per task name (done, running, queued,
 * failed: `progress`'s counts), a gauge per process of its memory and CPU (core's `memory`
 * and `cpu` samples, about one a second per process while logging is on), and utilisation per
 * processor (`ctx.stats()`: busy fraction, runs, run and wait percentiles). It follows
 * `GET /events` (server-sent events), which sends the panels, and the report's data and tables
 * whenever the log has grown (looked at every `interval` ms while a page is open), with
 * back-pressure: a client that has not read the last update gets the next ones coalesced into
 * one, and is disconnected after 30 s without reading (`event-client.ts`);
 * `GET /data.json` is the data now. A request whose `Host` header is not one of the server's
 * own names (`allowedHosts`: localhost, 127.0.0.1, [::1], the bound address, with the port) is
 * refused with 403, so a page of another site cannot read the view through DNS rebinding. It
 * reads the log with `fetchLogs({ clear: false })`, so a `fetchLogs()` that clears the log
 * also clears the view. Closing the context closes the server.
 * @throws ArgumentError (`DTASK_ARGUMENT`) at once for an unknown or ill-typed option; the
 * context's setup rejects with the listen error (e.g. `EADDRINUSE`) if it cannot listen.
 */
export function dashboard(options: DashboardOptions = {}): DashboardPlugin {
  const { port, host, interval, onListening, title } = checkDashboardOptions(options);
  const clients = new Set<EventClient>();
  const follower = new TaskFollower(true);
  let url: string | undefined;
  let hosts = new Set<string>();
  let seen = -1;
  let current: ReportData = summarise([]);
  let panels = '';
  let timer: ReturnType<typeof setInterval> | undefined;
  let context: PluginContext | undefined;

  const refresh = (): boolean => {
    const logs = fetchLogs({ clear: false });
    if (logs.length === seen) return false;
    seen = logs.length;
    current = summarise(logs);
    return true;
  };
  /** The panels now; true when they changed since last sent. */
  const refreshPanels = (): boolean => {
    const next = panelsHtml(follower.countsByName(), current, context?.stats());
    if (next === panels) return false;
    panels = next;
    return true;
  };
  /** The update as sent, made once per change however many clients read it. */
  let made: { withData: boolean; seen: number; panels: string; text: string } | undefined;
  const message = (withData: boolean): string => {
    if (made?.withData === withData && made.seen === seen && made.panels === panels) {
      return made.text;
    }
    const update = withData ? { data: current, tables: sectionsHtml(current), panels } : { panels };
    made = { withData, seen, panels, text: `data: ${embedJson(update)}\n\n` };
    return made.text;
  };
  const tick = (): void => {
    if (clients.size === 0) return;
    const grew = refresh();
    const moved = refreshPanels();
    if (!grew && !moved) return;
    for (const client of clients) client.send(grew);
  };
  const server = createServer((req, res) => {
    if (!isAllowedHost(req.headers.host, hosts)) {
      res
        .writeHead(403, { 'content-type': 'text/plain' })
        .end(`forbidden: unknown Host header; open the dashboard at ${url}\n`);
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET' }).end();
    } else if (path === '/') {
      refresh();
      refreshPanels();
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      res.end(reportHtml(current, { title, live: '/events', panels }));
    } else if (path === '/data.json') {
      refresh();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(current));
    } else if (path === '/events') {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      refresh();
      refreshPanels();
      const client = new EventClient(res, message);
      client.send(true);
      clients.add(client);
      req.on('close', () => clients.delete(client));
    } else {
      res
        .writeHead(404, { 'content-type': 'text/plain' })
        .end('not found: try /, /events or /data.json\n');
    }
  });

  return {
    name: 'dashboard',
    get url() {
      return url;
    },
    async setup(pluginHost) {
      enableLogging();
      context = pluginHost.context;
      follower.followContext(context);
      await new Promise<void>((resolve, reject) => {
        server.once('error', (error) => {
          follower.close();
          reject(error);
        });
        server.listen(port, host, () => {
          server.removeAllListeners('error');
          resolve();
        });
      });
      server.unref();
      const address = server.address() as AddressInfo;
      hosts = allowedHosts(address.address, address.port, [host]);
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      url = `http://${shown}:${address.port}/`;
      timer = setInterval(tick, interval);
      timer.unref();
      onListening(url);
    },
    async close() {
      follower.close();
      if (timer !== undefined) clearInterval(timer);
      if (url === undefined) return;
      tick();
      for (const client of clients) client.res.end();
      clients.clear();
      url = undefined;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function checkDashboardOptions(options: DashboardOptions): Required<DashboardOptions> {
  checkOptions(options, {
    known: ['port', 'host', 'interval', 'onListening', 'title'],
    notObject: (o) => `dashboard: options must be an object, got ${describe(o)}`,
    unknownKey: (key, known) =>
      `dashboard: unknown option '${key}'; the options are ${known.join(', ')}`,
  });
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ArgumentError(
      `dashboard: options.port must be an integer from 0 to 65535 (0 picks a free port), got ${describe(port)}`,
    );
  }
  const host = options.host ?? '127.0.0.1';
  if (typeof host !== 'string' || host.length === 0) {
    throw new ArgumentError(
      `dashboard: options.host must be an address string such as '127.0.0.1', got ${describe(host)}`,
    );
  }
  const onListening =
    options.onListening ?? ((url: string) => process.stderr.write(`dtask dashboard: ${url}\n`));
  if (typeof onListening !== 'function') {
    throw new ArgumentError(
      `dashboard: options.onListening must be a function, got ${describe(onListening)}`,
    );
  }
  const title = options.title ?? 'dtask dashboard';
  if (typeof title !== 'string')
    throw new ArgumentError(`dashboard: options.title must be a string, got ${describe(title)}`);
  return {
    port,
    host,
    onListening,
    title,
    interval: checkInterval('dashboard', options.interval, 250),
  };
}
