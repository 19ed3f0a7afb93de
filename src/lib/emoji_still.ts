// The still image of an animated custom emoji: Zulip keeps its first frame as a PNG beside the
// animation (RealmEmoji.STILL_PATH_ID_TEMPLATE, .../emoji/images/still/<name>.png) and names it in
// still_url. An APNG loses its animation chunks (its default image is the first frame), a GIF's
// first frame is decoded (omggif) and written as a PNG (pngjs), and an animated WebP's first frame
// is kept as a still WebP (there is no WebP codec here: its chunks are moved, not decoded).
import omggif from 'omggif';
import { PNG } from 'pngjs';

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

/** Past this many pixels no still is made (a GIF's header may claim 65,535 × 65,535 in a few bytes). */
const MAX_STILL_PIXELS = 4096 * 4096;

/** A GIF's first frame, drawn on its canvas (transparent where the frame leaves it), as a PNG. */
function gifStill(data: Buffer): Buffer {
  const gif = new omggif.GifReader(data);
  if (gif.numFrames() === 0 || gif.width * gif.height > MAX_STILL_PIXELS) throw new Error('no still for this GIF');
  const png = new PNG({ width: gif.width, height: gif.height });
  gif.decodeAndBlitFrameRGBA(0, png.data);
  return PNG.sync.write(png);
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
