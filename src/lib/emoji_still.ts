// The still image of an animated custom emoji: Zulip keeps its first frame as a PNG beside the
// animation (RealmEmoji.STILL_PATH_ID_TEMPLATE, .../emoji/images/still/<name>.png) and names it in
// still_url. Confab has no image library, so each animated format is handled by hand: an APNG
// loses its animation chunks (its default image is the first frame), a GIF's first frame is
// decoded and written as a PNG, and an animated WebP's first frame is kept as a still WebP.
import { crc32, deflateSync } from 'node:zlib';

/** The first frame of an animated PNG, GIF or WebP; undefined when the file cannot be read. */
export function stillImage(data: Buffer): Buffer | undefined {
  try {
    if (data.subarray(1, 4).toString('latin1') === 'PNG') return apngStill(data);
    if (data.subarray(0, 4).toString('latin1') === 'GIF8') return gifStill(data);
    if (data.subarray(0, 4).toString('latin1') === 'RIFF') return webpStill(data);
  } catch {
    // A malformed animation gets no still image, as an unreadable one would in Zulip.
  }
  return undefined;
}

/** An APNG without acTL, fcTL and fdAT is the plain PNG of its default image. */
function apngStill(data: Buffer): Buffer {
  const parts = [data.subarray(0, 8)];
  for (let at = 8; at + 12 <= data.length; ) {
    const length = data.readUInt32BE(at);
    const type = data.subarray(at + 4, at + 8).toString('latin1');
    const end = at + 12 + length;
    if (end > data.length) throw new Error('truncated PNG');
    if (type !== 'acTL' && type !== 'fcTL' && type !== 'fdAT') parts.push(data.subarray(at, end));
    at = end;
  }
  return Buffer.concat(parts);
}

function pngChunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])) >>> 0, 0);
  return Buffer.concat([head, body, crc]);
}

/** An RGBA image as a PNG (8-bit, no filtering). */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A GIF's data sub-blocks from `at`, joined; returns them and where the block ends. */
function subBlocks(data: Buffer, at: number): [Buffer, number] {
  const parts: Buffer[] = [];
  while (data[at] !== 0) {
    const size = data[at]!;
    if (at + 1 + size > data.length) throw new Error('truncated GIF');
    parts.push(data.subarray(at + 1, at + 1 + size));
    at += 1 + size;
  }
  return [Buffer.concat(parts), at + 1];
}

/** GIF's variable-width LZW: the color indices of one image, at most `count` of them. */
function lzwDecode(minSize: number, bytes: Buffer, count: number): Uint8Array {
  const out = new Uint8Array(count);
  const clear = 1 << minSize;
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const stack = new Uint8Array(4097);
  for (let i = 0; i < clear; i++) {
    suffix[i] = i;
    first[i] = i;
  }
  let size = minSize + 1;
  let next = clear + 2;
  let prev = -1;
  let bits = 0;
  let acc = 0;
  let n = 0;
  for (let i = 0; n < count; ) {
    while (bits < size && i < bytes.length) {
      acc |= bytes[i++]! << bits;
      bits += 8;
    }
    if (bits < size) break;
    const code = acc & ((1 << size) - 1);
    acc >>>= size;
    bits -= size;
    if (code === clear) {
      size = minSize + 1;
      next = clear + 2;
      prev = -1;
      continue;
    }
    if (code === clear + 1) break;
    let c = code;
    let depth = 0;
    if (prev !== -1 && code >= next) {
      // The code being defined now: the previous string and its own first index.
      stack[depth++] = first[prev]!;
      c = prev;
    } else if (code >= next) throw new Error('bad LZW code');
    while (c >= clear) {
      stack[depth++] = suffix[c]!;
      c = prefix[c]!;
    }
    stack[depth++] = c;
    if (prev !== -1 && next < 4096) {
      prefix[next] = prev;
      suffix[next] = c;
      first[next] = first[prev]!;
      next++;
      if (next === 1 << size && size < 12) size++;
    }
    while (depth > 0 && n < count) out[n++] = stack[--depth]!;
    prev = code;
  }
  return out;
}

/** The rows of an interlaced GIF image in the order they are stored. */
function interlacedRows(height: number): number[] {
  const rows: number[] = [];
  for (const [start, step] of [[0, 8], [4, 8], [2, 4], [1, 2]] as const) for (let y = start; y < height; y += step) rows.push(y);
  return rows;
}

function gifStill(data: Buffer): Buffer {
  const width = data.readUInt16LE(6);
  const height = data.readUInt16LE(8);
  const flags = data[10]!;
  let at = 13;
  let global: Buffer | undefined;
  if (flags & 0x80) {
    global = data.subarray(at, at + 3 * (1 << ((flags & 7) + 1)));
    at += global.length;
  }
  let transparent = -1;
  while (at < data.length) {
    const kind = data[at]!;
    if (kind === 0x21) {
      const label = data[at + 1]!;
      if (label === 0xf9 && data[at + 3]! & 1) transparent = data[at + 6]!;
      at = subBlocks(data, at + 2)[1];
    } else if (kind === 0x2c) {
      const [left, top, w, h, f] = [data.readUInt16LE(at + 1), data.readUInt16LE(at + 3), data.readUInt16LE(at + 5), data.readUInt16LE(at + 7), data[at + 9]!];
      at += 10;
      let palette = global;
      if (f & 0x80) {
        palette = data.subarray(at, at + 3 * (1 << ((f & 7) + 1)));
        at += palette.length;
      }
      if (!palette) throw new Error('GIF without colors');
      const [bytes] = subBlocks(data, at + 1);
      const indices = lzwDecode(data[at]!, bytes, w * h);
      const rows = f & 0x40 ? interlacedRows(h) : Array.from({ length: h }, (_, y) => y);
      const rgba = new Uint8Array(width * height * 4);
      rows.forEach((y, stored) => {
        for (let x = 0; x < w; x++) {
          const index = indices[stored * w + x]!;
          const [cx, cy] = [left + x, top + y];
          if (index === transparent || cx >= width || cy >= height || index * 3 + 2 >= palette!.length) continue;
          const o = (cy * width + cx) * 4;
          rgba.set([palette![index * 3]!, palette![index * 3 + 1]!, palette![index * 3 + 2]!, 255], o);
        }
      });
      return encodePng(width, height, rgba);
    } else break;
  }
  throw new Error('GIF without an image');
}

function riffChunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** An animated WebP's first frame (its ANMF's image chunks) as a still WebP of the frame's size. */
function webpStill(data: Buffer): Buffer {
  for (let at = 12; at + 8 <= data.length; ) {
    const type = data.subarray(at, at + 4).toString('latin1');
    const size = data.readUInt32LE(at + 4);
    if (type === 'ANMF') {
      const frame = data.subarray(at + 8, at + 8 + size);
      const w = frame.readUIntLE(6, 3) + 1;
      const h = frame.readUIntLE(9, 3) + 1;
      const chunks = frame.subarray(16);
      const hasAlpha = chunks.includes('ALPH') || chunks.includes('VP8L');
      const vp8x = Buffer.alloc(10);
      vp8x[0] = hasAlpha ? 0x10 : 0;
      vp8x.writeUIntLE(w - 1, 4, 3);
      vp8x.writeUIntLE(h - 1, 7, 3);
      const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), riffChunk('VP8X', vp8x), chunks]);
      const head = Buffer.alloc(8);
      head.write('RIFF', 0, 'latin1');
      head.writeUInt32LE(body.length, 4);
      return Buffer.concat([head, body]);
    }
    at += 8 + size + (size % 2);
  }
  throw new Error('WebP without frames');
}
