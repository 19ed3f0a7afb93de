// The web client's figures, in headless Chromium against the seeded server (the reader is one of an
// organization of 1,000 people and 200 channels, reading a 100,000-message channel): navigation to the
// first narrow's messages painted, switching topics, scrolling back through 5,000 messages, and the
// page's JS heap after live traffic. Each beside a floor measured in the same run: the same browser
// loading a static page of the same messages' HTML from a bare Node server.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import type { Seeded } from './seed.js';

const CHROMIUM = process.env.CONFAB_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

type Line = (name: string, value: string, floor?: string, ratio?: number) => void;
type Call = (method: string, path: string, params?: Record<string, string>) => Promise<{ status: number; body: any }>;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function sessionPage(browser: Browser, base: string, email: string, apiKey: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(`localStorage.setItem('confab.session', ${JSON.stringify(JSON.stringify({ email, apiKey }))})`);
  return context.newPage();
}

/** Milliseconds from navigation start until the first message element exists. */
async function firstPaint(page: Page, url: string): Promise<number> {
  await page.goto('about:blank');
  await page.goto(url);
  await page.waitForSelector('article', { timeout: 30_000 });
  return (await page.evaluate('performance.now()')) as number;
}

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  await cdp.detach();
  return usedSize / 1024 / 1024;
}

export async function webFigures(base: string, seeded: Seeded, call: Call, senderCall: Call, line: Line): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    line('web client', 'skipped', `no Chromium at ${CHROMIUM}`);
    return;
  }
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  const floorServer = createServer();
  try {
    const channelId = seeded.historyChannelId;
    const topicUrl = (t: number) => `${base}/#narrow/channel/${channelId}-${seeded.historyChannelName}/topic/topic.20${t}`;

    // The floor page: the same 120 messages' HTML, static, from a bare Node server.
    const res = await call('GET', '/messages', {
      anchor: 'newest',
      num_before: '120',
      num_after: '0',
      narrow: JSON.stringify([{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'topic 0' }]),
    });
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head><body>${res.body.messages
      .map((m: any) => `<article><b>${m.sender_full_name}</b><div>${m.content}</div></article>`)
      .join('')}</body></html>`;
    floorServer.on('request', (_req, reply) => reply.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html));
    await new Promise<void>((r) => floorServer.listen(0, '127.0.0.1', r));
    const floorUrl = `http://127.0.0.1:${(floorServer.address() as AddressInfo).port}/`;

    const page = await sessionPage(browser, base, seeded.reader.email, seeded.reader.api_key);
    const floorPage = await browser.newPage();
    const runs: number[] = [];
    const floorRuns: number[] = [];
    for (let i = 0; i < 5; i++) {
      runs.push(await firstPaint(page, topicUrl(i)));
      floorRuns.push(await firstPaint(floorPage, floorUrl));
    }
    line('web: navigation to first narrow painted p50 (ms)', median(runs).toFixed(0), `${median(floorRuns).toFixed(0)} ms static page of the same messages`, median(runs) / median(floorRuns));

    // Switching topics: from setting the hash to the new topic's messages on screen.
    const switches: number[] = [];
    for (let i = 10; i < 30; i++) {
      const ms = (await page.evaluate(`new Promise((resolve) => {
        const t0 = performance.now();
        location.hash = ${JSON.stringify(new URL(topicUrl(i)).hash)};
        const check = () => {
          const h = document.querySelector('.narrow-bar h1');
          if (h && h.textContent.endsWith('topic ${i}') && document.querySelector('article')) resolve(performance.now() - t0);
          else requestAnimationFrame(check);
        };
        check();
      })`)) as number;
      switches.push(ms);
    }
    const fetches = (await page.evaluate(`performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/v1/messages?')).map((e) => e.duration)`)) as number[];
    line('web: switching topics p50 (ms)', median(switches).toFixed(1), `${switches.length} switches; GET /messages itself p50 ${median(fetches).toFixed(1)} ms`);

    // Scrolling back through 5,000 messages of the channel: the longest main-thread task. The feed
    // is virtualized, so the reader pages up (a screen every 50 ms) and every message passes
    // through the page on the way; jumping to scrollTop = 0 would skip most of them.
    await page.goto(`${base}/#narrow/channel/${channelId}-${seeded.historyChannelName}`);
    await page.waitForSelector('article');
    const scroll = (await page.evaluate(`new Promise((resolve) => {
      let longest = 0;
      const tasks = [];
      new PerformanceObserver((list) => { for (const e of list.getEntries()) { longest = Math.max(longest, e.duration); tasks.push(Math.round(e.duration)); } }).observe({ type: 'longtask' });
      const feed = document.querySelector('.feed');
      const seen = new Set();
      const t0 = performance.now();
      const step = () => {
        for (const a of document.querySelectorAll('article')) seen.add(a.dataset.messageId);
        if (seen.size >= 5000 || performance.now() - t0 > 120000) return resolve({ longest, seen: seen.size, ms: performance.now() - t0, tasks: tasks.sort((a, b) => b - a).slice(0, 8).join(',') });
        feed.scrollTop -= feed.clientHeight;
        setTimeout(step, 50);
      };
      step();
    })`)) as { longest: number; seen: number; ms: number; tasks: string };
    // The Long Tasks API reports only tasks of 50 ms or more: none reported is "under 50", not 0.
    const longest = scroll.tasks ? scroll.longest.toFixed(0) : '< 50';
    const tasks = scroll.tasks ? `longest tasks ${scroll.tasks} ms` : 'no task of 50 ms or more (the Long Tasks API reports none shorter)';
    line(`web: scroll back through ${scroll.seen} messages, longest task (ms)`, longest, `${(scroll.ms / 1000).toFixed(1)} s in all; ${tasks}`);

    // Live traffic: 20 messages a second into the open topic, then the JS heap.
    const trafficSeconds = Number(process.env.CONFAB_BENCH_WEB_TRAFFIC_SECONDS ?? 600);
    await page.goto(topicUrl(0));
    await page.waitForSelector('article');
    const before = await heapMb(page);
    const end = Date.now() + trafficSeconds * 1000;
    let sent = 0;
    while (Date.now() < end) {
      const tick = Date.now();
      await Promise.all(
        Array.from({ length: 20 }, () =>
          senderCall('POST', '/messages', { type: 'stream', to: String(channelId), topic: 'topic 0', content: `live message ${sent++}` }),
        ),
      );
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - tick))));
    }
    await page.waitForTimeout(1000);
    const after = await heapMb(page);
    await floorPage.goto(floorUrl);
    const floorHeap = await heapMb(floorPage);
    line(`web: JS heap after ${trafficSeconds} s at 20 msgs/s (MB)`, after.toFixed(1), `${floorHeap.toFixed(1)} MB static page; ${before.toFixed(1)} MB before the traffic; ${sent} messages`, after / floorHeap);
  } finally {
    floorServer.close();
    await browser.close();
  }
}
