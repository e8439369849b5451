import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { createWorkerHub } from './hub.js';
import type { WorkerRow, WorkersRepository } from './repository.js';

/** A socket as the hub uses one: messages in, frames out. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  sent: Record<string, unknown>[] = [];
  send(data: string) {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close() {
    this.readyState = 3;
  }
  in(message: unknown) {
    this.emit('message', Buffer.from(JSON.stringify(message)));
  }
}

const quietLog = { info() {}, warn() {}, error() {}, debug() {} } as never;

/**
 * The worker's row, held in memory; the credential check of the first ping waits until the test
 * lets it go (as one query can, on a loaded machine or a pool of connections).
 */
function memoryRepo() {
  let status: WorkerRow['status'] = 'DISCONNECTED';
  const statuses: string[] = [];
  let release!: () => void;
  const firstCheck = new Promise<void>((r) => (release = r));
  let checks = 0;
  let secondChecked!: () => void;
  const secondCheck = new Promise<void>((r) => (secondChecked = r));
  const repo = {
    async register(values: { status: WorkerRow['status'] }) {
      status = values.status;
      return { id: 7, vpsId: 'w1', name: 'w1' } as WorkerRow;
    },
    async ping(_id: number, _session: string, next: 'AVAILABLE' | 'BUSY') {
      status = next;
      statuses.push(next);
    },
    async isCredentialActive() {
      checks += 1;
      if (checks === 1) await firstCheck;
      if (checks === 2) secondChecked();
      return true;
    },
    async isLive() {
      return false;
    },
    async disconnect() {},
  } as unknown as WorkersRepository;
  return { repo, status: () => status, statuses, release, secondCheck };
}

describe('worker hub', () => {
  it('writes a worker\u2019s pings in the order it sent them, however long each write takes', async () => {
    const mem = memoryRepo();
    const hub = createWorkerHub({ repo: mem.repo, log: quietLog });
    const socket = new FakeSocket();
    hub.accept(socket as unknown as WebSocket, '127.0.0.1', { kind: 'credential', credentialId: 1, vpsId: 'w1' });
    socket.in({ type: 'register', vpsId: 'w1', name: 'w1', address: '127.0.0.1', privateIp: '127.0.0.1', webSocket: 'ws://127.0.0.1:1', status: 'AVAILABLE' });
    await vi.waitFor(() => expect(socket.sent.map((m) => m.type)).toContain('registered'));
    // A routine ping, then the worker starts draining and says BUSY at once.
    socket.in({ type: 'ping', status: 'AVAILABLE' });
    socket.in({ type: 'ping', status: 'BUSY' });
    // The second ping may not overtake the first: its check starts only once the first is done.
    const overtook = await Promise.race([mem.secondCheck.then(() => true), new Promise<boolean>((r) => setImmediate(() => setImmediate(() => r(false))))]);
    expect(overtook).toBe(false);
    mem.release();
    await mem.secondCheck;
    await new Promise((r) => setImmediate(r));
    expect(mem.statuses).toEqual(['AVAILABLE', 'BUSY']);
    expect(mem.status()).toBe('BUSY');
    expect(socket.sent.filter((m) => m.type === 'pong')).toHaveLength(2);
  });
});

describe('worker hub: a socket closed while it registers', () => {
  it('leaves no registered worker behind (the row is written DISCONNECTED again)', async () => {
    let status = 'NONE';
    let release!: () => void;
    const slowWrite = new Promise<void>((r) => (release = r));
    let registered!: () => void;
    const wrote = new Promise<void>((r) => (registered = r));
    let writing!: () => void;
    const started = new Promise<void>((r) => (writing = r));
    const repo = {
      async register(values: { status: string }) {
        writing();
        await slowWrite;
        status = values.status;
        registered();
        return { id: 7, vpsId: 'w1', name: 'w1' } as WorkerRow;
      },
      async disconnect() {
        status = 'DISCONNECTED';
      },
      async isLive() {
        return false;
      },
    } as unknown as WorkersRepository;
    const hub = createWorkerHub({ repo, log: quietLog });
    const socket = new FakeSocket();
    hub.accept(socket as unknown as WebSocket, '127.0.0.1', { kind: 'credential', credentialId: 1, vpsId: 'w1' });
    socket.in({ type: 'register', vpsId: 'w1', name: 'w1', address: '127.0.0.1', privateIp: '127.0.0.1', webSocket: 'ws://127.0.0.1:1', status: 'AVAILABLE' });
    // The worker goes away while its row is being written.
    await started;
    socket.close();
    socket.emit('close');
    release();
    await wrote;
    await vi.waitFor(() => expect(status).toBe('DISCONNECTED'));
    expect(hub.connectedCount()).toBe(0);
    expect(socket.sent.map((m) => m.type)).not.toContain('registered');
  });
});
