/**
 * The lifecycle of seed 002's stdio servers, in order: console to stderr before the server
 * module evaluates, the factory call, raw `process.stdout.write` restored for protocol frames,
 * transport construction and connect, SIGINT exits 130, SIGTERM 143, stdin EOF and transport
 * close exit 0 (so the client can respawn), a shutdown bounded to five seconds against a
 * wedged server, and heartbeat and activity lines on stderr labelled with the server's name.
 */

/** The part of Node's `process` this module uses (the package compiles without Node's types). */
interface NodeProcess {
  stdin: {
    on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
    on(event: 'end' | 'close', listener: () => void): unknown;
    setEncoding(encoding: 'utf8'): unknown;
    pause(): unknown;
    resume(): unknown;
  };
  stdout: { write: (chunk: string | Uint8Array, ...rest: unknown[]) => boolean };
  stderr: { write: (chunk: string | Uint8Array, ...rest: unknown[]) => boolean };
  on(event: 'SIGINT' | 'SIGTERM', listener: () => void): unknown;
  exit(code: number): never;
}

declare const process: NodeProcess;

/** A JSON-RPC message, as the MCP SDK's `Transport` carries it. */
type JsonRpcMessage = Record<string, unknown>;

/** The MCP SDK's `Transport` interface (`@modelcontextprotocol/sdk/shared/transport.js`). */
export interface StdioTransport {
  start(): Promise<void>;
  send(message: JsonRpcMessage): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: JsonRpcMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
}

/** What a server factory returns: an SDK `McpServer` or `Server`, or anything that connects. */
export interface StdioServer {
  connect(transport: StdioTransport): Promise<void>;
  close?(): Promise<void> | void;
}

export interface StdioServerOptions {
  /** Labels the heartbeat and activity lines (default `mcp`). */
  name?: string;
  /** How long a shutdown may take before the process exits anyway (default 5 s). */
  shutdownMs?: number;
  /** Interval of the heartbeat line (default 5 minutes). */
  heartbeatMs?: number;
  /** At most one activity line per this interval (default 60 s). */
  activityMs?: number;
}

type Write = NodeProcess['stdout']['write'];

/** The real `process.stdout.write`, kept aside by the first redirect. */
let rawStdoutWrite: Write | undefined;

const CONSOLE_METHODS = ['log', 'info', 'debug', 'warn', 'error', 'trace', 'dir'] as const;

/**
 * Sends every console method and every `process.stdout.write` to stderr, so nothing but
 * protocol frames reaches stdout, and returns the raw stdout write. Call it before the server
 * module evaluates (the generated entry imports the module only afterwards). Idempotent.
 */
export function redirectConsoleToStderr(): Write {
  if (rawStdoutWrite) {
    return rawStdoutWrite;
  }
  const stdout = process.stdout;
  const raw = stdout.write.bind(stdout) as Write;
  rawStdoutWrite = raw;
  const toStderr = process.stderr.write.bind(process.stderr) as Write;
  stdout.write = toStderr;
  const line = (...values: unknown[]) => {
    toStderr(`${values.map(format).join(' ')}\n`);
  };
  const target = console as unknown as Record<string, unknown>;
  for (const method of CONSOLE_METHODS) {
    target[method] = line;
  }
  return raw;
}

function format(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  if (value instanceof Error) {
    return value.stack ?? value.message;
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Newline-delimited JSON-RPC over stdin and the raw stdout. */
class LineTransport implements StdioTransport {
  onmessage?: (message: JsonRpcMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #buffer = '';
  #closed = false;
  readonly #write: Write;
  readonly #activity: () => void;

  constructor(write: Write, activity: () => void) {
    this.#write = write;
    this.#activity = activity;
  }

  #started = false;

  /** Idempotent: the SDK's `connect` starts the transport, and the shell makes sure it did. */
  async start(): Promise<void> {
    if (this.#started) {
      return;
    }
    this.#started = true;
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => this.#read(String(chunk)));
    process.stdin.resume();
  }

  #read(chunk: string): void {
    this.#buffer += chunk;
    let newline = this.#buffer.indexOf('\n');
    while (newline >= 0) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(newline + 1);
      newline = this.#buffer.indexOf('\n');
      if (line.trim() === '') {
        continue;
      }
      let message: JsonRpcMessage;
      try {
        message = JSON.parse(line) as JsonRpcMessage;
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      this.#activity();
      this.onmessage?.(message);
    }
  }

  async send(message: JsonRpcMessage): Promise<void> {
    if (!this.#closed) {
      this.#write(`${JSON.stringify(message)}\n`);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    this.#closed = true;
    process.stdin.pause();
    this.onclose?.();
  }
}

/**
 * Runs the server `factory` returns over stdio under the lifecycle shell. Resolves once the
 * server is connected; the process then lives until stdin ends, the transport closes or a
 * signal arrives, and exits with 0, 130 (SIGINT) or 143 (SIGTERM).
 */
export async function runStdioServer(
  factory: () => StdioServer | Promise<StdioServer>,
  options: StdioServerOptions = {},
): Promise<void> {
  const name = options.name ?? 'mcp';
  const raw = redirectConsoleToStderr();
  const log = (text: string) => {
    process.stderr.write(`[${name}] ${text}\n`);
  };
  const server = await factory();
  if (!server || typeof server.connect !== 'function') {
    throw new TypeError(
      `the default export of the ${name} server entry must return an MCP server (something with connect(transport)), got ${typeof server}`,
    );
  }
  // Frames go out through the raw write; stray writes after this point are the author's own.
  process.stdout.write = raw;
  let lastActivity = 0;
  const activityMs = options.activityMs ?? 60_000;
  const transport = new LineTransport(raw, () => {
    const now = Date.now();
    if (now - lastActivity >= activityMs) {
      lastActivity = now;
      log('handling requests');
    }
  });
  let exiting = false;
  const exit = (code: number, why: string) => {
    if (exiting) {
      return;
    }
    exiting = true;
    log(`${why}; shutting down`);
    // A wedged server or transport must not keep the process: the race is bounded.
    const deadline = setTimeout(() => process.exit(code), options.shutdownMs ?? 5_000);
    (deadline as { unref?: () => void }).unref?.();
    Promise.resolve()
      .then(() => server.close?.())
      .catch((error: unknown) => log(`close failed: ${format(error)}`))
      .finally(() => process.exit(code));
  };
  process.on('SIGINT', () => exit(130, 'SIGINT'));
  process.on('SIGTERM', () => exit(143, 'SIGTERM'));
  process.stdin.on('end', () => exit(0, 'stdin ended'));
  const heartbeat = setInterval(() => log('alive'), options.heartbeatMs ?? 300_000);
  (heartbeat as { unref?: () => void }).unref?.();
  await server.connect(transport);
  // A server that connected without starting the transport still ends with its input.
  await transport.start();
  // Chain after connect: the SDK installs its own onclose there.
  const closed = transport.onclose;
  transport.onclose = () => {
    closed?.();
    exit(0, 'transport closed');
  };
  log('connected over stdio');
}
