import { describe, expect, it } from 'vitest';
import { parseS3Url, presignGetUrl, sha256Hex, signS3Request, type S3Location } from './s3.js';

/** The examples of the S3 documentation ("Signature Calculations for the Authorization Header", "Authenticating Requests: Using Query Parameters"). */
const example: S3Location = {
  endpoint: 'https://examplebucket.s3.amazonaws.com',
  bucket: 'examplebucket',
  region: 'us-east-1',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
const at = new Date('2013-05-24T00:00:00Z');
const credential = 'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request';

describe('AWS Signature Version 4', () => {
  it('signs a GET Object with a Range header as the documentation does', () => {
    const headers = signS3Request('GET', new URL('https://examplebucket.s3.amazonaws.com/test.txt'), example, at, { headers: { range: 'bytes=0-9' }, payloadHash: sha256Hex('') });
    expect(headers.authorization).toBe(`${credential}, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41`);
    expect(headers).toMatchObject({ 'x-amz-date': '20130524T000000Z', 'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', range: 'bytes=0-9' });
    expect(headers).not.toHaveProperty('host');
  });

  it('signs a PUT Object with its payload hash and an encoded key as the documentation does', () => {
    const body = Buffer.from('Welcome to Amazon S3.');
    const headers = signS3Request('PUT', new URL('https://examplebucket.s3.amazonaws.com/test$file.text'), example, at, {
      headers: { date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY' },
      payloadHash: sha256Hex(body),
    });
    expect(headers['x-amz-content-sha256']).toBe('44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
    expect(headers.authorization).toBe(`${credential}, SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd`);
  });

  it('makes a presigned GET URL as the documentation does', () => {
    const url = presignGetUrl(new URL('https://examplebucket.s3.amazonaws.com/test.txt'), example, at, 86400);
    expect(url).toBe(
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });
});

describe('STORAGE_URL', () => {
  it('names a bucket with s3: (https unless insecure=1) or http(s):, with its credentials and region', () => {
    expect(parseS3Url(undefined)).toBeNull();
    expect(parseS3Url('file:///var/data')).toBeNull();
    expect(parseS3Url('s3://AK:se%2Fcret@minio.internal:9000/media?region=eu-west-1&insecure=1')).toEqual({
      endpoint: 'http://minio.internal:9000',
      bucket: 'media',
      region: 'eu-west-1',
      accessKeyId: 'AK',
      secretAccessKey: 'se/cret',
    });
    expect(parseS3Url('s3://AK:S@s3.amazonaws.com/media/')).toMatchObject({ endpoint: 'https://s3.amazonaws.com', bucket: 'media', region: 'us-east-1' });
    expect(parseS3Url('https://AK:S@storage.example.com/b')).toMatchObject({ endpoint: 'https://storage.example.com', bucket: 'b' });
    expect(() => parseS3Url('s3://storage.example.com/b')).toThrow('STORAGE_URL must look like');
    expect(() => parseS3Url('s3://AK:S@storage.example.com/')).toThrow('STORAGE_URL must look like');
  });
});
