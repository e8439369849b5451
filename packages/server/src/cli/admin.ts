import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { AppError } from '../lib/app-error.js';
import { createUsersService } from '../features/users/service.js';
import { sendRevocation, type Revocation } from '../plugins/revocations.js';
import { issueWorkerCredential, presentCredential } from '../features/workers/credentials.js';
import { createWorkersRepository } from '../features/workers/repository.js';

const USAGE = `Persona Studio operator commands (npm run admin -- <command>)

  list [--search TEXT]                       list users
  create-user --email E [--password P] [--admin] [--first-name F] [--last-name L]
                                             create an active user (password generated when omitted)
  reset-password EMAIL [--password P]        set a new password (generated when omitted); signs the user out
  disable EMAIL                              disable a user and end their sessions
  enable EMAIL                               enable a user
  worker-credential issue VPS_ID             issue a worker's own credential, bound to its vpsId (shown once);
                                             start that worker with WORKER_CREDENTIAL=<it> (ADR 086)
  worker-credential revoke ID                revoke one (a worker using it is disconnected at its next ping)
  worker-credentials                         list the credentials (never the credentials themselves)

Uses the same configuration as the server (DATA_DIR or DATABASE_URL). With the embedded
database (PGlite) stop the server first: only one process can open it.`;

function isRunning(pidFile: string): boolean {
  try {
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    process.kill(pid, 0);
    return pid !== process.pid;
  } catch {
    return false;
  }
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      admin: { type: 'boolean', default: false },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      search: { type: 'string', default: '' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, arg] = positionals;
  if (!command || values.help) {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  if (!config.databaseUrl && isRunning(path.join(config.dataDir, 'server.pid'))) {
    throw new Error(`The server is running on ${config.dataDir}; stop it first (the embedded database allows one process).`);
  }
  const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: path.join(config.dataDir, 'pglite') });
  // Running server instances keep sessions in memory for a few seconds: tell them what ended.
  const redis = config.redisUrl ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 2 }) : undefined;
  const revoked = async (revocation: Revocation) => {
    if (redis) await sendRevocation(redis, revocation);
  };
  const users = createUsersService(database.db, () => new Date(), revoked);
  const generated = () => randomBytes(12).toString('base64url');
  try {
    switch (command) {
      case 'list': {
        const { rows, total } = await users.search(values.search ?? '', 1000, 0);
        console.log(`${total} user(s)`);
        for (const u of rows) {
          console.log(`${String(u.id).padEnd(6)} ${u.email.padEnd(36)} ${u.userType.padEnd(6)} ${u.status.padEnd(10)} ${u.firstName} ${u.lastName}`);
        }
        break;
      }
      case 'create-user': {
        const email = values.email ?? arg;
        if (!email) throw new Error('create-user needs --email');
        const password = values.password ?? generated();
        const user = await users.createUser({
          email,
          password,
          firstName: values['first-name'],
          lastName: values['last-name'],
          userType: values.admin ? 'ADMIN' : 'USER',
        });
        console.log(`Created ${user.userType} ${user.email} (id ${user.id})${values.password ? '' : ` with password ${password}`}`);
        break;
      }
      case 'reset-password': {
        const email = arg ?? values.email;
        if (!email) throw new Error('reset-password needs an e-mail');
        const password = values.password ?? generated();
        await users.resetPassword(email, password);
        console.log(`Password of ${email} reset${values.password ? '' : ` to ${password}`}; their sessions were ended.`);
        break;
      }
      case 'disable':
      case 'enable': {
        const email = arg ?? values.email;
        if (!email) throw new Error(`${command} needs an e-mail`);
        await users.setStatus(email, command === 'disable' ? 'DISABLED' : 'ACTIVE');
        console.log(`${email} ${command}d.`);
        break;
      }
      case 'worker-credential': {
        const workers = createWorkersRepository(database.db);
        const target = positionals[2];
        if (arg === 'issue' && target) {
          const { credential, row } = await issueWorkerCredential(workers, target, 'admin', new Date());
          console.log(`Credential ${row.id} for worker ${row.vpsId} (shown once):\n${credential}\nStart the worker with WORKER_CREDENTIAL=${credential} and --name ${row.vpsId}`);
        } else if (arg === 'revoke' && target && /^\d+$/.test(target)) {
          const revoked = await workers.revokeCredentials({ id: Number(target) }, new Date());
          console.log(revoked.length ? `Credential ${target} revoked.` : `No credential ${target} that is not revoked already.`);
        } else {
          throw new Error('worker-credential needs: issue VPS_ID, or revoke ID');
        }
        break;
      }
      case 'worker-credentials': {
        const rows = (await createWorkersRepository(database.db).listCredentials()).map(presentCredential);
        console.log(`${rows.length} credential(s)`);
        for (const c of rows) console.log(`${String(c.id).padEnd(6)} ${c.vpsId.padEnd(30)} ${c.issuedBy.padEnd(10)} created ${c.created}${c.revoked ? `  revoked ${c.revoked}` : ''}`);
        break;
      }
      default:
        throw new Error(`Unknown command "${command}".\n\n${USAGE}`);
    }
  } finally {
    await database.close();
    await redis?.quit();
  }
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) console.error(err.message);
  else if (err instanceof AppError) console.error(err.errors.join('\n'));
  else if (err && typeof err === 'object' && 'issues' in err) console.error((err as { issues: { message: string }[] }).issues.map((i) => i.message).join('\n'));
  else console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
