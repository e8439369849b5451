import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../db/client.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplatePath: string;
    postgresTemplate: string;
  }
}

/**
 * Migrates once per run: a PGlite data dir dumped to a tarball that each test file loads, or a
 * PostgreSQL template database that each test file copies with CREATE DATABASE … TEMPLATE.
 */
export default async function setup(project: TestProject) {
  const driver = project.config.env?.TEST_DB_DRIVER ?? process.env.TEST_DB_DRIVER;
  const tag = `${process.pid}_${Date.now().toString(36)}`;
  if (driver === 'postgres') {
    const url = process.env.TEST_DATABASE_URL!;
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const template = `persona_tpl_${tag}`;
    await admin.query(`create database ${template}`);
    const db = await openDatabase({ databaseUrl: withDatabase(url, template), poolSize: 1 });
    await db.close();
    project.provide('postgresTemplate', template);
    project.provide('pgliteTemplatePath', '');
    return async () => {
      const { rows } = await admin.query<{ datname: string }>(
        `select datname from pg_database where datname like $1`,
        [`persona_%${tag}%`],
      );
      for (const row of rows) await admin.query(`drop database if exists ${row.datname} with (force)`);
      await admin.end();
    };
  }
  const db = await openDatabase({});
  const client = (db.db as unknown as { $client: PGlite }).$client;
  const blob = await client.dumpDataDir('none');
  const file = path.join(os.tmpdir(), `persona-pglite-template-${tag}.tar`);
  await fs.writeFile(file, Buffer.from(await blob.arrayBuffer()));
  await db.close();
  project.provide('pgliteTemplatePath', file);
  project.provide('postgresTemplate', '');
  return async () => {
    await fs.rm(file, { force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
