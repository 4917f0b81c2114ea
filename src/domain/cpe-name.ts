// CPE 2.3 formatted strings (cpe:2.3:part:vendor:product:version:update:...) read into the fields product matching
// compares: part, vendor and product tokens, version and update. Pure.

export interface CpeName {
  part: string;
  vendor: string;
  product: string;
  version: string | null;
  /** The CPE update component (sp1, update_3), null for * and -. */
  update: string | null;
}

/** A CPE 2.3 attribute value, or null for ANY (`*`), NA (`-`) or nothing. */
function cpeValue(x: string | undefined): string | null {
  return x === undefined || x === '*' || x === '-' || x === '' ? null : x;
}

/** The fields of a CPE 2.3 formatted string (cpe:2.3:part:vendor:product:version:...), or null. */
export function parseCpe(cpe: string): CpeName | null {
  const f: string[] = [];
  let cur = '';
  for (let i = 0; i < cpe.length; i++) {
    const c = cpe[i];
    if (c === '\\' && i + 1 < cpe.length) {
      cur += cpe[i + 1];
      i++;
      continue;
    }
    if (c === ':') {
      f.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  f.push(cur);
  if (f.length < 6 || f[0] !== 'cpe' || f[1] !== '2.3' || !/^[aho]$/.test(f[2]) || !f[3] || !f[4]) return null;
  return {
    part: f[2],
    vendor: f[3].toLowerCase(),
    product: f[4].toLowerCase(),
    version: cpeValue(f[5]),
    update: cpeValue(f[6]),
  };
}

/** A CPE version with its update component, as one spelling the comparator reads ("2.1" + "sp2" → "2.1 sp2"). */
export function cpeVersion(c: CpeName): string | null {
  if (!c.version) return null;
  return c.update ? `${c.version} ${c.update.replace(/_/g, ' ')}` : c.version;
}
