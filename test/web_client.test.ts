// The browser client's files as the server hands them out: the page (never cached, strict CSP),
// hashed assets (immutable, precompressed), and nothing outside the build folder.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { startTestServer, type TestServer } from './helpers.js';

let srv: TestServer;
after(() => srv?.close());

test('GET / serves the web client with a strict CSP and no caching; assets are immutable and compressed', async () => {
  srv = await startTestServer({ camo: { url: 'https://camo.example.org/', key: 'k' } });
  const page = await fetch(`${srv.url}/`, { headers: { 'Accept-Encoding': 'identity' } });
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  const csp = page.headers.get('content-security-policy') ?? '';
  for (const part of ["script-src 'self'", "object-src 'none'", "default-src 'self'", 'https://camo.example.org']) assert.ok(csp.includes(part), `${part} in ${csp}`);
  assert.doesNotMatch(csp, /unsafe-eval/);
  assert.doesNotMatch(csp.split(';').find((d) => d.trim().startsWith('script-src')) ?? '', /unsafe-inline/);
  const html = await page.text();
  assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)/, 'no inline script');
  const js = /src="\/static\/([^"]+\.js)"/.exec(html)![1]!;
  const css = /href="\/static\/([^"]+\.css)"/.exec(html)![1]!;

  const plain = await fetch(`${srv.url}/static/${js}`, { headers: { 'Accept-Encoding': 'identity' } });
  assert.equal(plain.status, 200);
  assert.match(plain.headers.get('content-type') ?? '', /javascript/);
  assert.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  const body = Buffer.from(await plain.arrayBuffer());

  // Node's fetch decodes for us; read the raw bytes through the compressed variants instead.
  const { request } = await import('node:http');
  const raw = (path: string, enc: string) =>
    new Promise<{ enc: string | undefined; data: Buffer }>((resolve, reject) => {
      request(`${srv.url}${path}`, { headers: { 'Accept-Encoding': enc } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ enc: res.headers['content-encoding'], data: Buffer.concat(parts) }));
      })
        .on('error', reject)
        .end();
    });
  const br = await raw(`/static/${js}`, 'gzip, deflate, br');
  assert.equal(br.enc, 'br');
  assert.deepEqual(brotliDecompressSync(br.data), body);
  const gz = await raw(`/static/${css}`, 'gzip');
  assert.equal(gz.enc, 'gzip');
  assert.match(gunzipSync(gz.data).toString(), /--bg/);

  for (const bad of ['nope-123.js', '..%2Fbuild.json', `${js}.gz`, '%2E%2E%2Fweb%2Findex.html']) {
    const res = await fetch(`${srv.url}/static/${bad}`);
    assert.equal(res.status, 404, bad);
  }
});
