/**
 * PostgreSQL's auth epoch: one connection per instance listening on channel afs_auth, which
 * migration 16's triggers notify when a key or an agent's name or slug changes (in the changing
 * transaction, so delivered at its commit and never for a rollback). Each notification, and each
 * (re)connection, moves the epoch; while the channel is down the epoch is unknown (null) and the
 * instance keeps nothing it learned about keys (docs/contract/keys.md, Minting, rotating, revoking).
 */
import pg from 'pg';

const RETRY_MS = 1000;

export class AuthChannel {
  private client: pg.Client | null = null;
  private listening = false;
  private value = 0;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(private readonly connectionString: string) {
    this.connect();
  }

  /** null while not listening: a notification could be missed. */
  epoch(): number | null {
    return this.listening ? this.value : null;
  }

  private connect(): void {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5000 });
    this.client = client;
    const down = () => {
      if (this.client !== client) return;
      this.listening = false;
      this.value++;
      this.client = null;
      client.end().catch(() => {});
      if (!this.closed) this.retry = setTimeout(() => this.connect(), RETRY_MS).unref();
    };
    client.on('error', down);
    client.on('end', down);
    client.on('notification', () => this.value++);
    client
      .connect()
      .then(() => client.query('LISTEN afs_auth'))
      .then(() => {
        if (this.client !== client) return;
        // Whatever changed before LISTEN took effect was not announced to this connection.
        this.value++;
        this.listening = true;
      })
      .catch(down);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    this.listening = false;
    if (client) await client.end().catch(() => {});
  }
}
