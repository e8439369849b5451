import { parseArgs } from 'node:util';
import { startFakeS3 } from './fake-s3.js';

/**
 * The fake S3 (test/fake-s3.ts) as its own process, for tests that start several processes
 * (portal instances on "different machines" sharing one bucket):
 *
 *   node --import tsx packages/server/src/test/fake-s3-main.ts [--port 0] [--host 127.0.0.1]
 *     [--access-key AKIAFAKES3] [--secret-key fake-s3-secret] [--region us-east-1] [--bucket persona]
 *
 * Prints one JSON line once it listens — {"url": "http://127.0.0.1:PORT", "storageUrl": "http://KEY:SECRET@…/bucket?region=…"}
 * — and stops on SIGTERM or SIGINT (exit code 0). Objects live in its memory only.
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    'access-key': { type: 'string', default: 'AKIAFAKES3' },
    'secret-key': { type: 'string', default: 'fake-s3-secret' },
    region: { type: 'string', default: 'us-east-1' },
    bucket: { type: 'string', default: 'persona' },
  },
});

const s3 = await startFakeS3({
  port: Number(values.port),
  host: values.host,
  accessKey: values['access-key'],
  secretKey: values['secret-key'],
  region: values.region,
  bucket: values.bucket,
});
process.stdout.write(`${JSON.stringify({ url: s3.url, storageUrl: s3.storageUrl })}\n`);

const stop = () => {
  void s3.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
