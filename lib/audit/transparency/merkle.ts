import { createHash, hash } from "node:crypto";

/**
 * RFC 6962 / RFC 9162 Merkle trees over SHA-256: hashing, roots, the append-only frontier the
 * database keeps, proofs from stored perfect subtrees, and the RFC 9162 §2.1.3.2 / §2.1.4.2
 * verifications. Sizes are numbers up to Number.MAX_SAFE_INTEGER: no 32-bit bit operators.
 */

export const HASH_SIZE = 32;

/** A perfect subtree: 2^level leaves starting at leaf index × 2^level. Level 0 is one leaf. */
export type PerfectNode = { level: number; index: number; hash: Buffer };

/** Fetches the hash of a perfect subtree (level 0 = the leaf hash at that index). */
export type GetPerfect = (level: number, index: number) => Promise<Buffer>;

/** The roots of the perfect subtrees covering leaves [0, size), largest first (one per set bit). */
export type Frontier = { size: number; hashes: readonly Buffer[] };

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

export const EMPTY_ROOT: Buffer = createHash("sha256").digest();

export function leafHash(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(LEAF_PREFIX).update(bytes).digest();
}

const pairScratch = Buffer.alloc(1 + 2 * HASH_SIZE);

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  if (left.length !== HASH_SIZE || right.length !== HASH_SIZE) return createHash("sha256").update(NODE_PREFIX).update(left).update(right).digest();
  pairScratch[0] = 0x01;
  pairScratch.set(left, 1);
  pairScratch.set(right, 1 + HASH_SIZE);
  return hash("sha256", pairScratch, "buffer");
}

/**
 * SHA-256 of `input` written into target[offset..offset + 32). A one-shot digest as a "binary"
 * (latin1) string allocates no Buffer, which is most of the cost of hashing 65 bytes.
 */
function sha256Into(input: Uint8Array, target: Buffer, offset: number): void {
  target.write(hash("sha256", input, "binary"), offset, HASH_SIZE, "latin1");
}

export function toHex(hash: Uint8Array): string {
  return Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString("hex");
}

const HEX_HASH = /^[0-9a-f]{64}$/;

/** Parses a 32-byte hash written as 64 lower-case hex digits; anything else throws. */
export function fromHex(hex: string): Buffer {
  if (!HEX_HASH.test(hex)) throw new Error(`not a SHA-256 hash in lower-case hex: ${JSON.stringify(hex.slice(0, 80))}`);
  return Buffer.from(hex, "hex");
}

function assertSize(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative safe integer, got ${value}`);
}

function assertHash(name: string, hash: Uint8Array): void {
  if (hash.length !== HASH_SIZE) throw new RangeError(`${name} must be ${HASH_SIZE} bytes, got ${hash.length}`);
}

/** The largest power of two strictly below n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The RFC 6962 root of a list of leaf hashes, hashed level by level into one buffer: an odd last
 * node moves up unchanged, which gives the RFC's tree.
 */
export function rootOf(leafHashes: readonly Uint8Array[]): Buffer {
  const n = leafHashes.length;
  if (n === 0) return Buffer.from(EMPTY_ROOT);
  const work = Buffer.allocUnsafe(n * HASH_SIZE);
  for (let i = 0; i < n; i++) {
    assertHash(`leaf hash ${i}`, leafHashes[i]);
    work.set(leafHashes[i], i * HASH_SIZE);
  }
  return rootOfPacked(work, n);
}

/** Like rootOf, over `count` hashes packed end to end in `work`, which it overwrites. */
export function rootOfPacked(work: Buffer, count: number): Buffer {
  if (count === 0) return Buffer.from(EMPTY_ROOT);
  const pair = Buffer.allocUnsafe(1 + 2 * HASH_SIZE);
  pair[0] = 0x01;
  let width = count;
  while (width > 1) {
    const half = Math.floor(width / 2);
    for (let i = 0; i < half; i++) {
      work.copy(pair, 1, 2 * i * HASH_SIZE, (2 * i + 2) * HASH_SIZE);
      sha256Into(pair, work, i * HASH_SIZE);
    }
    if (width % 2 === 1) work.copy(work, half * HASH_SIZE, (width - 1) * HASH_SIZE, width * HASH_SIZE);
    width = half + (width % 2);
  }
  return Buffer.from(work.subarray(0, HASH_SIZE));
}

// ---- frontier ---------------------------------------------------------------------------------

export const EMPTY_FRONTIER: Frontier = { size: 0, hashes: [] };

/**
 * Appends one leaf. Returns the new frontier and the perfect subtrees of level ≥ 1 it completed,
 * smallest first, which the database stores with the leaf (found at position (index + 1) × 2^level − 1).
 */
export function appendLeaf(frontier: Frontier, leaf: Uint8Array): { frontier: Frontier; completed: PerfectNode[] } {
  assertHash("leaf hash", leaf);
  const hashes = [...frontier.hashes];
  let merged: Buffer = Buffer.from(leaf);
  const completed: PerfectNode[] = [];
  const newSize = frontier.size + 1;
  let level = 0;
  let rest = newSize;
  while (rest % 2 === 0) {
    const left = hashes.pop();
    if (!left) throw new Error(`frontier for size ${frontier.size} is missing a subtree`);
    merged = nodeHash(left, merged);
    level++;
    rest /= 2;
    completed.push({ level, index: rest - 1, hash: merged });
  }
  hashes.push(merged);
  return { frontier: { size: newSize, hashes }, completed };
}

/** The perfect subtrees covering [start, start + count), largest first; start must be aligned to the largest. */
function coveringNodes(start: number, count: number): { level: number; index: number }[] {
  const nodes: { level: number; index: number }[] = [];
  let bit = 1;
  while (bit * 2 <= count) bit *= 2;
  let offset = start;
  let level = Math.log2(bit);
  let remaining = count;
  while (remaining > 0) {
    if (remaining >= bit) {
      nodes.push({ level, index: offset / bit });
      offset += bit;
      remaining -= bit;
    }
    bit /= 2;
    level--;
  }
  return nodes;
}

/** The RFC 6962 root of the leaves a frontier covers. */
export function frontierRoot(frontier: Frontier): Buffer {
  const { hashes } = frontier;
  if (hashes.length === 0) return Buffer.from(EMPTY_ROOT);
  let root = hashes[hashes.length - 1];
  for (let i = hashes.length - 2; i >= 0; i--) root = nodeHash(hashes[i], root);
  return Buffer.from(root);
}

/** Rebuilds the frontier for `size` leaves from stored perfect subtrees (fetched in parallel). */
export async function frontierAt(size: number, getPerfect: GetPerfect): Promise<Frontier> {
  assertSize("size", size);
  const hashes = await Promise.all(coveringNodes(0, size).map(({ level, index }) => getPerfect(level, index)));
  hashes.forEach((h, i) => assertHash(`subtree ${i} of the frontier`, h));
  return { size, hashes };
}

// ---- proof generation -------------------------------------------------------------------------

/** A range of leaves [start, end) that is a subtree somewhere in the RFC 6962 recursion. */
type Range = { start: number; end: number };

/**
 * Hashes of RFC-recursion subtrees, each the right fold of the perfect subtrees covering it. All
 * lookups of one proof are made at once; a subtree asked for twice is fetched once.
 */
async function rangeHashes(ranges: readonly Range[], getPerfect: GetPerfect): Promise<Buffer[]> {
  const pieces = ranges.map((r) => coveringNodes(r.start, r.end - r.start));
  const pending = new Map<string, Promise<Buffer>>();
  const fetchOnce = (level: number, index: number) => {
    const key = `${level}/${index}`;
    let p = pending.get(key);
    if (!p) {
      p = getPerfect(level, index).then((h) => {
        assertHash(`subtree (${level}, ${index})`, h);
        return h;
      });
      pending.set(key, p);
    }
    return p;
  };
  const fetched = await Promise.all(pieces.map((nodes) => Promise.all(nodes.map((n) => fetchOnce(n.level, n.index)))));
  return fetched.map((hashes) => {
    let h = hashes[hashes.length - 1];
    for (let i = hashes.length - 2; i >= 0; i--) h = nodeHash(hashes[i], h);
    return Buffer.from(h);
  });
}

/** RFC 9162 §2.1.3.1 PATH(m, D[0:size]): the audit path of leaf `index`, leaf-side first. */
export async function inclusionProof(index: number, size: number, getPerfect: GetPerfect): Promise<Buffer[]> {
  assertSize("index", index);
  assertSize("size", size);
  if (index >= size) throw new RangeError(`leaf index ${index} is not in a tree of size ${size}`);
  const siblings: Range[] = [];
  let start = 0;
  let end = size;
  let m = index;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (m < k) {
      siblings.push({ start: start + k, end });
      end = start + k;
    } else {
      siblings.push({ start, end: start + k });
      start += k;
      m -= k;
    }
  }
  // PATH appends the sibling after the deeper path, so the deepest sibling comes first.
  return rangeHashes(siblings.reverse(), getPerfect);
}

/** RFC 9162 §2.1.4.1 PROOF(oldSize, D[0:newSize]) via SUBPROOF. Empty when oldSize is 0 or equals newSize. */
export async function consistencyProof(oldSize: number, newSize: number, getPerfect: GetPerfect): Promise<Buffer[]> {
  assertSize("oldSize", oldSize);
  assertSize("newSize", newSize);
  if (oldSize > newSize) throw new RangeError(`old size ${oldSize} is larger than new size ${newSize}`);
  if (oldSize === 0 || oldSize === newSize) return [];
  const nodes: Range[] = [];
  let start = 0;
  let end = newSize;
  let m = oldSize;
  let complete = true;
  while (m !== end - start) {
    const k = splitPoint(end - start);
    if (m <= k) {
      nodes.push({ start: start + k, end });
      end = start + k;
    } else {
      nodes.push({ start, end: start + k });
      start += k;
      m -= k;
      complete = false;
    }
  }
  if (!complete) nodes.push({ start, end });
  return rangeHashes(nodes.reverse(), getPerfect);
}

// ---- verification (RFC 9162 §2.1.3.2 and §2.1.4.2) --------------------------------------------

function equalHash(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === HASH_SIZE && b.length === HASH_SIZE && Buffer.compare(a, b) === 0;
}

const half = (x: number) => Math.floor(x / 2);
function isPowerOfTwo(x: number): boolean {
  let p = 1;
  while (p < x) p *= 2;
  return p === x;
}
const odd = (x: number) => x % 2 === 1;
/** RFC 9162's "right-shift both fn and sn equally until …". */
function shiftUntil(fn: number, sn: number, done: (fn: number) => boolean): [number, number] {
  while (!done(fn)) [fn, sn] = [half(fn), half(sn)];
  return [fn, sn];
}

/** The root an inclusion proof leads to, or null when the proof's shape does not fit index and size. */
export function rootFromInclusionProof(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[]): Buffer | null {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return null;
  if (leaf.length !== HASH_SIZE || proof.some((p) => p.length !== HASH_SIZE)) return null;
  let fn = index;
  let sn = size - 1;
  let r: Buffer = Buffer.from(leaf);
  for (const p of proof) {
    if (sn === 0) return null;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      [fn, sn] = shiftUntil(fn, sn, (f) => odd(f) || f === 0);
    } else {
      r = nodeHash(r, p);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  return sn === 0 ? r : null;
}

export function verifyInclusion(leaf: Uint8Array, index: number, size: number, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  const computed = rootFromInclusionProof(leaf, index, size, proof);
  return computed !== null && equalHash(computed, root);
}

export function verifyConsistency(
  oldSize: number,
  newSize: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  if (!Number.isSafeInteger(oldSize) || !Number.isSafeInteger(newSize) || oldSize < 0 || oldSize > newSize) return false;
  if (oldRoot.length !== HASH_SIZE || newRoot.length !== HASH_SIZE || proof.some((p) => p.length !== HASH_SIZE)) return false;
  if (oldSize === newSize) return proof.length === 0 && equalHash(oldRoot, newRoot);
  // Every tree extends the empty one; there is nothing to prove.
  if (oldSize === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  let path = proof;
  // An old tree that is a perfect subtree is its own first node and is left out of the proof.
  if (isPowerOfTwo(oldSize)) path = [oldRoot, ...proof];
  let [fn, sn] = shiftUntil(oldSize - 1, newSize - 1, (f) => !odd(f));
  let fr: Buffer = Buffer.from(path[0]);
  let sr: Buffer = Buffer.from(path[0]);
  for (let i = 1; i < path.length; i++) {
    const c = path[i];
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      [fn, sn] = shiftUntil(fn, sn, (f) => odd(f) || f === 0);
    } else {
      sr = nodeHash(sr, c);
    }
    [fn, sn] = [half(fn), half(sn)];
  }
  return sn === 0 && equalHash(fr, oldRoot) && equalHash(sr, newRoot);
}
