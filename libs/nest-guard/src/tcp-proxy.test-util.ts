import net from 'node:net';

/**
 * A TCP proxy between the guard's Redis connections and the real Redis, to cut or stall the link
 * for real: `cut()` closes the listener and every connection (Redis unreachable), `pause()`
 * stops forwarding (Redis too slow), `restore()` / `resume()` undo them.
 */
export class TcpProxy {
  /** Bytes forwarded from clients to Redis: grows with every command sent. */
  bytesToTarget = 0;
  private server: net.Server | undefined;
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private paused = false;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    public port: number,
  ) {}

  static async start(targetUrl: string): Promise<TcpProxy> {
    const url = new URL(targetUrl);
    const proxy = new TcpProxy(url.hostname, Number(url.port || 6379), 0);
    await proxy.listen();
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restore(): Promise<void> {
    if (!this.server) await this.listen();
  }

  pause(): void {
    this.paused = true;
    for (const [client] of this.pairs) client.pause();
  }

  resume(): void {
    this.paused = false;
    for (const [client] of this.pairs) client.resume();
  }

  private listen(): Promise<void> {
    const server = net.createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  private accept(client: net.Socket): void {
    const upstream = net.connect(this.targetPort, this.targetHost);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    this.pairs.add(pair);
    if (this.paused) client.pause();
    client.on('data', (chunk) => {
      this.bytesToTarget += chunk.length;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.pairs.delete(pair);
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  }
}
