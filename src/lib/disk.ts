import { statfs } from 'node:fs/promises';
import path from 'node:path';

/** Free bytes available to this process on the file system holding `dir` (or its nearest existing parent). */
export async function diskFreeBytes(dir: string): Promise<number | null> {
  let d = path.resolve(dir);
  for (;;) {
    try {
      const s = await statfs(d);
      return s.bavail * s.bsize;
    } catch {
      const up = path.dirname(d);
      if (up === d) return null;
      d = up;
    }
  }
}
