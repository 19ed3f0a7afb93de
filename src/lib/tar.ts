// A minimal writer of POSIX ustar archives (regular files only), enough for data exports.
export interface TarEntry {
  /** A relative path of printable ASCII, at most 100 bytes (no prefix field is used). */
  name: string;
  data: Buffer;
  /** Modification time, UNIX seconds. */
  mtime: number;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  // width - 1 digits, then a NUL terminator.
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function header(entry: TarEntry): Buffer {
  const name = Buffer.from(entry.name, 'ascii');
  if (name.length === 0 || name.length > 100 || !/^[\x21-\x7e]+$/.test(entry.name)) throw new Error(`unsupported tar entry name ${JSON.stringify(entry.name)}`);
  const h = Buffer.alloc(BLOCK, 0);
  name.copy(h, 0);
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(entry.data.length, 12), 124, 'ascii');
  h.write(octal(Math.max(0, Math.floor(entry.mtime)), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii'); // the checksum counts its own field as spaces
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return h;
}

export function tarArchive(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(header(e), e.data);
    const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad, 0));
  }
  parts.push(Buffer.alloc(BLOCK * 2, 0)); // end of archive
  return Buffer.concat(parts);
}
