// A CSAF 2.0 product tree as leaves: each product id with the vendor, product name and version (or version range)
// its branches state.
import { arr, record, str } from './json.ts';

export interface Leaf {
  id: string;
  vendor: string | null;
  product: string | null; // product_name branch
  version: string | null; // product_version branch name (exact version)
  range: string | null; // product_version_range branch name
  full: string;
}

function walk(
  branches: unknown,
  ctx: { vendor: string | null; product: string | null },
  out: Map<string, Leaf>,
  depth = 0,
): void {
  if (depth > 12) return;
  for (const b of arr(branches).map(record)) {
    const next = { ...ctx };
    const name = str(b.name).trim() || null;
    if (b.category === 'vendor') next.vendor = name;
    if (b.category === 'product_name' || b.category === 'product_family') next.product = name;
    const product = record(b.product);
    if (typeof product.product_id === 'string') {
      out.set(product.product_id, {
        id: product.product_id,
        vendor: next.vendor,
        product: next.product,
        version: b.category === 'product_version' ? name : null,
        range: b.category === 'product_version_range' ? name : null,
        full: str(product.name),
      });
    }
    walk(b.branches, next, out, depth + 1);
  }
}

/** The leaves of a `product_tree`: its branches, then its `full_product_names` not already named by a branch. */
export function productLeaves(tree: Record<string, unknown>): Map<string, Leaf> {
  const leaves = new Map<string, Leaf>();
  walk(tree.branches, { vendor: null, product: null }, leaves);
  for (const fp of arr(tree.full_product_names).map(record)) {
    if (typeof fp.product_id === 'string' && !leaves.has(fp.product_id)) {
      leaves.set(fp.product_id, {
        id: fp.product_id,
        vendor: null,
        product: str(fp.name),
        version: null,
        range: null,
        full: str(fp.name),
      });
    }
  }
  return leaves;
}
