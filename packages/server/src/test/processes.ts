import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The production topology's processes, started the way an operator starts them: the built portal
 * (`npm start` runs packages/server/dist/main.js) and the built worker (`npm run worker` runs
 * packages/worker/dist/main.js), each its own process so that signals reach them.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const serverMain = path.resolve(here, '../../dist/main.js');
const workerMain = path.resolve(here, '../../../worker/dist/main.js');

export function assertBuilt() {
  for (const file of [serverMain, workerMain]) if (!fs.existsSync(file)) throw new Error(`${file} is missing: run \`npm run build\` first (npm test does)`);
}

/** A port the OS says is free now (a random pick could meet another run's server on a shared machine). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });

export interface Proc {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Resolves when the output matches (rejects if the process exits first or after ms). */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
}

function track(name: string, child: ChildProcess): Proc {
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    name,
    child,
    output: () => out,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    waitFor(pattern, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (!m) return;
          done();
          resolve(m);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${name}: ${pattern} not seen in ${ms} ms. Output:\n${out.slice(-3000)}`));
        }, ms);
        const onExit = () => {
          done();
          reject(new Error(`${name} exited before ${pattern}. Output:\n${out.slice(-3000)}`));
        };
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
    },
  };
}

export function startPortal(name: string, env: Record<string, string>): Proc {
  return track(name, spawn(process.execPath, [serverMain], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

export function startWorkerProcess(name: string, servers: string[], env: Record<string, string>, extraArgs: string[] = []): Proc {
  const args = [workerMain, '--server', servers.join(','), '--name', name, '--listen', '127.0.0.1:0', ...extraArgs];
  return track(name, spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
}
