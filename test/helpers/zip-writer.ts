// A tiny zip writer for tests (no dependency): stored or deflated entries (zlib.deflateRawSync), local headers,
// central directory and end record (APPNOTE 6.3.x, no zip64, no data descriptors). Enough for yauzl to read.
import { deflateRawSync, crc32 } from 'node:zlib';

export interface ZipEntryInput {
  name: string;
  data: Buffer | string;
  /** Deflate the data (default) or store it. */
  method?: 'deflate' | 'store';
}

export function zipBuffer(entries: readonly ZipEntryInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  // 2024-10-24 01:00:00 in DOS format.
  const dosTime = 1 << 11;
  const dosDate = ((2024 - 1980) << 9) | (10 << 5) | 24;
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : e.data;
    const method = e.method === 'store' ? 0 : 8;
    const body = method === 8 ? deflateRawSync(data) : data;
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    // The fields both headers share, in the same order: flags (UTF-8 names), method, time, date, CRC, sizes, name length.
    const shared = (b: Buffer, at: number) => {
      b.writeUInt16LE(0x0800, at);
      b.writeUInt16LE(method, at + 2);
      b.writeUInt16LE(dosTime, at + 4);
      b.writeUInt16LE(dosDate, at + 6);
      b.writeUInt32LE(crc, at + 8);
      b.writeUInt32LE(body.length, at + 12);
      b.writeUInt32LE(data.length, at + 16);
      b.writeUInt16LE(name.length, at + 20);
    };
    shared(local, 6);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    shared(central, 8);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}
